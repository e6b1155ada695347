# io: whole reads and writes shared by chlocal, orders-gen, shard-check and the UDF protocol layer.
add_library(tools_io STATIC ${CMAKE_CURRENT_LIST_DIR}/io.c)
target_include_directories(tools_io PUBLIC ${CMAKE_CURRENT_LIST_DIR})
