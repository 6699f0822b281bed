#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# headless-demo.sh APP SCREENSHOT.png [kiosk options...]
# `make demo-qt` without a DISPLAY runs this under xvfb-run: a short scripted
# visit (Next, a double tap on a menu item while the pages slide, the
# header's Back tapped during that push, a swipe-back released at 30 %,
# Checkout, its leave dialog answered no, then a swipe-back on Checkout,
# which asks instead of starting) and the kiosk quits with that question
# open, so its exit screenshot shows the leave dialog over Checkout.
set -eu
app=$1 shot=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export QSG_RENDER_LOOP=basic QT_QUICK_BACKEND=software
"$app" --anim-ms 400 --log "$dir/log.jsonl" --screenshot "$shot" "$@" &
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
xdotool search --name '^NavGuard Qt kiosk$' windowfocus || true
step() { echo "  $1"; }
step "Next (Home -> Menu)";                        xdotool mousemove 665 532 click 1; sleep 0.8
step "double tap on Espresso (Menu -> Item)";      xdotool mousemove 200 251 click --repeat 2 --delay 90 1; sleep 0.1
step "the header's Back during the push";          xdotool mousemove 56 30 click 1; sleep 0.8
step "swipe back from the left edge, let go at 30 %"
xdotool mousemove 4 400 mousedown 1
for x in 30 60 90 120 150 180 210 240; do xdotool mousemove $x 400; sleep 0.03; done
sleep 0.3; xdotool mouseup 1; sleep 0.8
step "Next: Checkout";                             xdotool mousemove 665 532 click 1; sleep 0.8
step "Back on Checkout: the leave dialog, No";     xdotool mousemove 56 30 click 1; sleep 0.6
                                                   xdotool mousemove 305 355 click 1; sleep 0.4
step "swipe back on Checkout: it asks first"
xdotool mousemove 4 400 mousedown 1
for x in 20 60 100 140 180; do xdotool mousemove $x 400; sleep 0.03; done
xdotool mouseup 1; sleep 0.6
step "quit (the exit screenshot shows the leave dialog)"
kill -TERM $pid
wait $pid
grep -E '"type":"(outcome|stack|question|question_end|swipe)"' "$dir/log.jsonl" | sed 's/^/    /'
