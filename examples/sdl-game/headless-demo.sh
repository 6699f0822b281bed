#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# headless-demo.sh APP SCREENSHOT.bmp [game options...]
# `make demo-game` without a DISPLAY runs this under xvfb-run: a short
# scripted game with two virtual controllers (the game's test-only --pads
# and --control): controller 1 starts, opens New game and pauses; controller
# 2 then presses in controller 1's pause menu (dropped: the menu is
# controller 1's), and the game quits with the pause menu on screen, which
# the exit screenshot shows.
set -eu
app=$1 bmp=$2
shift 2
dir=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null || true; rm -rf "$dir"' EXIT
mkfifo "$dir/control"
"$app" --pads 2 --control "$dir/control" --log "$dir/log.jsonl" --screenshot "$bmp" "$@" &
pid=$!
i=0
until grep -q '"type":"ready"' "$dir/log.jsonl" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 300 ] || ! kill -0 $pid 2>/dev/null; then
        echo "headless-demo: the game did not start" >&2
        kill $pid 2>/dev/null || true
        exit 1
    fi
    sleep 0.05
done
exec 3>"$dir/control"   # the game holds it open (read-write): no wait
press() { echo "pad $1 down $2" >&3; sleep 0.06; echo "pad $1 up $2" >&3; sleep "${3:-0.6}"; }
step() { echo "  $1"; }
step "controller 1: A on the title";              press 1 a
step "controller 1: down, A (New game)";          press 1 dpdown 0.2; press 1 a
step "controller 1: Start (pause)";               press 1 start
step "controller 2: down, A in 1's pause menu";   press 2 dpdown 0.2; press 2 a 0.3
step "quit (the exit screenshot shows the pause menu)"
echo quit >&3
wait $pid
grep -E '"type":"(stack|activate)"|device-owner' "$dir/log.jsonl" | sed 's/^/    /'
