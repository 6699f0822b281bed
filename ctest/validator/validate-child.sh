#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# validate_child_<plugin>: `navguard plugins validate` with its check groups
# run by navguard-validator-child (--child-program, behind an optional
# wrapper: the emulator of a cross build) must give the results of the
# tool's own children on the reference plugin: the same checks, in the same
# order, with the same status, and the same verdict. In the host build the
# reference is the plugin itself; in a cross build it is the same guard
# built for this machine. The plugin must also conform (exit status 0).
#
# Usage: validate-child.sh CLI CHILD PLUGIN REFERENCE [--wrapper WORD]... [-- VALIDATE-OPTIONS...]
set -uo pipefail

cli=${1:?the navguard tool} child=${2:?navguard-validator-child} plugin=${3:?the plugin} reference=${4:?the reference plugin}
shift 4
wrapper=() options=()
while [ $# -gt 0 ]; do
    case $1 in
        --wrapper) wrapper+=(--child-wrapper "$2"); shift 2;;
        --) shift; options=("$@"); break;;
        *) echo "validate-child.sh: unknown argument $1" >&2; exit 2;;
    esac
done
[ -f "$reference" ] || { echo "FAIL: no reference plugin $reference (build the host tree first)" >&2; exit 1; }

# "STATUS  check" lines, without details and times (times and paths differ).
checks() { sed -n 's/^\(PASS\|FAIL\|WARN\)  \([^ ]*\).*/\1  \2/p'; }

ref_out=$("$cli" plugins validate "${options[@]}" "$reference"); ref_rc=$?
t0=$(date +%s%N)
out=$("$cli" plugins validate "${options[@]}" --timeout 300 --child-program "$child" "${wrapper[@]}" "$plugin"); rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
printf '%s\n' "$out"

status=0
grep -q '^check groups run by .*navguard-validator-child' <<<"$out" \
    || { echo "FAIL: the checks did not run in navguard-validator-child" >&2; status=1; }
if ! diff <(checks <<<"$ref_out") <(checks <<<"$out") > /dev/null; then
    echo "FAIL: not the results of the tool's own children on $reference:" >&2
    diff <(checks <<<"$ref_out") <(checks <<<"$out") >&2
    status=1
fi
[ "$rc" = "$ref_rc" ] || { echo "FAIL: exit status $rc, the reference's $ref_rc" >&2; status=1; }
[ "$rc" = 0 ] || { echo "FAIL: the plugin does not conform (exit $rc)" >&2; status=1; }
n=$(checks <<<"$out" | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: no check reported" >&2; status=1; }
[ "$status" = 0 ] && echo "validate-child: $n checks, the reference's results (exit $rc), in $ms ms"
exit "$status"
