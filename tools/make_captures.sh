#!/bin/sh
# make_captures.sh - regenerate every capture in captures/ with rocegen.
#
#   tools/make_captures.sh BUILD_DIR [OUT_DIR]   write the captures (default OUT_DIR:
#                                                 the captures/ folder next to tools/)
#   tools/make_captures.sh --check BUILD_DIR     regenerate into a temporary folder and
#                                                 compare byte for byte with captures/
#
# rocegen is deterministic (fixed time base, no randomness in the scenarios), so
# the files are reproducible. captures/README.md is written by hand and not touched.
# Exit status: 0 success (or identical), 1 failure (or a difference), 2 usage.
set -eu

usage() {
    echo "usage: $0 [--check] BUILD_DIR [OUT_DIR]" >&2
    exit 2
}

check=0
if [ "${1:-}" = "--check" ]; then
    check=1
    shift
fi
[ $# -ge 1 ] && [ $# -le 2 ] || usage
build=$1
here=$(cd "$(dirname "$0")" && pwd)
captures="$here/../captures"
rocegen="$build/tools/rocegen/rocegen"
[ -x "$rocegen" ] || { echo "$0: $rocegen not found (build first)" >&2; exit 1; }

if [ $check -eq 1 ]; then
    [ $# -eq 1 ] || usage
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT INT TERM
else
    out=${2:-$captures}
    mkdir -p "$out"
fi

# one pcap per scenario
for name in $("$rocegen" --list | awk '{print $1}'); do
    "$rocegen" "$name" -o "$out/$name.pcap"
done
# a raw ERF file (the InfiniBand records of ib_rc, as an ERF capture holds them)
"$rocegen" ib_rc -o "$out/ib_rc.erf" --erf
# pcapng variants: whole frames, and header-only frames (EPB captured < original length)
"$rocegen" clean_rc -o "$out/clean_rc.pcapng" --pcapng
"$rocegen" truncated -o "$out/truncated.pcapng" --pcapng
# the vantage points of `rocescope localize`: two taps, and a mirror collector of both
mkdir -p "$out/localize"
"$rocegen" localize --tap-a "$out/localize/tap_a.pcap" --tap-b "$out/localize/tap_b.pcap" \
    --mirror "$out/localize/mirror.pcap"
# PFC pauses across three taps: moving upstream, and round a cycle
"$rocegen" localize --pause upstream --tap1 "$out/localize/up_s3_h2.pcap" \
    --tap2 "$out/localize/up_s2_s3.pcap" --tap3 "$out/localize/up_s1_s2.pcap"
"$rocegen" localize --pause cycle --tap1 "$out/localize/cycle_s1_s2.pcap" \
    --tap2 "$out/localize/cycle_s2_s3.pcap" --tap3 "$out/localize/cycle_s3_s1.pcap"

if [ $check -eq 1 ]; then
    status=0
    for f in "$out"/*.pcap "$out"/*.pcapng "$out"/*.erf "$out"/localize/*.pcap; do
        name=${f#"$out"/}
        if ! cmp -s "$f" "$captures/$name"; then
            echo "differs or missing: captures/$name" >&2
            status=1
        fi
    done
    for f in "$captures"/*.pcap "$captures"/*.pcapng "$captures"/*.erf "$captures"/localize/*.pcap; do
        [ -e "$f" ] || continue
        name=${f#"$captures"/}
        [ -e "$out/$name" ] || { echo "not made by rocegen: captures/$name" >&2; status=1; }
    done
    [ $status -eq 0 ] && echo "captures/ is reproduced byte for byte"
    exit $status
fi
