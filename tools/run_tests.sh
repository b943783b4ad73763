#!/bin/sh
# The test suite.
#
#   tools/run_tests.sh             the contributor's suite (the README's test
#                                  command): every test but the release tier
#   tools/run_tests.sh --release   the release tier only (label release:
#                                  the plugin against Wireshark 4.4 and 4.6,
#                                  the packages, the real captures' repeated
#                                  comparisons, Valgrind over the CLI, clang-tidy,
#                                  and the whole matrices the first samples
#                                  under the sanitizers, *_whole; then the
#                                  libFuzzer targets built and fuzzed 10 s each)
#
# CI (.ci/run) runs the first, then the second: every test runs on every change
# that lands (tests/README.md, "What runs where").
#
# Each runs in the normal build (build/, made by tools/setup.sh), then, built
# with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/), the unit,
# fuzz-replay and robustness suites, the tests of input and output code and a
# sample of each long comparison, of golden's cuts and of each robustness
# matrix (labels unit, fuzz, robustness, sanitized:
# tests/CMakeLists.txt says what and why; there the Wireshark plugin, built
# with the sanitizers too, runs only inside tshark over mutated captures, with
# the runtimes preloaded; Valgrind and static analysis are left out). Both
# replay the fuzz corpora. Fails when any test fails; prints its wall time.
# Ends with a banner when the tests of the real captures were skipped (none
# found: tests/CMakeLists.txt).
# Environment: FUZZ_SECONDS=N also runs each libFuzzer target for N seconds
# (tools/fuzz.sh, clang) at the end.
set -eu
cd "$(dirname "$0")/.."
JOBS=$(nproc)
START=$(date +%s)
case "${1:-}" in
"") TIER="-LE release" WHAT="the test command" ;;
--release) TIER="-L release" WHAT="the release tier" ;;
*)
    echo "usage: tools/run_tests.sh [--release]" >&2
    exit 2
    ;;
esac

# The sanitizer build is made while the normal build's tests run, at the
# lowest priority: it takes the processor time they leave idle (their waits
# on live captures and browsers, the GUI test that runs alone, the last
# test's tail) instead of a minute of its own after them.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DROCESCOPE_SANITIZE=ON \
      -DROCESCOPE_DISSECTOR=AUTO >/dev/null
ASAN_LOG=build-asan/build.log
nice -n 19 cmake --build build-asan -j"$JOBS" >"$ASAN_LOG" 2>&1 &
ASAN_BUILD=$!
trap 'kill "$ASAN_BUILD" 2>/dev/null || true' EXIT

# The GUI test (plugin_gui, RUN_SERIAL: its clicks wait fixed times for
# Wireshark's windows, so it runs with no other test of its build) runs after
# the others, beside the sanitizer build's tests (below); it waits on the GUI
# most of its 26 s, and alone at the end of this phase it left both CPUs idle.
GUI='^plugin_gui$'
# shellcheck disable=SC2086 # TIER is two words
ctest --test-dir build --output-on-failure -j"$JOBS" $TIER -E "$GUI"

if ! wait "$ASAN_BUILD"; then
    tail -n 60 "$ASAN_LOG"
    echo "the sanitizer build failed (all of its output: $ASAN_LOG)" >&2
    exit 1
fi
trap - EXIT
echo "sanitizer build: $(tail -n 1 "$ASAN_LOG")"
# The GUI test of the normal build, its output kept until it ends; the
# sanitizer build's tests beside it at a lower priority: the GUI gets the
# processor at once whenever it wants it, as when it ran alone.
GUI_LOG=build/gui-tests.log
GUI_RUN=""
if [ -z "${1:-}" ]; then
    # shellcheck disable=SC2086 # TIER is two words
    ctest --test-dir build --output-on-failure $TIER -R "$GUI" >"$GUI_LOG" 2>&1 &
    GUI_RUN=$!
fi
# One job more than CPUs: the live tests mostly wait under the sanitizers
# (live_monitor 36 s of wall time for 11 s of CPU, live_serve 19 s for 10 s),
# and a third test takes the CPU they leave.
ASAN_RC=0
# shellcheck disable=SC2086 # TIER is two words
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    nice -n 10 ctest --test-dir build-asan --output-on-failure -j"$((JOBS + 1))" \
    -L 'unit|fuzz|robustness|sanitized' $TIER || ASAN_RC=$?
GUI_RC=0
if [ -n "$GUI_RUN" ]; then
    wait "$GUI_RUN" || GUI_RC=$?
    echo "the GUI test of the normal build (run beside the sanitizer build's):"
    cat "$GUI_LOG"
fi
if [ "$ASAN_RC" -ne 0 ] || [ "$GUI_RC" -ne 0 ]; then
    echo "FAILED: the sanitizer build's tests (exit $ASAN_RC), the GUI test (exit $GUI_RC)" >&2
    exit 1
fi

# The release tier builds the libFuzzer targets (clang, build-fuzz/) and
# fuzzes each for a few seconds: a change that only clang's build refuses,
# or a target that fails at once on its seeds, fails here (gcc-only warning
# options broke the fuzz build on 2026-12-05, unseen until 2026-12-06).
if [ "${1:-}" = "--release" ] && [ -z "${FUZZ_SECONDS:-}" ]; then
    for target in engine capture report; do
        if ! tools/fuzz.sh "$target" 10 >"build/fuzz-smoke-$target.log" 2>&1; then
            tail -n 40 "build/fuzz-smoke-$target.log"
            echo "FAILED: the libFuzzer target $target (tools/fuzz.sh $target 10)" >&2
            exit 1
        fi
        tail -n 1 "build/fuzz-smoke-$target.log"
    done
fi

echo "wall time of $WHAT: $(($(date +%s) - START)) s"

if [ -n "${FUZZ_SECONDS:-}" ]; then
    for target in engine capture report; do
        tools/fuzz.sh "$target" "$FUZZ_SECONDS"
    done
fi

real=$(cat build/real_captures.txt 2>/dev/null || echo MISSING)
case "$real" in
MISSING | OFF)
    echo "=================================================================="
    echo "NOTE: the tests of the real captures were SKIPPED ($real): real_captures,"
    echo "readers_real, plugin_*_real, robust_mutate*_real did not run. Put the"
    echo "captures in a shared/captures/real folder above this checkout or set"
    echo "ROCESCOPE_REAL_CAPTURES=DIR, then run tools/setup.sh again."
    echo "=================================================================="
    ;;
esac
