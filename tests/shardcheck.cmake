# shard-check unit tests: one program per module (tools/shardcheck.cmake defines sc_core).
ods_unit_test(test_city ${CMAKE_SOURCE_DIR}/tests/unit/test_city.c LIBS sc_city)
foreach(m sc_key sc_layout sc_route sc_verify sc_ddl)
  ods_unit_test(test_${m} ${CMAKE_SOURCE_DIR}/tests/unit/test_${m}.c LIBS sc_core)
endforeach()
