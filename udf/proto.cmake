# proto: the shared executable-UDF protocol layer (static library `proto`); tests in tests/proto.cmake.
add_library(proto STATIC ${CMAKE_CURRENT_LIST_DIR}/proto.c)
target_include_directories(proto PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(proto PUBLIC tools_io)
