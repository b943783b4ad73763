#!/bin/sh
# The whole test suite: the normal build (build/, made by tools/setup.sh),
# then the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/; the Wireshark plugin is left out there, since tshark itself is
# not instrumented). Fails when any test fails.
set -eu
cd "$(dirname "$0")/.."
JOBS=$(nproc)

ctest --test-dir build --output-on-failure -j"$JOBS"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DROCESCOPE_SANITIZE=ON \
      -DROCESCOPE_DISSECTOR=OFF >/dev/null
cmake --build build-asan -j"$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$JOBS"
