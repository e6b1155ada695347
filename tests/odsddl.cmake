# ods-ddl's unit test (module ddl_gen); the engine-side tests are tests/bats/ods_ddl.bats.
ods_unit_test(test_ddl_gen ${CMAKE_SOURCE_DIR}/tests/unit/test_ddl_gen.c LIBS ddl_gen)
