ods_unit_test(test_cl_args ${CMAKE_SOURCE_DIR}/tests/unit/test_cl_args.c LIBS cl_args)
