#!/bin/sh
# corpus.sh - the committed fuzz corpora: one archive per target,
# tests/fuzz/corpus/TARGET.tar.gz (a gzip-compressed tar of the inputs, side
# by side, each named by the SHA-1 of its bytes as libFuzzer names them). The
# tests and tools/fuzz.sh unpack it where they use it (a build folder), never
# in the source tree.
#
#   tests/fuzz/corpus.sh unpack TARGET DIR   DIR (emptied first) gets TARGET's inputs
#   tests/fuzz/corpus.sh pack TARGET DIR     TARGET's archive becomes DIR's files (the
#                                            same files give the same archive, byte for byte)
#   tests/fuzz/corpus.sh add TARGET FILE...  add inputs to TARGET's archive (named by
#                                            their SHA-1: an input already there stays one)
#   tests/fuzz/corpus.sh list TARGET         TARGET's inputs with their sizes, and the total
#
# TARGET: engine, capture or report (fuzz_TARGET.c). Needs GNU tar, gzip and
# sha1sum. Exit status: 0 done, 1 an error (reported), 2 usage.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

usage() {
    echo "usage: $0 unpack TARGET DIR | pack TARGET DIR | add TARGET FILE... | list TARGET" >&2
    exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
target=$2
shift 2
case "$target" in engine | capture | report) ;; *) usage ;; esac
archive="$here/corpus/$target.tar.gz"

# unpack ARCHIVE DIR: DIR emptied, then the archive's inputs; prints how many.
unpack() {
    [ -f "$1" ] || { echo "corpus: $1: no such archive" >&2; exit 1; }
    rm -rf "$2"
    mkdir -p "$2"
    tar -xzf "$1" -C "$2" --no-same-owner
    n=$(find "$2" -maxdepth 1 -type f | wc -l)
    [ "$n" -gt 0 ] || { echo "corpus: $1: no input in it" >&2; exit 1; }
    echo "corpus: $n $target inputs in $2"
}

# pack DIR ARCHIVE: the regular files of DIR (not those named .*), sorted by
# name, with fixed times, owners and modes, so that the archive depends on
# the inputs only.
pack() {
    list=$(mktemp)
    tmp="$2.tmp$$"
    trap 'rm -f "$list" "$tmp"' EXIT
    (cd "$1" && find . -maxdepth 1 -type f ! -name '.*' | sed 's|^\./||' | LC_ALL=C sort) >"$list"
    [ -s "$list" ] || { echo "corpus: $1: no input to pack" >&2; exit 1; }
    tar --format=gnu --mtime=@0 --owner=0 --group=0 --numeric-owner --mode=u=rw,go=r \
        -C "$1" -cf - -T "$list" | gzip -9n >"$tmp"
    mv "$tmp" "$2"
    echo "corpus: $2 holds $(wc -l <"$list") inputs," \
         "$(cd "$1" && xargs cat <"$list" | wc -c) bytes ($(wc -c <"$2") compressed)"
}

case "$cmd" in
unpack)
    [ $# -eq 1 ] || usage
    unpack "$archive" "$1"
    ;;
pack)
    [ $# -eq 1 ] || usage
    pack "$1" "$archive"
    ;;
add)
    [ $# -ge 1 ] || usage
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    unpack "$archive" "$work/in" >/dev/null
    for f in "$@"; do
        [ -f "$f" ] || { echo "corpus: $f: not a file" >&2; exit 1; }
        cp "$f" "$work/in/$(sha1sum <"$f" | cut -c1-40)"
    done
    (pack "$work/in" "$archive")
    ;;
list)
    [ $# -eq 0 ] || usage
    tar -tvzf "$archive" | awk '{print $3, $6; n++; s += $3} END {print n " inputs, " s " bytes"}'
    ;;
*)
    usage
    ;;
esac
