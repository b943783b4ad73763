#!/bin/sh
# bench_plugin.sh - what the Wireshark plugin costs: tshark with it vs
# without it on the same generated capture (not a test; the ratio goes into
# dissector/README.md).
#
# usage: tools/bench/bench_plugin.sh [-b BUILD] [-n PACKETS] [-q QPS] [-r RUNS] [-s SNAPLEN]
#   -b BUILD    build folder with rocegen and the plugin (default: build)
#   -n PACKETS  frames to generate (default 500000)
#   -q QPS      connections (default 64)
#   -r RUNS     runs of each configuration; the median is reported (default 5)
#   -s SNAPLEN  snaplen of the generated capture (default: rocegen bulk's, 128)
#
# Workloads, each run with a HOME holding the plugin and with an empty HOME
# (no plugin): `tshark -r F` (packet list to /dev/null), `tshark -r F -V`
# (full trees), `tshark -2 -r F -q -z expert`, and the packet list with the
# plugin's ICRC check off (the engine's CRC-32 dominates on full-size
# frames; the generated capture is header-only by default). Reported: median CPU
# seconds (user + system, steadier than wall time on a busy machine), the
# ratio with/without, and peak memory. As root, tshark ignores personal
# plugin folders (dissector/README.md, "Tests"), so it runs as uid/gid 65534 then.
set -eu

BUILD=build
PACKETS=500000
QPS=64
RUNS=5
SNAPLEN=
while getopts b:n:q:r:s:h opt; do
    case $opt in
    b) BUILD=$OPTARG ;;
    n) PACKETS=$OPTARG ;;
    q) QPS=$OPTARG ;;
    r) RUNS=$OPTARG ;;
    s) SNAPLEN=$OPTARG ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
    esac
done

cd "$(dirname "$0")/../.."
ROCEGEN=$BUILD/tools/rocegen/rocegen
PLUGIN=$BUILD/dissector/rocescope.so
for f in "$ROCEGEN" "$PLUGIN"; do
    [ -f "$f" ] || { echo "bench_plugin: $f not found (build first)" >&2; exit 1; }
done
command -v tshark >/dev/null || { echo "bench_plugin: tshark not found" >&2; exit 1; }
WSVER=$(tshark -v 2>/dev/null | sed -n 's/^TShark (Wireshark) \([0-9]*\.[0-9]*\).*/\1/p')

WORK=$(mktemp -d /tmp/rocescope-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM
mkdir -p "$WORK/with/.local/lib/wireshark/plugins/$WSVER/epan" "$WORK/without"
cp "$PLUGIN" "$WORK/with/.local/lib/wireshark/plugins/$WSVER/epan/"
CAP=$WORK/bulk.pcap
if [ -n "$SNAPLEN" ]; then
    "$ROCEGEN" bulk -o "$CAP" --packets "$PACKETS" --qps "$QPS" --snaplen "$SNAPLEN"
else
    "$ROCEGEN" bulk -o "$CAP" --packets "$PACKETS" --qps "$QPS"
fi
chmod -R a+rX "$WORK"
mkdir "$WORK/out" && chmod 1777 "$WORK/out" # /usr/bin/time writes here as tshark's user

# tshark as a user that reads personal plugins: unprivileged when we are root
as_user() {
    h=$1
    shift
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$h" "$@"
    else
        env HOME="$h" "$@"
    fi
}

# run HOME ARGS... once; prints "cpu_seconds max_rss_kb"
run_once() {
    home=$1
    shift
    as_user "$home" /usr/bin/time -f "%U %S %M" -o "$WORK/out/time" tshark "$@" >/dev/null 2>&1 ||
        { echo "bench_plugin: tshark $* failed" >&2; exit 1; }
    awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$WORK/out/time"
}

# median of the first column of stdin; the max of the second
median() {
    sort -n | awk '{ c[NR] = $1; if ($2 > m) m = $2 }
        END { printf "%.3f %d\n", (NR % 2) ? c[(NR + 1) / 2] : (c[NR / 2] + c[NR / 2 + 1]) / 2, m }'
}

as_user "$WORK/with" tshark -G plugins 2>/dev/null | grep -q "$WORK/with" ||
    { echo "bench_plugin: tshark does not load $PLUGIN" >&2; exit 1; }

echo "capture: $PACKETS frames, $QPS connections, $(du -h "$CAP" | cut -f1) ($CAP)"
printf '%-36s %11s %11s %7s %9s %9s\n' workload "cpu s with" "cpu s w/o" ratio "MB with" "MB w/o"
# name | tshark arguments with the plugin | without it
for spec in "tshark -r F|-r $CAP|-r $CAP" \
            "tshark -r F -V|-r $CAP -V|-r $CAP -V" \
            "tshark -2 -r F -q -z expert|-2 -r $CAP -q -z expert|-2 -r $CAP -q -z expert" \
            "tshark -r F, ICRC check off|-r $CAP -o roce.check_icrc:FALSE|-r $CAP"; do
    name=${spec%%|*}
    rest=${spec#*|}
    with_args=${rest%%|*}
    without_args=${rest#*|}
    : >"$WORK/with.t"
    : >"$WORK/without.t"
    i=0
    while [ $i -lt "$RUNS" ]; do # alternate, so load changes hit both alike
        # shellcheck disable=SC2086 # the arguments are a word list
        run_once "$WORK/with" $with_args >>"$WORK/with.t"
        # shellcheck disable=SC2086
        run_once "$WORK/without" $without_args >>"$WORK/without.t"
        i=$((i + 1))
    done
    # shellcheck disable=SC2046
    set -- $(median <"$WORK/with.t") $(median <"$WORK/without.t")
    awk -v n="$name" -v a="$1" -v am="$2" -v b="$3" -v bm="$4" 'BEGIN {
        printf "%-36s %11.3f %11.3f %6.1f%% %9.1f %9.1f\n", n, a, b, (a / b - 1) * 100,
               am / 1024, bm / 1024 }'
done
