# hashdiff: the Data Vault hashdiff UDFs (library hd, executable hashdiff; tests in tests/hashdiff.cmake).
# Libraries come from Debian through pkg-config: xxHash, ICU (case mapping, NFC), libcrypto.
pkg_check_modules(HD_XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(HD_ICUUC REQUIRED IMPORTED_TARGET icu-uc)
pkg_check_modules(HD_CRYPTO REQUIRED IMPORTED_TARGET libcrypto)

add_library(hd STATIC ${CMAKE_CURRENT_LIST_DIR}/hd.c)
target_include_directories(hd PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(hd PUBLIC PkgConfig::HD_XXHASH PkgConfig::HD_ICUUC PkgConfig::HD_CRYPTO)

# The binary needs the shared protocol layer, which another module provides.
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/proto.c AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/hashdiff.c)
  add_executable(hashdiff ${CMAKE_CURRENT_LIST_DIR}/hashdiff.c)
  target_link_libraries(hashdiff PRIVATE hd proto)
endif()
