# hashdiff tests: the unit test of module hd; its expected values are engine output kept in
# tests/fixtures/hashdiff (regen.sh). The bats suite is tests/bats/hashdiff.bats.
ods_unit_test(test_hd ${CMAKE_SOURCE_DIR}/tests/unit/test_hd.c LIBS hd)
