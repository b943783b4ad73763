#!/bin/sh
# Another Debian release's Wireshark in a private root, without touching the
# system: tshark, sharkd and the development files (wireshark-dev) with their
# whole dependency closure (--gui: the Qt GUI, wireshark, too), unpacked with
# dpkg-deb -x. apt runs with its own
# state, cache and sources list (naming that suite, on the mirror the system's
# own sources use); nothing is installed, the system's dpkg database is not
# read or written.
#
#   tools/wireshark_root.sh fetch [--gui] SUITE
#                                           download (cached) and unpack; prints the root
#   tools/wireshark_root.sh root [--gui] SUITE
#                                           prints the root when it is complete, else fails
#   tools/wireshark_root.sh run ROOT PROGRAM [ARG...]
#                                           run ROOT/usr/bin/PROGRAM (tshark, sharkd,
#                                           wireshark, ...) through the root's own dynamic
#                                           loader and libraries
#
# --gui: a second root of the suite (SUITE-gui in the cache) that also holds
# the Qt GUI, wireshark, and its libraries (Qt 6, Mesa, ...: about 240 MB of
# packages, 950 MB unpacked); the plain root, the one the plugin tests use,
# stays without them. Its wireshark runs under any X display (Xvfb too):
# tests/plugin/plugin_gui.py --wireshark-root drives it.
#
# SUITE is a Debian suite: trixie (Debian 13: Wireshark 4.4), sid (unstable: 4.6), ...
# Build the plugin against it with cmake -DROCESCOPE_WIRESHARK_ROOT=ROOT
# (dissector/README.md).
#
# Cache: $ROCESCOPE_CACHE_DIR, else /var/cache/rocescope for root (readable by
# the unprivileged user the plugin tests run tshark as), else
# ${XDG_CACHE_HOME:-~/.cache}/rocescope. The downloaded packages stay there:
# a second fetch of the same suite downloads only what changed. Mirror:
# $ROCESCOPE_DEBIAN_MIRROR, else the first Debian mirror of the system's apt
# sources.
set -eu

ARCH=$(dpkg --print-architecture)
PACKAGES="tshark wireshark-dev"
GUI_PACKAGES="$PACKAGES wireshark"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() {
    echo "wireshark_root: $*" >&2
    exit 1
}

cache_dir() {
    if [ -n "${ROCESCOPE_CACHE_DIR:-}" ]; then
        echo "$ROCESCOPE_CACHE_DIR"
    elif [ "$(id -u)" -eq 0 ]; then
        echo /var/cache/rocescope
    else
        echo "${XDG_CACHE_HOME:-$HOME/.cache}/rocescope"
    fi
}

# The Debian mirror of the system's apt sources (deb822 or one-line form).
mirror() {
    if [ -n "${ROCESCOPE_DEBIAN_MIRROR:-}" ]; then
        echo "$ROCESCOPE_DEBIAN_MIRROR"
        return
    fi
    m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')
    if [ -z "$m" ]; then
        m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
            awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):.*\/debian\/?$/) { print $i; exit } }')
    fi
    [ -n "$m" ] || die "no Debian mirror in the apt sources: set ROCESCOPE_DEBIAN_MIRROR"
    echo "${m%/}"
}

# apt-get with the private state of suite directory $1 (everything under it).
papt() {
    d=$1
    shift
    apt-get -q -o Dir::State="$d/apt/state" -o Dir::State::status="$d/apt/state/status" \
        -o Dir::Cache="$d/apt/cache" -o Dir::Etc::SourceList="$d/apt/sources.list" \
        -o Dir::Etc::SourceParts="$d/apt/sources.list.d" -o Dir::Etc::Preferences="$d/apt/preferences" \
        -o Dir::Etc::PreferencesParts="$d/apt/preferences.d" -o Dir::Etc::Trusted="$d/apt/trusted.gpg" \
        -o Dir::Etc::TrustedParts="$d/apt/trusted.gpg.d" -o Debug::NoLocking=true \
        -o APT::Architecture="$ARCH" -o APT::Architectures="$ARCH" \
        -o APT::Install-Recommends=false -o APT::Get::AllowUnauthenticated=false \
        -o APT::Sandbox::User="$(id -un)" "$@"
}

