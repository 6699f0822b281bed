#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# memcheck.sh BUILD_DIR TEST_REGEX — the ctests matching TEST_REGEX under
# valgrind's memcheck (ctest -T memcheck), for `make test-sanitize`. Fails
# when memcheck reports an error in any of them: every "ERROR SUMMARY" of
# each test's MemoryChecker.<n>.log (a forked child's too) must say 0 errors,
# and every test must have run. A test that fails under valgrind
# without a memcheck error is named but does not fail the run: at valgrind's
# speed (20-50 times slower) a session on the monotonic clock can pass a
# guard's time limit (c_test_record's 50 ms watchdog); `make test` judges the
# tests' behaviour. The build is the ordinary one (Embedded Swift, what
# ships): the sanitizer trees instrument the library, memcheck reads it as it
# is.
#
# No suppressions: issue 26's "uninitialised value" in Replayer.perform was
# a pattern of the compiler's enum layout that memcheck misjudges, and the
# code no longer makes it (CallArgs is indirect, TraceCalls.swift says why).
set -eu
build=$1; regex=$2
command -v valgrind >/dev/null || { echo "memcheck.sh: valgrind is not installed: apt-get install -y valgrind" >&2; exit 1; }
tmp="$build/Testing/Temporary"
rm -f "$tmp"/MemoryChecker.*.log
start=$(date +%s)
status=0
ctest --test-dir "$build" -T memcheck --output-on-failure \
  --overwrite MemoryCheckCommand="$(command -v valgrind)" \
  --overwrite "MemoryCheckCommandOptions=--error-exitcode=97 --track-origins=yes --num-callers=30" \
  -R "$regex" || status=$?
logs=0 bad=0
for log in "$tmp"/MemoryChecker.*.log; do
  [ -f "$log" ] || continue
  logs=$((logs + 1))
  # Every process's summary (a forked child writes to the same log) says 0.
  if ! grep -q "ERROR SUMMARY: " "$log" || grep -q "ERROR SUMMARY: [1-9]" "$log"; then
    echo "memcheck: errors in $log:" >&2
    grep -E "ERROR SUMMARY|^==[0-9]+== [A-Z]" "$log" | head -20 >&2
    bad=$((bad + 1))
  fi
done
echo "memcheck: $logs test(s) under valgrind in $(( $(date +%s) - start )) s, $bad with errors"
[ "$logs" -gt 0 ] || { echo "memcheck: no test ran" >&2; exit 1; }
if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
  echo "memcheck: warning: a test failed under valgrind with no memcheck error (see above); make test judges it" >&2
fi
[ "$bad" -eq 0 ]
