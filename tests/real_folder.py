"""The folder of real captures a test needs (CMake: ROCESCOPE_REAL_CAPTURES).

The real captures are public captures kept outside the repository
(ROCESCOPE_REAL_CAPTURES, else the nearest shared/captures/real above the
source tree: tests/CMakeLists.txt). A folder that was named or found must hold
them: otherwise the test fails. When none was named and none found (MISSING),
or the build opted out (OFF), the test exits 77, which ctest shows as
"Skipped", and tools/run_tests.sh ends with a banner saying so.
"""
import os
import sys

SKIP = 77


def real_folder(path):
    """path, when it holds the real captures (their PROVENANCE.md); else exits:
    77 (skipped) when the build opted out, 1 when they are missing."""
    if path == "MISSING":
        print("SKIPPED: no real captures found (no shared/captures/real above the source tree, "
              "no ROCESCOPE_REAL_CAPTURES): this test did not run")
        sys.exit(SKIP)
    if path == "OFF":
        print("SKIPPED: the build opted out of the real captures (-DROCESCOPE_REAL_CAPTURES=OFF)")
        sys.exit(SKIP)
    if not os.path.isfile(os.path.join(path, "PROVENANCE.md")):
        print(f"FAIL: no real captures in {path} (no PROVENANCE.md): put them there, point "
              "-DROCESCOPE_REAL_CAPTURES=DIR at them, or opt out with "
              "-DROCESCOPE_REAL_CAPTURES=OFF (the tests that need them are then skipped)")
        sys.exit(1)
    return path


def captures_in(folder, extensions=(".pcap", ".pcapng", ".cap")):
    """The capture files of a folder, sorted."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(extensions))
