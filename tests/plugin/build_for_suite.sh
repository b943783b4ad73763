#!/bin/sh
# Fixture of the plugin tests against another Wireshark release: the private
# root of Debian suite SUITE (tools/wireshark_root.sh: downloaded once, then
# refreshed from the cache) and the plugin built against it in BUILD_DIR.
# Fails, loudly, when the root can be neither downloaded nor found cached.
#   build_for_suite.sh SUITE SOURCE_DIR BUILD_DIR BUILD_TYPE
set -eu
suite=$1
src=$2
bdir=$3
btype=$4
root=$(sh "$src/tools/wireshark_root.sh" fetch "$suite")
echo "Wireshark root of $suite: $root"
cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE="$btype" -DROCESCOPE_WIRESHARK_ROOT="$root" \
    -DROCESCOPE_DISSECTOR=ON -DROCESCOPE_TESTS=OFF >/dev/null
cmake --build "$bdir" --target rocescope_plugin -j"$(nproc)"
