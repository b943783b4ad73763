#!/bin/sh
# Line and branch coverage of the analysis engine (analyzer/engine) over the
# test suite, measured with gcov (GCC's --coverage, counters updated atomically:
# -j and the live monitor run threads; no other package needed).
#   tools/coverage.sh              build build-cov/, run ctest there, print the figures
#   tools/coverage.sh --report     print the figures of the last run again
# Environment: BUILD_DIR (default build-cov), CMAKE_ARGS (extra configure options),
# CTEST_ARGS (extra ctest arguments,
# e.g. "-R unit_" for the unit suites only). Valgrind and the static analysis
# are left out (they run the same code as the other tests, only slower), the
# package and monitoring tests (they test the packaging and the monitoring
# stack, and run the monitor as the live tests do), and the plugin suites of
# other Wireshark releases (they build their own plugin).
# The per-file figures and the lines never run are written to
# BUILD_DIR/coverage/ (engine.txt, and NAME.c.gcov for each engine file).
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-cov}

if [ "${1:-}" != "--report" ]; then
    # shellcheck disable=SC2086
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="--coverage -fprofile-update=atomic" \
          -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -DROCESCOPE_WIRESHARK_SUITES= \
          ${CMAKE_ARGS:-} >/dev/null
    cmake --build "$BUILD_DIR" -j"$(nproc)" >/dev/null
    find "$BUILD_DIR" -name '*.gcda' -delete
    # tshark runs as uid 65534 in the plugin tests: let it add its counts too
    find "$BUILD_DIR" -type d -exec chmod a+rwx {} +
    # shellcheck disable=SC2086
    (umask 0 && ctest --test-dir "$BUILD_DIR" -j"$(nproc)" -E 'valgrind_|static_|package|monitoring_' \
         ${CTEST_ARGS:-}) || echo "coverage: some tests failed (figures below all the same)" >&2
fi

# the engine and the vantage-point library on top of it (analyzer/engine/vantage)
objdirs="$PWD/$BUILD_DIR/analyzer/engine/CMakeFiles/roce_engine.dir:$PWD/$BUILD_DIR/analyzer/engine/vantage/CMakeFiles/roce_vantage.dir"
out="$PWD/$BUILD_DIR/coverage"
mkdir -p "$out"
python3 - "$objdirs" "$out" "$PWD/analyzer/engine" <<'EOF'
import gzip, json, os, subprocess, sys
objdirs, out, src = sys.argv[1:4]
rows, tl, tlh, tb, tbh = [], 0, 0, 0, 0
for objdir, gcda in sorted((d, f) for d in objdirs.split(":") for f in os.listdir(d)
                           if f.endswith(".gcda")):
    p = subprocess.run(["gcov", "--json-format", "--stdout", "--branch-probabilities",
                        os.path.join(objdir, gcda)], capture_output=True, cwd=out, check=True)
    subprocess.run(["gcov", "--branch-probabilities", "--branch-counts", "--object-directory", objdir,
                    os.path.join(objdir, gcda)], capture_output=True, cwd=out, check=True)
    for line in p.stdout.decode().splitlines():
        doc = json.loads(line)
        for f in doc["files"]:
            path = os.path.normpath(os.path.join(doc.get("current_working_directory", ""), f["file"]))
            if not path.startswith(src + os.sep) or not path.endswith(".c"):
                continue
            lines = f["lines"]
            l = len(lines)
            lh = sum(1 for x in lines if x["count"] > 0)
            b = sum(len(x["branches"]) for x in lines)
            bh = sum(1 for x in lines for br in x["branches"] if br["count"] > 0)
            rows.append((os.path.basename(path), l, lh, b, bh))
            tl, tlh, tb, tbh = tl + l, tlh + lh, tb + b, tbh + bh
pct = lambda h, n: 100.0 * h / n if n else 100.0
with open(os.path.join(out, "engine.txt"), "w") as o:
    for name, l, lh, b, bh in rows:
        o.write(f"{name:28} lines {lh:5}/{l:<5} {pct(lh, l):5.1f} %   branches {bh:5}/{b:<5} {pct(bh, b):5.1f} %\n")
    o.write(f"{'engine':28} lines {tlh:5}/{tl:<5} {pct(tlh, tl):5.1f} %   branches {tbh:5}/{tb:<5} {pct(tbh, tb):5.1f} %\n")
print(open(os.path.join(out, "engine.txt")).read(), end="")
EOF
