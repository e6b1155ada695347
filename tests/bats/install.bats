#!/usr/bin/env bats
# install: `cmake --install` into a DESTDIR and the Debian packages of scripts/package put exactly
# the shipped files where a ClickHouse server looks for them, and the functions run from there on
# the embedded engine, with user_scripts_path and the function config glob pointing into that root.
load helpers

FIX=$ROOT/tests/fixtures/install
UDF_DIR=var/lib/clickhouse/user_scripts
CONFIG_GLOB='etc/clickhouse-server/*_function.xml'
DOC_DIR=usr/share/doc/ods_udf

# expected_files: every file an install holds, relative to DESTDIR (prefix /usr): the fixture's
# list plus README.md and docs/*.md of the checkout.
expected_files() {
    local f
    {
        cat "$FIX/files"
        echo "$DOC_DIR/README.md"
        for f in "$ROOT"/docs/*.md; do echo "$DOC_DIR/${f##*/}"; done
    } | LC_ALL=C sort
}

# files_in DIR: the files (and links) under DIR, relative to it, sorted.
files_in() { find "$1" \( -type f -o -type l \) -printf '%P\n' | LC_ALL=C sort; }

# install_into ROOT [--component C]: cmake --install of the tree under test, DESTDIR=ROOT.
install_into() {
    local root=$1
    shift
    DESTDIR=$root cmake --install "$BUILD_DIR" --prefix /usr "$@" >/dev/null
}

# run_functions ROOT: the README's queries with the installed chlocal, orders-gen and hashdiff,
# the engine's user_scripts_path and function config glob pointing into ROOT only (chlocal's own
# defaults off: --no-udf).
run_functions() {
    local root=$1 native strict
    native=$("$root/$UDF_DIR/hashdiff" --print-sql classic name email city tier)
    strict=$("$root/$UDF_DIR/hashdiff" --print-sql strict name email city tier)
    "$root/usr/bin/orders-gen" --orders 2 >messages.txt
    run_split "$root/usr/bin/chlocal" --no-udf -q "
        SELECT order_wire_class('{\"order_id\": 1}');
        SELECT count() > 0, countIf(order_wire_class(line) = '') = count(),
            countIf(order_wire_parse(line).total > 0) = count() FROM file('messages.txt', LineAsString);
        SELECT hashdiff([name, email, city, tier]) = $native, hashdiff_strict([name, email, city, tier]) = $strict
            FROM (SELECT ' ann ' AS name, 'a@x.org' AS email, NULL::Nullable(String) AS city, 'Gold' AS tier);
        SELECT name FROM system.functions WHERE origin = 'ExecutableUserDefined' ORDER BY name" \
        -- --user_scripts_path="$root/$UDF_DIR" --user_defined_executable_functions_config="$root/$CONFIG_GLOB" \
        </dev/null
}

# The output run_functions must print.
expected_function_output() {
    printf 'keyset_mismatch\n1\t1\t1\n1\t1\n'
    cat "$FIX/functions"
}

# release_or_skip: packages come from a Release tree without sanitizers (scripts/package refuses
# others), so under the ASan+UBSan pass of scripts/test the package tests are skipped.
release_or_skip() {
    local type san
    type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
    san=$(sed -n 's/^ODS_SANITIZE:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
    if [ "$type" != Release ] || [ "$san" = ON ]; then
        skip "packages come from a Release build without sanitizers; $BUILD_DIR is $type, ODS_SANITIZE=$san"
    fi
}

# packages: scripts/package on the tree under test, once per file, into $BATS_FILE_TMPDIR/pkg.
packages() {
    PKG=$BATS_FILE_TMPDIR/pkg
    if [ ! -f "$PKG/list" ]; then
        "$ROOT/scripts/package" --build-dir "$BUILD_DIR" --out "$PKG" >"$PKG.out" 2>"$PKG.err" ||
            { cat "$PKG.err" >&2; return 1; }
        mv "$PKG.out" "$PKG/list"
    fi
    VERSION=$(sed -n 's/^project(ods_udf VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
    ARCH=$(dpkg --print-architecture)
    SERVER_DEB=$PKG/ods-udf-server_${VERSION}-1_${ARCH}.deb
    TOOLS_DEB=$PKG/ods-udf-tools_${VERSION}-1_${ARCH}.deb
}

@test "cmake --install into a DESTDIR: exactly the shipped files, where the server looks" {
    install_into root
    diff <(expected_files) <(files_in root)
}

@test "the installed chlocal: the packages' layout as its defaults, and without an engine it says where to get one (not scripts/setup); --version exits 0 (issue 27)" {
    install_into root
    run_split env -u CHLOCAL_LIBCHDB root/usr/bin/chlocal --help
    [ "$status" -eq 0 ]
    [[ $output == *"defaults in force here (installed):"*"engine      libchdb.so"*"UDFs        /$UDF_DIR"*"UDF config  /$CONFIG_GLOB"* ]]
    [[ $output != *"$ROOT"* ]]
    run_split env -u CHLOCAL_LIBCHDB root/usr/bin/chlocal -q "SELECT 1"
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"cannot load the engine"*"point CHLOCAL_LIBCHDB (or --libchdb) at libchdb.so from the npm package @chdb/lib-linux-x64-gnu"* ]]
    [[ $stderr_text != *"scripts/setup"* ]]
    run_split env -u CHLOCAL_LIBCHDB root/usr/bin/chlocal --version
    [ "$status" -eq 0 ]
    [ "$output" = "chlocal $(ods_version)" ]
    # with the engine named, the installed one runs its queries
    run_split root/usr/bin/chlocal --no-udf -q "SELECT 40 + 2"
    [ "$status" -eq 0 ]
    [ "$output" = 42 ]
}

