#!/bin/sh
# fuzz.sh - build the libFuzzer binaries and fuzz one target for a while.
#
#   tools/fuzz.sh TARGET SECONDS     fuzz TARGET (engine, capture or report), nice'd, for SECONDS
#   tools/fuzz.sh --minimize TARGET  merge the working corpus into the committed one
#                                    (the archive tests/fuzz/corpus/TARGET.tar.gz, packed
#                                    again by tests/fuzz/corpus.sh): only inputs adding
#                                    coverage, cut to MINIMIZE_MAX_LEN bytes (default 4096)
#   tools/fuzz.sh --coverage TARGET  source coverage (lines, regions, branches) of the engine
#                                    (and for capture, report: the CLI) reached by the working corpus
#                                    and the seeds: clang -fprofile-instr-generate, llvm-cov,
#                                    in build-fuzz-cov/ (COV_DIR to change it)
#   tools/fuzz.sh --build            only build
#
# Build: clang, -fsanitize=fuzzer,address,undefined (UB aborts), in build-fuzz/
# (BUILD_DIR to change it). Inputs: the working corpus build-fuzz/corpus/TARGET
# (kept between runs; new inputs go there), the committed corpus (unpacked
# into build-fuzz/committed/TARGET), the seeds made from captures/ and rocegen
# (tests/fuzz/make_seeds.sh), the dictionary
# tests/fuzz/roce.dict (report.dict for the report target). Findings (crash-*,
# leak-*, timeout-*, oom-*) go to build-fuzz/artifacts/TARGET/; the log to
# build-fuzz/fuzz-TARGET.log.
# Prints executions, exec/s, coverage (cov = edges, ft = features), corpus size
# and findings. Exit status: 0 no finding, 1 findings, libFuzzer failing (its own exit
# status) or a build failure, 2 usage (SECONDS 0 too: libFuzzer would run without a limit).
# Environment: FUZZ_ARGS (extra libFuzzer options), FUZZ_NICE (default 19).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build-fuzz}
TARGETS="engine capture report"

usage() {
    echo "usage: $0 TARGET SECONDS | --minimize TARGET | --coverage TARGET | --build" \
         "(TARGET: $TARGETS)" >&2
    exit 2
}

# The dictionary of a target: JSON report keys for report, RoCE values otherwise.
dict_of() {
    if [ "$1" = report ]; then echo tests/fuzz/report.dict; else echo tests/fuzz/roce.dict; fi
}

known_target() {
    for t in $TARGETS; do [ "$t" = "$1" ] && return 0; done
    return 1
}

build() {
    CC=${CC_FUZZ:-clang} cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DROCESCOPE_SANITIZE=ON -DROCESCOPE_LIBFUZZER=ON -DROCESCOPE_DISSECTOR=OFF \
        -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
    nice -n "${FUZZ_NICE:-19}" cmake --build "$BUILD" -j2 --target fuzz_engine fuzz_capture \
        fuzz_report rocegen seed_engine rocescope >/dev/null
    sh tests/fuzz/make_seeds.sh "$BUILD/tools/rocegen/rocegen" "$BUILD/tests/fuzz/seed_engine" \
        "$BUILD/analyzer/rocescope" . "$BUILD/seeds" >/dev/null 2>&1
    for t in $TARGETS; do
        sh tests/fuzz/corpus.sh unpack "$t" "$BUILD/committed/$t" >/dev/null
    done
}

