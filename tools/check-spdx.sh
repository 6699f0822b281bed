#!/usr/bin/env bash
# tools/check-spdx.sh [DIR]: lists the project's source files that lack
# "SPDX-License-Identifier: Apache-2.0" in their first 5 lines, and exits 1
# when there are any (0 when every file has it). DIR defaults to the source
# tree this script is in; only files git tracks are checked.
#
# The kinds of file checked: C and C++ sources and headers (*.c *.h *.cpp),
# Swift (*.swift, Package.swift included), CMake (CMakeLists.txt *.cmake
# *.cmake.in), shell and Python scripts (*.sh *.py), the Makefile, the
# linker version scripts (*.map), the pkg-config template (*.pc.in), the
# module maps (*.modulemap), QML (*.qml) and .ci/run. Documentation, data, generated files
# and the licence texts are not source and are not checked.
set -euo pipefail
dir=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$dir"
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(git ls-files -z -- \
    '*.c' '*.h' '*.cpp' '*.swift' 'CMakeLists.txt' '*/CMakeLists.txt' '*.cmake' '*.cmake.in' \
    '*.sh' '*.py' 'Makefile' '*.map' '*.pc.in' '*.modulemap' '*.qml' '.ci/run')
missing=0
for f in "${files[@]}"; do
    if ! head -n 5 -- "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0'; then
        echo "$f"
        missing=$((missing + 1))
    fi
done
if [ "$missing" -gt 0 ]; then
    echo "check-spdx: $missing of ${#files[@]} source files lack SPDX-License-Identifier: Apache-2.0 in their first 5 lines" >&2
    exit 1
fi
echo "check-spdx: all ${#files[@]} source files have SPDX-License-Identifier: Apache-2.0" >&2
