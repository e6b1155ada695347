# The wire classifier's unit test, its libFuzzer targets (fuzz_wire: invariants; fuzz_wire_dom:
# differential against simdjson DOM) and wire_fields (prints the contract table for
# tests/bats/order_wire_class.bats).
ods_unit_test(test_wire ${CMAKE_SOURCE_DIR}/tests/unit/test_wire.c LIBS wire)
ods_fuzz_target(fuzz_wire ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_wire.c LIBS wire)
ods_fuzz_target(fuzz_wire_dom ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_wire_dom.c LIBS wire)
add_executable(wire_fields ${CMAKE_SOURCE_DIR}/tests/wire_fields.c)
set_target_properties(wire_fields PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
target_link_libraries(wire_fields PRIVATE wire_contract)
