# Unit tests of the orders-gen modules (tools/og_*), one program per module.
ods_unit_test(test_og_rng ${CMAKE_SOURCE_DIR}/tests/unit/test_og_rng.c LIBS og)
ods_unit_test(test_og_world ${CMAKE_SOURCE_DIR}/tests/unit/test_og_world.c LIBS og)
ods_unit_test(test_og_emit ${CMAKE_SOURCE_DIR}/tests/unit/test_og_emit.c LIBS og wire_contract m)
