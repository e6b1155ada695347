# shard-check: cityHash64 routing as ClickHouse does it, and the checks that keep FINAL correct
# through a Distributed table. The modules form one library the unit tests link too.
pkg_check_modules(SC_EXPAT REQUIRED IMPORTED_TARGET expat)
add_library(sc_city STATIC ${CMAKE_CURRENT_LIST_DIR}/city.c)
target_include_directories(sc_city PUBLIC ${CMAKE_CURRENT_LIST_DIR})
add_library(sc_core STATIC
  ${CMAKE_CURRENT_LIST_DIR}/sc_key.c
  ${CMAKE_CURRENT_LIST_DIR}/sc_layout.c
  ${CMAKE_CURRENT_LIST_DIR}/sc_route.c
  ${CMAKE_CURRENT_LIST_DIR}/sc_verify.c
  ${CMAKE_CURRENT_LIST_DIR}/sc_ddl.c)
target_include_directories(sc_core PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(sc_core PUBLIC sc_city tools_io PkgConfig::SC_EXPAT)
add_executable(shard-check ${CMAKE_CURRENT_LIST_DIR}/shard_check.c)
target_link_libraries(shard-check PRIVATE sc_core)