# Source coverage of what TARGET's corpus reaches (see the head comment).
coverage() {
    cov=${COV_DIR:-build-fuzz-cov}
    CC=${CC_FUZZ:-clang} cmake -S . -B "$cov" -DCMAKE_BUILD_TYPE=Debug -DROCESCOPE_DISSECTOR=OFF \
        -DCMAKE_C_FLAGS="-fprofile-instr-generate -fcoverage-mapping" \
        -DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate >/dev/null
    nice -n "${FUZZ_NICE:-19}" cmake --build "$cov" -j2 --target "replay_$1" >/dev/null
    sh tests/fuzz/corpus.sh unpack "$1" "$cov/committed/$1" >/dev/null
    set -- "$1" "$BUILD/corpus/$1" "$BUILD/seeds/$1" "$cov/committed/$1"
    target=$1
    shift
    rm -f "$cov/replay.profraw"
    LLVM_PROFILE_FILE="$cov/replay.profraw" nice -n "${FUZZ_NICE:-19}" \
        "$cov/tests/fuzz/replay_$target" "$@" >/dev/null
    llvm-profdata merge -sparse "$cov/replay.profraw" -o "$cov/replay.profdata"
    srcs=analyzer/engine
    [ "$target" != engine ] && srcs=analyzer
    # shellcheck disable=SC2086
    llvm-cov report "$cov/tests/fuzz/replay_$target" -instr-profile="$cov/replay.profdata" \
        $srcs | grep -vE '^(analyzer/)?(live|cli|common)/'
}

case "${1:-}" in
--coverage)
    [ $# -eq 2 ] && known_target "$2" || usage
    coverage "$2"
    exit 0
    ;;
--build)
    build
    exit 0
    ;;
--minimize)
    [ $# -eq 2 ] && known_target "$2" || usage
    build
    mkdir -p "$BUILD/corpus/$2"
    # inputs cut to MINIMIZE_MAX_LEN bytes (default 4096): a corpus small enough to
    # commit, still holding nearly all the coverage; merged into the committed
    # corpus as build() unpacked it, then packed into its archive again
    nice -n "${FUZZ_NICE:-19}" "$BUILD/tests/fuzz/fuzz_$2" -merge=1 \
        -max_len="${MINIMIZE_MAX_LEN:-4096}" -dict="$(dict_of "$2")" "$BUILD/committed/$2" \
        "$BUILD/corpus/$2"
    sh tests/fuzz/corpus.sh pack "$2" "$BUILD/committed/$2"
    exit 0
    ;;
esac
[ $# -eq 2 ] && known_target "$1" || usage
target=$1
seconds=$2
# (0 would be libFuzzer's "no limit")
case "$seconds" in '' | *[!0-9]* | 0 | 0*) usage ;; esac

build
corpus="$BUILD/corpus/$target"
artifacts="$BUILD/artifacts/$target"
log="$BUILD/fuzz-$target.log"
mkdir -p "$corpus" "$artifacts"
set -- "$corpus" "$BUILD/seeds/$target" "$BUILD/committed/$target"
before=$(ls "$artifacts" | wc -l)

echo "fuzz: $target for $seconds s (log $log)"
rc=0
# shellcheck disable=SC2086
nice -n "${FUZZ_NICE:-19}" "$BUILD/tests/fuzz/fuzz_$target" -max_total_time="$seconds" \
    -dict="$(dict_of "$target")" -artifact_prefix="$artifacts/" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -print_pcs=0 ${FUZZ_ARGS:-} "$@" >"$log" 2>&1 || rc=$?

# the last status line ("#N DONE cov: C ft: F corp: K/S exec/s: E rss: R")
grep -E '^#[0-9]+' "$log" | tail -n 1
grep -E '^stat::' "$log" || true
after=$(ls "$artifacts" | wc -l)
echo "fuzz: corpus $(ls "$corpus" | wc -l) inputs; findings $((after - before)) new" \
     "($after in $artifacts)"
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|contract broken' "$log" ||
   [ "$after" -gt "$before" ] || [ "$rc" -ne 0 ]; then
    grep -E 'ERROR:|runtime error:|contract broken|Test unit written' "$log" | head -n 20
    # a failure that names no finding (a bad option, the start-up): the log's end
    [ "$rc" -ne 0 ] && echo "fuzz: libFuzzer exited with $rc" && tail -n 5 "$log"
    exit 1
fi
exit 0
