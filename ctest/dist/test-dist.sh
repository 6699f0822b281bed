#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make test-dist: NavGuard where no Swift is. A minimal Debian 12 root made
# with debootstrap (cached as a tarball in the build directory), NavGuard's
# .deb packages installed into it with dpkg, and inside it (chroot, /proc not
# mounted, then mounted):
#   - gcc builds a C host (ctest/dist/host.c) against the installed -dev
#     package with pkg-config, and the C guard template
#     (examples/plugins/c-minimal/minimal.c) with only <navguard/plugin.h>;
#   - the host runs the default chain plus the template guard;
#   - the installed navguard tool validates the template guard;
#   - ldd resolves every dependency, and no Swift runtime exists in the root;
#   - the library needs only libc (and libm), each built-in guard only libc
#     (and libffi, the ffi-predicate guard), and libnavguard0 depends on
#     nothing else (libc6, libffi8).
#
# Usage: ctest/dist/test-dist.sh BUILD_DIR PACKAGE_DIR
set -euo pipefail

build=$(realpath "${1:?build directory}")
packages=$(realpath "${2:?package directory}")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mirror=${NAVGUARD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$build/dist/bookworm-minbase-gcc.tar
root=$build/dist/root
start=$(date +%s)

say() { printf 'test-dist: %s\n' "$*"; }
fail() { printf 'test-dist: FAIL: %s\n' "$*" >&2; exit 1; }
# shellcheck source=ctest/dist/root-checks.sh
. "$src/ctest/dist/root-checks.sh"

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap and chroot): run it as root, e.g. sudo make test-dist"
if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap"
    apt-get install -y debootstrap >/dev/null
fi
debs=("$packages"/*.deb)
[ -e "${debs[0]}" ] || fail "no .deb in $packages (make package builds them)"

if [ ! -f "$cache" ]; then
    say "making a minimal Debian 12 root with gcc (debootstrap, cached in $cache)"
    rm -rf "$build/dist/cache-root"
    mkdir -p "$build/dist"
    debootstrap --variant=minbase --include=gcc,libc6-dev,pkg-config bookworm "$build/dist/cache-root" "$mirror" \
        > "$build/dist/debootstrap.log" 2>&1 || { tail -20 "$build/dist/debootstrap.log" >&2; fail "debootstrap"; }
    tar -C "$build/dist/cache-root" -cf "$cache" .
    rm -rf "$build/dist/cache-root"
fi

cleanup() {
    if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc"; fi
}
trap cleanup EXIT
cleanup
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$cache"

install_packages "$build/dist/dpkg.log" "${debs[@]}"
libdir=$(dirname "$(find "$root/usr/lib" -name 'libnavguard.so.0' | head -1)")
[ -n "$libdir" ] && [ "$libdir" != . ] || fail "libnavguard.so.0 is not installed under /usr/lib"
check_needs "$libdir"
check_depends "$(ls "$packages"/libnavguard0_*.deb)"
check_docs

run_checks() {
    local what=$1
    build_host_and_guard "$what" /usr/bin/navguard
    say "$what: navguard plugins validate quiet-hours.so"
    inside 'navguard --version && navguard plugins validate /tmp/work/quiet-hours.so > validate.txt 2>&1' \
        || { inside 'cat validate.txt' >&2; fail "$what: the template guard does not validate"; }
    inside 'tail -1 validate.txt' | sed 's/^/    /'
}

[ -z "$(ls -A "$root/proc" 2>/dev/null)" ] || fail "/proc is not empty before mounting"
run_checks "without /proc"
mount -t proc proc "$root/proc"
run_checks "with /proc"
umount "$root/proc"

say "passed in $(( $(date +%s) - start )) s"
