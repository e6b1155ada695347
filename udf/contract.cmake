# The wire contract table: linked by the classifier and by ods-ddl.
add_library(wire_contract STATIC ${CMAKE_CURRENT_LIST_DIR}/wire_contract.c)
target_include_directories(wire_contract PUBLIC ${CMAKE_CURRENT_LIST_DIR})
