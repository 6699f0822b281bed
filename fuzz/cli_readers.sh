#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cli_readers.sh NAVGUARD OUT_DIR DIR... — the navguard tool's readers on
# every file of the fuzz corpora (ctest navguard_cli_readers): `navguard
# replay`, `timeline`, `stats` and, for crash dumps, `convert`. Each must end
# with its own exit status (0, 1 or 2), never killed by a signal (a Swift
# trap is SIGILL or SIGTRAP). The tool's trace reading is the library's
# (ng_replay, Trace.read), which fuzz_read fuzzes; its timeline and stats
# builders are Swift of the tool itself, reached only here.
#
# A directory's OPEN file names the inputs of findings not fixed yet, one per
# line: they are skipped (and listed) until their fix removes the line.
set -u
cli=$1; out=$2; shift 2
mkdir -p "$out"
fails=0 runs=0
for dir in "$@"; do
  for f in "$dir"/*; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    case "$name" in *.md|OPEN) continue;; esac
    if [ -f "$dir/OPEN" ] && grep -qxF "$name" "$dir/OPEN"; then
      echo "skipped (open finding): $f"
      continue
    fi
    set -- replay "$f"
    for cmd in replay timeline stats convert; do
      case $cmd in
        replay)   set -- replay "$f";;
        timeline) set -- timeline "$f" -o "$out/timeline";;
        stats)    set -- stats "$f" --json;;
        convert)  case "$name" in *.ngbox) set -- convert "$f" -o "$out/converted.jsonl";; *) continue;; esac;;
      esac
      runs=$((runs + 1))
      "$cli" "$@" >"$out/stdout" 2>"$out/stderr"
      st=$?
      if [ $st -gt 2 ]; then
        echo "FAIL: navguard $* exited $st ($( [ $st -gt 128 ] && echo "signal $((st - 128))" || echo "not 0, 1 or 2"))"
        tail -3 "$out/stderr"
        fails=$((fails + 1))
      fi
    done
  done
done
echo "navguard_cli_readers: $runs runs of the tool, $fails failed"
[ $fails -eq 0 ]
