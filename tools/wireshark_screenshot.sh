#!/bin/sh
# wireshark_screenshot.sh - a screenshot of the real Wireshark GUI under a
# virtual display, for the documents (README.md, dissector/README.md).
#
#   tools/wireshark_screenshot.sh OUT.png [--stock] [WIRESHARK ARGS...]
#
# Starts Xvfb (1400x900), Wireshark with a configuration folder of its own
# (no personal preferences; --stock: no plugin folder either, as on a
# laptop where the plugin is not installed), waits for its main window,
# lets it settle, runs $XDOTOOL (xdotool commands, as a user's clicks and
# keys), takes the screen with ImageMagick's import and closes it.
# Needs xvfb, wireshark-qt, xdotool and imagemagick (Debian packages).
# Example, the annotated capture in a stock Wireshark:
#   rocescope --annotate /tmp/a.pcapng -o /dev/null captures/loss_receiver.pcap
#   tools/wireshark_screenshot.sh shot.png --stock -r /tmp/a.pcapng \
#       -Y 'frame.comment contains "rocescope: retransmission"' -g 10
# (XDOTOOL="mousemove 80 495 click 1 key shift+Right" opens the packet
# comments of that frame in the detail pane)
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUT.png [--stock] [WIRESHARK ARGS...]" >&2; exit 2; }
out=$1
shift
for tool in Xvfb wireshark xdotool import; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is missing" >&2; exit 77; }
done
work=$(mktemp -d)
trap 'kill "$ws" "$xvfb" 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/home/.config/wireshark" "$work/plugins"
if [ "${1:-}" = --stock ]; then
    shift
    export WIRESHARK_PLUGIN_DIR="$work/plugins"
fi
# the columns and panes as Wireshark installs them, the recent-files list empty
printf 'gui.ask_unsaved: FALSE\ngui.update.enabled: FALSE\n' > "$work/home/.config/wireshark/preferences"
display=:$((90 + $$ % 9))
Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb=$!
sleep 1
HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" DISPLAY="$display" \
    wireshark "$@" >"$work/ws.log" 2>&1 &
ws=$!
i=0
until DISPLAY="$display" xdotool search --onlyvisible --class wireshark >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 60 ] || { echo "$0: no Wireshark window after 60 s" >&2; cat "$work/ws.log" >&2; exit 1; }
    sleep 1
done
win=$(DISPLAY="$display" xdotool search --onlyvisible --class wireshark | tail -1)
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
