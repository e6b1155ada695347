# chlocal: the embedded-engine runner (libchdb is dlopen-ed at run time, never linked).
add_library(cl_args STATIC ${CMAKE_CURRENT_LIST_DIR}/cl_args.c)
target_include_directories(cl_args PUBLIC ${CMAKE_CURRENT_LIST_DIR})
add_executable(chlocal ${CMAKE_CURRENT_LIST_DIR}/chlocal.c)
target_link_libraries(chlocal PRIVATE cl_args tools_io ${CMAKE_DL_LIBS})
