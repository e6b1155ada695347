# ods-ddl: the schema / transition / Kafka-reader SQL generator (ddl_gen), from the wire contract.
add_library(ddl_gen STATIC ${CMAKE_CURRENT_LIST_DIR}/ddl_gen.c)
target_include_directories(ddl_gen PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(ddl_gen PUBLIC wire_contract)
add_executable(ods-ddl ${CMAKE_CURRENT_LIST_DIR}/ods_ddl.c)
target_link_libraries(ods-ddl PRIVATE ddl_gen)
