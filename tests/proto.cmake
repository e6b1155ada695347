# proto's tests: the unit test, the proto_echo test UDF (build/bin) and the fuzz target.
ods_unit_test(test_proto ${CMAKE_SOURCE_DIR}/tests/unit/test_proto.c LIBS proto)
add_executable(proto_echo ${CMAKE_SOURCE_DIR}/tests/udf/proto_echo.c)
target_link_libraries(proto_echo PRIVATE proto)
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_proto.c)
  ods_fuzz_target(fuzz_proto ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_proto.c LIBS proto)
endif()
add_executable(proto_floor ${CMAKE_SOURCE_DIR}/tests/udf/proto_floor.c)
target_link_libraries(proto_floor PRIVATE proto)
