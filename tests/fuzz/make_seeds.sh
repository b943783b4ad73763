#!/bin/sh
# make_seeds.sh - the seed corpora of the fuzz targets, made from the
# project's own captures and generator (never from real captures).
#
#   tests/fuzz/make_seeds.sh ROCEGEN SEED_ENGINE ROCESCOPE SOURCE_DIR OUT_DIR
#
# OUT_DIR/capture: the captures of captures/ (InfiniBand's too: link type
# 247, ERF records in pcap and raw ERF files) and tests/robustness/, and
# generator traffic they do not have (bulk traffic cut at 128 bytes and
# whole, many QPs, the hostile-values capture).
# OUT_DIR/engine: each of those as engine-target inputs (seed_engine).
# OUT_DIR/report: the JSON report of each (rocescope --json; also with
# --max-flows 4), and merged reports, for the report target.
# Deterministic: the same sources give the same seeds.
set -eu
[ $# -eq 5 ] || { echo "usage: $0 ROCEGEN SEED_ENGINE ROCESCOPE SOURCE_DIR OUT_DIR" >&2; exit 2; }
rocegen=$1
seed_engine=$2
rocescope=$3
src=$4
out=$5

rm -rf "$out/capture" "$out/engine" "$out/report"
mkdir -p "$out/capture" "$out/engine" "$out/report"
for f in "$src"/captures/*.pcap "$src"/captures/*.pcapng "$src"/captures/*.erf \
    "$src"/tests/robustness/*.pcap; do
    if [ -e "$f" ]; then cp "$f" "$out/capture/"; fi
done
"$rocegen" bulk -o "$out/capture/bulk_cut.pcap" --packets 400 --qps 4 --loss 0.02 --ce 0.02 \
    --snaplen 128
"$rocegen" bulk -o "$out/capture/bulk_whole.pcapng" --packets 16 --qps 2 --loss 0.05 --ce 0.05 \
    --full-size --pcapng --seed 7
# the adversarial modes (tests/robustness), when this rocegen has them
if "$rocegen" flood -o "$out/capture/flood.pcap" --packets 300 --qps 100 --ce 0.1 2>/dev/null; then
    :
else
    rm -f "$out/capture/flood.pcap"
fi
if "$rocegen" hostile -o "$out/capture/hostile.pcap" 2>/dev/null; then
    :
else
    rm -f "$out/capture/hostile.pcap"
fi

set -- "$out"/capture/*
"$seed_engine" "$out/engine" "$@"
# reports: exit 1 (a capture cut short) still writes one; one engine (-T 1:
# the report of any -T, ctest threads; the engines' threads cost a sanitizer
# build a quarter of each run)
for f in "$@"; do
    name=$(basename "$f")
    "$rocescope" -T 1 --json -o "$out/report/$name.json" "$f" || [ $? -eq 1 ]
    "$rocescope" -T 1 --json --max-flows 4 -o "$out/report/$name.f4.json" "$f" || [ $? -eq 1 ]
done
"$rocescope" merge --json -o "$out/report/merged.json" "$out"/report/*.pcap.json ||
    [ $? -eq 1 ]
echo "seeds: $(ls "$out/capture" | wc -l) captures, $(ls "$out/engine" | wc -l) engine inputs," \
     "$(ls "$out/report" | wc -l) reports in $out"