@test "installed binaries are 0755 (the clickhouse user runs the UDFs), data files 0644" {
    install_into root
    run stat -c '%a %n' root/$UDF_DIR/hashdiff root/$UDF_DIR/order_wire_class root/usr/bin/check-cluster \
        root/usr/bin/chlocal root/usr/bin/ods-ddl root/usr/bin/ods-load root/usr/bin/orders-gen root/usr/bin/shard-check
    [ "$status" -eq 0 ]
    [ "$(grep -vc '^755 ' <<<"$output")" -eq 0 ]
    run stat -c '%a %n' root/etc/clickhouse-server/*.xml root/$DOC_DIR/*.md root/$DOC_DIR/examples/*
    [ "$status" -eq 0 ]
    [ "$(grep -vc '^644 ' <<<"$output")" -eq 0 ]
}

@test "no test helper, test UDF or static library is installed" {
    install_into root
    run bash -c 'cd root && find . -name "proto_*" -o -name "jraw_print" -o -name "json_gen" \
        -o -name "config_gen" -o -name "wire_fields" -o -name "test_*" -o -name "fuzz_*" -o -name "*.a"'
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

@test "--component server installs the UDFs and their XML only, --component tools the rest" {
    install_into server --component server
    diff <(grep -E '^(var|etc)/' "$FIX/files") <(files_in server)
    install_into tools --component tools
    diff <(expected_files | grep -vE '^(var|etc)/') <(files_in tools)
}

@test "the installed functions run on the embedded engine from the DESTDIR alone" {
    install_into root
    run_functions "$PWD/root"
    [ "$status" -eq 0 ]
    diff <(expected_function_output) - <<<"$output"
}

@test "installed check-cluster and shard-check work standalone, tools found beside check-cluster" {
    install_into root
    run_split root/usr/bin/check-cluster --help
    [ "$status" -eq 0 ]
    [[ "$output" == usage:* ]]
    run_split root/usr/bin/shard-check --help
    [ "$status" -eq 0 ]
    [[ "$output" == usage:\ shard-check* ]]
    # No checkout beside it (no lib/common.sh), no build/bin on PATH: the tools beside it run.
    run_split env PATH=/usr/bin:/bin root/usr/bin/check-cluster --config root/$DOC_DIR/examples/cluster.example.xml
    [ "$status" -eq 0 ]
    [[ "$stderr_text" == *"cluster ods_cluster: FINAL through ods.order_snapshot_dist holds"* ]]
    # Installed, the default config is the server's own.
    run_split env PATH=/usr/bin:/bin root/usr/bin/check-cluster --cluster x
    [ "$status" -ne 0 ]
    [[ "$stderr_text" == *"/etc/clickhouse-server/config.xml"* ]]
}

@test "scripts/package: --help, unknown option, and a sanitizer tree is refused" {
    run_split "$ROOT/scripts/package" --help
    [ "$status" -eq 0 ]
    [[ "$output" == usage:\ scripts/package* ]]
    run_split "$ROOT/scripts/package" --bogus
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "package: unknown option: --bogus (try --help)" ]
    for bad in "nobody" "A <b>" "<a@b>" "A <a@b> x" $'A\n<a@b>'; do
        run_split "$ROOT/scripts/package" --maintainer "$bad"
        [ "$status" -eq 2 ] || { echo "$bad: $status"; return 1; }
        [[ "$stderr_text" == "package: bad value for --maintainer: "*"(expected 'Name <user@host>')" ]]
    done
    mkdir asan
    printf 'CMAKE_BUILD_TYPE:STRING=Debug\nODS_SANITIZE:BOOL=ON\n' >asan/CMakeCache.txt
    run_split "$ROOT/scripts/package" --build-dir asan
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"is a Debug build tree; packages come from Release"* ]]
}

@test "the .deb files: names and version from project(), exact contents, root:root, no maintainer scripts" {
    release_or_skip
    packages
    diff <(printf '%s\n' "$SERVER_DEB" "$TOOLS_DEB") "$PKG/list"
    [ "$(dpkg-deb -f "$SERVER_DEB" Version)" = "$VERSION-1" ]
    [ "$(dpkg-deb -f "$TOOLS_DEB" Package)" = ods-udf-tools ]
    # the Maintainer: the project's (ODS_MAINTAINER in CMakeLists.txt), on both
    local m
    m=$(sed -nE 's/^set\(ODS_MAINTAINER "([^"]+)"$/\1/p' "$ROOT/CMakeLists.txt")
    [ -n "$m" ]
    [ "$(dpkg-deb -f "$SERVER_DEB" Maintainer)" = "$m" ]
    [ "$(dpkg-deb -f "$TOOLS_DEB" Maintainer)" = "$m" ]
    # dpkg-deb -c: mode owner/group size date time ./path; files only (directories end in /).
    diff <(expected_files) <(for d in "$SERVER_DEB" "$TOOLS_DEB"; do dpkg-deb -c "$d"; done |
        awk '$6 !~ /\/$/ { sub(/^\.\//, "", $6); print $6 }' | LC_ALL=C sort)
    run bash -c 'for d in "$@"; do dpkg-deb -c "$d"; done | awk "{ print \$2 }" | sort -u' - "$SERVER_DEB" "$TOOLS_DEB"
    [ "$output" = root/root ]
    run bash -c 'dpkg-deb -c "$1" | awk "\$6 ~ /user_scripts\/./ { print \$1 }" | sort -u' - "$SERVER_DEB"
    [ "$output" = -rwxr-xr-x ]
    # The control archives: control, md5sums and (server) conffiles, never a maintainer script.
    run bash -c 'dpkg-deb --ctrl-tarfile "$1" | tar -t | sort' - "$SERVER_DEB"
    [ "$output" = "$(printf './conffiles\n./control\n./md5sums')" ]
    run bash -c 'dpkg-deb --ctrl-tarfile "$1" | tar -t | sort' - "$TOOLS_DEB"
    [ "$output" = "$(printf './control\n./md5sums')" ]
    run dpkg-deb -I "$SERVER_DEB" conffiles
    [ "$output" = "$(grep '^etc/' "$FIX/files" | sed 's|^|/|')" ]
}

@test "the .deb Depends: (dpkg-shlibdeps) names the runtime libraries, each a real Debian package" {
    release_or_skip
    packages
    local deps
    deps=$(dpkg-deb -f "$SERVER_DEB" Depends)
    [[ "$deps" == *"libsimdjson"* ]]
    [[ "$deps" == *"libxxhash0"* ]]
    [[ "$deps" == *"libicu"* ]]
    [[ "$deps" == *"libssl"* ]]
    [[ "$(dpkg-deb -f "$TOOLS_DEB" Depends)" == *"libexpat1"* ]]
    # the server the functions run in: recommended and enhanced, not a dependency
    [ "$(dpkg-deb -f "$SERVER_DEB" Recommends)" = clickhouse-server ]
    [ "$(dpkg-deb -f "$SERVER_DEB" Enhances)" = clickhouse-server ]
    [[ "$(dpkg-deb -f "$SERVER_DEB" Depends)" != *clickhouse* ]]
    # Every package named is installed here (the build ran against it), with a version that fits.
    run bash -c 'for d in "$@"; do dpkg-deb -f "$d" Depends; done | tr "," "\n" |
        sed -E "s/^ *([^ ]+).*/\1/" | sort -u | xargs dpkg-query -W -f="\${Package} \${Status}\n"' - "$SERVER_DEB" "$TOOLS_DEB"
    [ "$status" -eq 0 ]
    [ "$(grep -vc ' install ok installed$' <<<"$output")" -eq 0 ]
}

@test "the functions run on the embedded engine from the extracted .deb files" {
    release_or_skip
    packages
    dpkg-deb -x "$SERVER_DEB" root
    dpkg-deb -x "$TOOLS_DEB" root
    run_functions "$PWD/root"
    [ "$status" -eq 0 ]
    diff <(expected_function_output) - <<<"$output"
}
