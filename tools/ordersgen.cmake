# orders-gen: the realistic order stream generator (og_* modules, one library for the tests).
add_library(og STATIC ${CMAKE_CURRENT_LIST_DIR}/og_rng.c ${CMAKE_CURRENT_LIST_DIR}/og_world.c
            ${CMAKE_CURRENT_LIST_DIR}/og_emit.c)
target_include_directories(og PUBLIC ${CMAKE_CURRENT_LIST_DIR})
add_executable(orders-gen ${CMAKE_CURRENT_LIST_DIR}/orders_gen.c)
target_link_libraries(orders-gen PRIVATE og tools_io)
