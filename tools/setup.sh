#!/bin/sh
# Set-up for a Debian 12 machine: install the packages that are missing (as
# root), then configure and build rocescope into build/. zlib, libzstd and
# liblz4 read compressed captures (zstd and lz4, their tools, serve the tests). clang (with its
# libFuzzer runtime), valgrind, cppcheck, clang-tidy and GNU time serve the robustness
# tests and tools/fuzz.sh; tcpreplay and iproute2 the live monitor tests;
# libmicrohttpd the monitor's --listen, libseccomp its system call filter (gdb
# calls into the confined monitor in its test); curl, prometheus (promtool) and
# prometheus-node-exporter the --listen, rules and end-to-end tests; lintian
# and bash-completion the package test (systemd for systemd-analyze verify of
# the unit, absent from minimal images); python3-yaml the rules test; chromium
# (headless) and a font the HTML report's browser tests; jq an example of the
# manual page (the documentation examples run as a test); xvfb, wireshark-qt,
# xdotool and xclip the plugin's GUI test (plugin_gui), with imagemagick for
# tools/wireshark_screenshot.sh. Services these
# packages bring are not started (a policy-rc.d says so while they are
# installed).
#   tools/setup.sh            install + build
# Environment: BUILD_DIR (default build), CMAKE_ARGS (extra configure options).
set -eu
cd "$(dirname "$0")/.."

PKGS="build-essential cmake pkg-config python3 debian-archive-keyring libpcap-dev libjson-c-dev libcunit1-dev \
zlib1g-dev libzstd-dev liblz4-dev zstd lz4 \
wireshark-dev tshark jq clang libclang-rt-14-dev valgrind cppcheck clang-tidy time tcpreplay iproute2 \
libmicrohttpd-dev libseccomp-dev gdb curl prometheus prometheus-node-exporter lintian bash-completion python3-yaml \
chromium fonts-dejavu-core systemd xvfb wireshark-qt xdotool xclip imagemagick"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
# an installation cut short earlier (a reboot mid-install) blocks apt-get,
# here and in the package test: finish it first, as apt-get itself advises
if [ "$(id -u)" -eq 0 ] && [ -n "$(dpkg --audit 2>/dev/null)" ]; then
    echo "setup: finishing an interrupted installation (dpkg --configure -a)"
    DEBIAN_FRONTEND=noninteractive dpkg --configure -a >/dev/null
fi
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: missing Debian packages:$missing -- run as root, or install them" >&2
        exit 1
    fi
    echo "setup: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    policy=/usr/sbin/policy-rc.d made_policy=""
    if [ ! -e "$policy" ]; then
        # prometheus and node_exporter are test tools here, not services
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        made_policy=1
        trap 'rm -f "$policy"' EXIT
    fi
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
    if [ -n "$made_policy" ]; then
        rm -f "$policy"
        trap - EXIT
    fi
fi

BUILD_DIR=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
