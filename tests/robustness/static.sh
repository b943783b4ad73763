#!/bin/sh
# static.sh - static analysis of the engine (analyzer/engine/*.c and the vantage-point
# library on top of it, analyzer/engine/vantage/*.c), as run by ctest.
#
#   tests/robustness/static.sh cppcheck SOURCE_DIR [CPPCHECK]
#   tests/robustness/static.sh clang-tidy SOURCE_DIR [CLANG_TIDY]
#
# cppcheck: warning, style, performance and portability checks, C11; the
# false positives are suppressed in cppcheck.supp, each with its reason.
# clang-tidy: the Clang static analyzer (path-sensitive: null dereferences,
# use after free, leaks, uninitialised reads, dead stores), bugprone-*, cert-*,
# misc-*, portability-*, minus the checks listed with their reasons below; any
# warning fails, except those matching a line of clang-tidy.supp (FILE: warning:
# TEXT [CHECK], each with its reason). Exit status: 0 clean, 1 findings, 2 usage, 77 tool missing.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 cppcheck|clang-tidy SOURCE_DIR [TOOL]" >&2; exit 2; }
what=$1
src=$2
cd "$src"
here=tests/robustness

# clang-tidy checks left out, and why:
#  easily-swappable-parameters        style advice, every (p, caplen, wirelen) decoder trips it
#  implicit-widening-of-multiplication small constant products (2 * ROCE_ADDR_LEN) used as offsets
#  DeprecatedOrUnsafeBufferHandling   wants C11 Annex K memcpy_s, which glibc does not have
TIDY_CHECKS="-*,clang-analyzer-*,bugprone-*,cert-*,misc-*,portability-*,\
-bugprone-easily-swappable-parameters,-bugprone-implicit-widening-of-multiplication-result,\
-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling"

case "$what" in
cppcheck)
    tool=${3:-cppcheck}
    command -v "$tool" >/dev/null || { echo "static: $tool not installed: skipped"; exit 77; }
    "$tool" --enable=warning,style,performance,portability --std=c11 --inline-suppr \
        --suppressions-list="$here/cppcheck.supp" --error-exitcode=1 --quiet \
        --template='{file}:{line}: {severity}: {id}: {message}' -I analyzer/engine \
        -I analyzer/engine/vantage analyzer/engine/*.c analyzer/engine/vantage/*.c
    echo "static: cppcheck clean on $(ls analyzer/engine/*.c analyzer/engine/vantage/*.c | wc -l) engine files"
    ;;
clang-tidy)
    tool=${3:-clang-tidy}
    command -v "$tool" >/dev/null || { echo "static: $tool not installed: skipped"; exit 77; }
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    "$tool" --quiet --checks="$TIDY_CHECKS" analyzer/engine/*.c analyzer/engine/vantage/*.c -- \
        -std=c11 -I analyzer/engine -I analyzer/engine/vantage \
        >"$out" 2>&1 || true
    if grep -q 'error:' "$out"; then
        grep -A3 'error:' "$out"
        echo "static: clang-tidy could not analyse the engine"
        exit 1
    fi
    # the suppression patterns: non-comment lines of clang-tidy.supp
    # warnings as FILE: warning: TEXT [CHECK] (line numbers move), minus the suppressed
    findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' "$out" |
               sed -E 's/^[^ ]*\/([^/ ]+):[0-9]+:[0-9]+: /\1: /' |
               grep -v -F -f "$(grep -v -e '^#' -e '^$' "$here/clang-tidy.supp" >"$out.supp" &&
                               echo "$out.supp")" || true)
    rm -f "$out.supp"
    if [ -n "$findings" ]; then
        echo "$findings"
        echo "static: clang-tidy: $(echo "$findings" | wc -l) findings"
        exit 1
    fi
    echo "static: clang-tidy clean on $(ls analyzer/engine/*.c analyzer/engine/vantage/*.c | wc -l) engine files" \
         "($(grep -c -E 'warning:' "$out") warnings, all in clang-tidy.supp)"
    ;;
*)
    echo "usage: $0 cppcheck|clang-tidy SOURCE_DIR [TOOL]" >&2
    exit 2
    ;;
esac
