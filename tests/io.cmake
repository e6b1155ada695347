ods_unit_test(test_io ${CMAKE_SOURCE_DIR}/tests/unit/test_io.c LIBS tools_io)