# fetch SUITE DIR PACKAGES: the root of those packages, in the cache's DIR
fetch() {
    suite=$1
    dir=$2
    pkgs=$3
    case $suite in
    *[!a-z0-9-]* | "") die "not a suite name: $suite" ;;
    esac
    command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
        die "apt-get and dpkg-deb are needed (a Debian system)"
    [ -r "$KEYRING" ] || die "$KEYRING missing (package debian-archive-keyring)"
    base=$(cache_dir)/wireshark/$dir
    mkdir -p "$base/apt/state/lists/partial" "$base/apt/cache/archives/partial" \
        "$base/apt/sources.list.d" "$base/apt/preferences.d" "$base/apt/trusted.gpg.d"
    : >"$base/apt/state/status"
    echo "deb [signed-by=$KEYRING] $(mirror) $suite main" >"$base/apt/sources.list"
    echo "wireshark_root: apt-get update ($suite)" >&2
    if ! papt "$base" update >&2; then
        # offline: a complete root from an earlier run still does
        if [ -f "$base/root/.rocescope-complete" ]; then
            echo "wireshark_root: WARNING: apt-get update of $suite failed; using the cached root" >&2
            echo "$base/root"
            return
        fi
        die "apt-get update of $suite failed and nothing is cached (is the Debian mirror reachable?)"
    fi
    # The dependency closure: with an empty status nothing counts as
    # installed, so apt downloads every package tshark and wireshark-dev need.
    echo "wireshark_root: downloading $pkgs with their dependencies ($suite)" >&2
    # shellcheck disable=SC2086
    papt "$base" install --download-only -y $pkgs >&2 ||
        die "downloading the $suite packages failed"
    # The packages of this closure (the archive folder may keep older
    # versions too: take the ones apt chose), from apt's simulation.
    list=$base/packages.txt
    # shellcheck disable=SC2086
    papt "$base" install -s -y $pkgs |
        awk '$1 == "Inst" { v = $3; gsub(/[()]/, "", v); print $2 " " v }' >"$list"
    [ -s "$list" ] || die "no package list for $suite"
    stamp=$(md5sum <"$list" | cut -c1-32)
    root=$base/root
    if [ -f "$root/.rocescope-complete" ] && [ "$(cat "$root/.rocescope-complete")" = "$stamp" ]; then
        echo "$root"
        return
    fi
    echo "wireshark_root: unpacking $(wc -l <"$list") packages into $root" >&2
    rm -rf "$root.new"
    mkdir -p "$root.new"
    while read -r pkg ver; do
        pkg=${pkg%:*}
        # file names escape the epoch's colon as %3a
        v=$(echo "$ver" | sed 's/:/%3a/')
        deb=$(ls "$base/apt/cache/archives/${pkg}_${v}_"*.deb 2>/dev/null | head -1)
        [ -n "$deb" ] || die "$pkg $ver was not downloaded"
        dpkg-deb -x "$deb" "$root.new"
    done <"$list"
    # readable by the unprivileged user the tests run tshark as
    chmod -R a+rX "$root.new"
    echo "$stamp" >"$root.new/.rocescope-complete"
    rm -rf "$root"
    mv "$root.new" "$root"
    # old downloads of packages no longer in the suite
    papt "$base" autoclean >/dev/null 2>&1 || true
    echo "$root"
}

# The dynamic loader of a root (merged /usr or not).
loader() {
    for l in "$1/usr/lib64/ld-linux-x86-64.so.2" "$1/lib64/ld-linux-x86-64.so.2" \
        "$1"/usr/lib/*-linux-gnu*/ld-linux*.so.* "$1"/lib/*-linux-gnu*/ld-linux*.so.*; do
        [ -e "$l" ] && {
            echo "$l"
            return
        }
    done
    die "no dynamic loader in $1"
}

run() {
    [ $# -ge 2 ] || die "usage: run ROOT PROGRAM [ARG...]"
    root=$1
    prog=$2
    shift 2
    [ -f "$root/.rocescope-complete" ] || die "$root is not a complete root (fetch it first)"
    case $prog in
    /*) ;;
    *) prog=$root/usr/bin/$prog ;;
    esac
    [ -x "$prog" ] || die "no $prog"
    # the library folders, and the subfolders that libraries of the GUI's
    # closure name in their RUNPATH (/usr/lib/<triplet>/pulseaudio: libpulse;
    # libproxy), which the loader would look for in the system
    libs=""
    for d in "$root"/usr/lib/*-linux-gnu* "$root"/usr/lib/*-linux-gnu*/pulseaudio \
        "$root"/usr/lib/*-linux-gnu*/libproxy "$root"/lib/*-linux-gnu* "$root/usr/lib" "$root/lib"; do
        [ -d "$d" ] && libs="$libs${libs:+:}$d"
    done
    # Qt looks for its plugins (the xcb platform) in the system's folder
    for d in "$root"/usr/lib/*-linux-gnu*/qt6/plugins; do
        [ -d "$d" ] && QT_PLUGIN_PATH=$d && export QT_PLUGIN_PATH
    done
    # Run through the loader, Wireshark takes the loader's folder for its
    # own and would look for its data files and global plugins beside it:
    # point it at the root's (both variables are ignored when run as root,
    # as the personal plugin folder is).
    WIRESHARK_DATA_DIR=${WIRESHARK_DATA_DIR:-$root/usr/share/wireshark}
    for d in "$root"/usr/lib/*-linux-gnu*/wireshark/plugins; do
        [ -d "$d" ] && WIRESHARK_PLUGIN_DIR=${WIRESHARK_PLUGIN_DIR:-$d}
    done
    export WIRESHARK_DATA_DIR WIRESHARK_PLUGIN_DIR
    exec "$(loader "$root")" --library-path "$libs" --argv0 "$(basename "$prog")" "$prog" "$@"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
fetch | root)
    gui=""
    if [ "${1:-}" = --gui ]; then
        gui=--gui
        shift
    fi
    [ $# -eq 1 ] || die "usage: $cmd [--gui] SUITE"
    dir=$1${gui:+-gui}
    if [ "$cmd" = fetch ]; then
        if [ -n "$gui" ]; then fetch "$1" "$dir" "$GUI_PACKAGES"; else fetch "$1" "$dir" "$PACKAGES"; fi
    else
        r=$(cache_dir)/wireshark/$dir/root
        [ -f "$r/.rocescope-complete" ] ||
            die "no complete root for $1${gui:+ (GUI)}: run tools/wireshark_root.sh fetch${gui:+ $gui} $1"
        echo "$r"
    fi
    ;;
run) run "$@" ;;
*)
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
