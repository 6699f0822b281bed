#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# headless-demo.sh APP SCREENSHOT.bmp [kiosk options...]
# `make demo-window` without a DISPLAY runs this under xvfb-run: a short
# scripted visit with the F1 overlay open (Next, Network, a double tap during
# the push, then a swipe-back held half way) and the kiosk quits mid-swipe,
# so its exit screenshot shows NavGuard at work: the driven swipe in flight,
# its hold, and what was dropped or refused on the way.
set -eu
app=$1 bmp=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$app" --overlay --network-delay-ms 1200 --log "$dir/log.jsonl" --screenshot "$bmp" "$@" &
pid=$!
i=0
until grep -q '"type":"ready"' "$dir/log.jsonl" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 300 ] || ! kill -0 $pid 2>/dev/null; then
        echo "headless-demo: the kiosk did not start" >&2
        kill $pid 2>/dev/null || true
        exit 1
    fi
    sleep 0.05
done
step() { echo "  $1"; }
step "Next (Home -> Menu)";              xdotool mousemove 665 532 click 1; sleep 0.7
step "Network (a reply in 1.2 s)";       xdotool mousemove 150 532 click 1; sleep 0.3
step "double tap on Next (Menu -> Item)"; xdotool mousemove 665 532 click 1; sleep 0.08; xdotool click 1; sleep 2.0
step "swipe back from the left edge, held half way"
xdotool mousemove 4 400 mousedown 1
for x in 20 60 100 140 180 220 260 300 340; do xdotool mousemove $x 400; sleep 0.03; done
sleep 0.5
step "quit (the exit screenshot shows the swipe in flight)"
kill -TERM $pid
wait $pid
xdotool mouseup 1 || true
grep -E '"type":"(outcome|stack)"' "$dir/log.jsonl" | sed 's/^/    /'
