# The wire classifier (wire.c + the simdjson wrapper sj.cpp) and the order_wire_class UDF binary.
pkg_check_modules(SIMDJSON REQUIRED IMPORTED_TARGET simdjson)
add_library(wire STATIC ${CMAKE_CURRENT_LIST_DIR}/wire.c ${CMAKE_CURRENT_LIST_DIR}/sj.cpp)
target_include_directories(wire PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(wire PUBLIC wire_contract PkgConfig::SIMDJSON m)
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/proto.c AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/order_wire_class.c)
  add_executable(order_wire_class ${CMAKE_CURRENT_LIST_DIR}/order_wire_class.c)
  target_link_libraries(order_wire_class PRIVATE wire proto)
endif()
