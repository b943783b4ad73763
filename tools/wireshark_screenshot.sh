#!/bin/sh
# wireshark_screenshot.sh - a screenshot of the real Wireshark GUI under a
# virtual display, for the documents (README.md, dissector/README.md).
#
#   tools/wireshark_screenshot.sh OUT.png [--stock] [--root ROOT] [--plugin SO]
#                                 [--colorfilters FILE] [WIRESHARK ARGS...]
#
# Starts Xvfb (1400x900), Wireshark with a configuration folder of its own
# (no personal preferences; --stock: no plugin folder either, as on a
# laptop where the plugin is not installed), waits for its main window,
# lets it settle, runs $XDOTOOL (xdotool commands, as a user's clicks and
# keys), takes the screen with ImageMagick's import and closes it.
#   --root ROOT          the Wireshark of a private root (tools/wireshark_root.sh
#                        fetch --gui SUITE), run through the root's loader
#   --plugin SO          this rocescope.so (built for that Wireshark) in the
#                        personal plugin folder of the private HOME, and no
#                        global plugins; as root, Wireshark then runs as the
#                        unprivileged user 65534 (as root it ignores personal
#                        plugins): the captures must be readable by that user
#   --colorfilters FILE  the profile's coloring rules (dissector/roce.colorfilters)
# Needs xvfb, wireshark-qt (or a root), xdotool and imagemagick (Debian packages).
# Example, the annotated capture in a stock Wireshark:
#   rocescope --annotate /tmp/a.pcapng -o /dev/null captures/loss_receiver.pcap
#   tools/wireshark_screenshot.sh shot.png --stock -r /tmp/a.pcapng \
#       -Y 'frame.comment contains "rocescope: retransmission"' -g 10
# (XDOTOOL="mousemove 80 495 click 1 key shift+Right" opens the packet
# comments of that frame in the detail pane). The Wireshark 4.6 screenshots of
# dissector/README.md are made with --root, --plugin and --colorfilters (the
# commands are there).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUT.png [--stock] [--root ROOT] [--plugin SO] [--colorfilters FILE] [WIRESHARK ARGS...]" >&2; exit 2; }
out=$1
shift
stock="" root="" plugin="" colors=""
while [ $# -gt 0 ]; do
    case $1 in
    --stock) stock=1 ;;
    --root) root=${2:?--root needs a folder}; shift ;;
    --plugin) plugin=${2:?--plugin needs a file}; shift ;;
    --colorfilters) colors=${2:?--colorfilters needs a file}; shift ;;
    *) break ;;
    esac
    shift
done
tools="Xvfb xdotool import"
[ -n "$root" ] || tools="$tools wireshark"
for tool in $tools; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is missing" >&2; exit 77; }
done
work=$(mktemp -d)
trap 'kill "$ws" "$xvfb" 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/home/.config/wireshark" "$work/plugins" "$work/home/run"
chmod 700 "$work/home/run"
if [ -n "$stock" ]; then
    export WIRESHARK_PLUGIN_DIR="$work/plugins"
fi
# the program: the system's wireshark, or the root's through its loader
# (the script copied where the unprivileged user can read it)
set -- wireshark "$@"
if [ -n "$root" ]; then
    [ -x "$root/usr/bin/wireshark" ] || { echo "$0: $root has no wireshark (tools/wireshark_root.sh fetch --gui SUITE)" >&2; exit 1; }
    cp "$(dirname "$0")/wireshark_root.sh" "$work/wireshark_root.sh"
    set -- sh "$work/wireshark_root.sh" run "$root" "$@"
fi
if [ -n "$plugin" ]; then
    # the personal folder of the Wireshark that runs (its major.minor)
    if [ -n "$root" ]; then
        v=$(sh "$work/wireshark_root.sh" run "$root" tshark -v 2>/dev/null | sed -n 's/^TShark (Wireshark) \([0-9]*\.[0-9]*\).*/\1/p')
    else
        v=$(wireshark -v 2>/dev/null | sed -n 's/^Wireshark \([0-9]*\.[0-9]*\).*/\1/p')
    fi
    [ -n "$v" ] || { echo "$0: cannot tell the Wireshark version" >&2; exit 1; }
    mkdir -p "$work/home/.local/lib/wireshark/plugins/$v/epan"
    cp "$plugin" "$work/home/.local/lib/wireshark/plugins/$v/epan/"
    # no global plugins: an installed copy of the plugin never shadows this one
    export WIRESHARK_PLUGIN_DIR="$work/plugins"
fi
[ -z "$colors" ] || cp "$colors" "$work/home/.config/wireshark/colorfilters"
# the columns and panes as Wireshark installs them, the recent-files list
# empty; the RoCE tab shown in Statistics > Conversations and Endpoints
printf 'gui.ask_unsaved: FALSE\ngui.update.enabled: FALSE\n' > "$work/home/.config/wireshark/preferences"
printf 'gui.conversation_tabs: RoCE\ngui.endpoint_tabs: RoCE\n' > "$work/home/.config/wireshark/recent"
if [ -n "$plugin" ] && [ "$(id -u)" -eq 0 ]; then
    chmod 755 "$work"
    chown -R 65534:65534 "$work/home"
    # setpriv keeps the environment (HOME, DISPLAY, WIRESHARK_PLUGIN_DIR)
    set -- setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
fi
display=:$((90 + $$ % 9))
Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb=$!
sleep 1
HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_RUNTIME_DIR="$work/home/run" \
    DISPLAY="$display" "$@" >"$work/ws.log" 2>&1 &
ws=$!
# the main window: its title is the capture's name (or "The Wireshark
# Network Analyzer"), a dialog's starts with "Wireshark ·"
main_window() {
    for w in $(DISPLAY="$display" xdotool search --onlyvisible --class wireshark 2>/dev/null); do
        case $(DISPLAY="$display" xdotool getwindowname "$w") in
        "Wireshark ·"*) ;;
        *) echo "$w" && return ;;
        esac
    done
}
i=0
until win=$(main_window) && [ -n "$win" ]; do
    i=$((i + 1))
    [ $i -lt 60 ] || { echo "$0: no Wireshark window after 60 s" >&2; cat "$work/ws.log" >&2; exit 1; }
    sleep 1
done
DISPLAY="$display" xdotool windowsize "$win" 1400 900 windowmove "$win" 0 0
sleep "${SETTLE_S:-6}"
# then what a user would do, as xdotool commands (e.g. open a tree item)
if [ -n "${XDOTOOL:-}" ]; then
    # shellcheck disable=SC2086 # one word per xdotool argument
    DISPLAY="$display" xdotool $XDOTOOL
    sleep 2
fi
DISPLAY="$display" import -window root "$out"
echo "$out"
