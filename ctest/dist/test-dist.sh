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

say "installing ${#debs[@]} packages: $(for d in "${debs[@]}"; do basename "$d"; done | tr '\n' ' ')"
mkdir -p "$root/tmp/pkgs" "$root/tmp/work"
cp "${debs[@]}" "$root/tmp/pkgs/"
chroot "$root" /bin/sh -c 'dpkg -i /tmp/pkgs/*.deb' > "$build/dist/dpkg.log" 2>&1 \
    || { cat "$build/dist/dpkg.log" >&2; fail "dpkg -i (dependencies the packages declare must be in a minimal root)"; }
if find "$root" -xdev \( -name 'libswift*' -o -name 'libFoundation*' -o -name 'swift*' -type f \) | grep -q .; then
    fail "a Swift runtime file is in the root: $(find "$root" -xdev -name 'libswift*' | head -3)"
fi

# What the library and its guards need (readelf from outside the root):
# libnavguard is Embedded Swift, with no Swift runtime to pull in libstdc++.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
only() {   # only FILE ALLOWED...: FILE needs nothing but the ALLOWED libraries
    local file=$1 lib; shift
    for lib in $(needed "$file"); do
        case " $* " in *" $lib "*) ;; *) fail "${file#"$root"} needs $lib (only $* expected)";; esac
    done
}
libdir=$(dirname "$(find "$root/usr/lib" -name 'libnavguard.so.0' | head -1)")
[ -n "$libdir" ] && [ "$libdir" != . ] || fail "libnavguard.so.0 is not installed under /usr/lib"
only "$libdir/libnavguard.so.0" libc.so.6 libm.so.6
say "libnavguard.so.0 needs: $(needed "$libdir/libnavguard.so.0")"
for guard in "$libdir"/navguard/plugins/*.so; do
    if [ "$(basename "$guard")" = ffi-predicate.so ]; then only "$guard" libc.so.6 libffi.so.8; else only "$guard" libc.so.6; fi
done
depends=$(dpkg-deb -f "$(ls "$packages"/libnavguard0_*.deb)" Depends)
for dep in $(printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//'); do
    case $dep in libc6|libffi8) ;; *) fail "libnavguard0 depends on $dep: $depends";; esac
done
say "libnavguard0 depends on: $depends"

cp "$src/ctest/dist/host.c" "$src/examples/plugins/c-minimal/minimal.c" "$root/tmp/work/"
inside() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp /bin/sh -ec "cd /tmp/work; $1"
}

run_checks() {
    local what=$1
    say "$what: building the host and the template guard with gcc"
    inside 'gcc -std=c11 -Wall -Wextra -Werror -o host host.c $(pkg-config --cflags --libs navguard)'
    inside 'gcc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o quiet-hours.so minimal.c $(pkg-config --cflags navguard)'
    say "$what: ldd"
    local missing
    missing=$(inside 'ldd ./host; ldd $(pkg-config --variable=libdir navguard)/libnavguard.so.0; ldd /usr/bin/navguard || true' \
              | grep 'not found' || true)
    [ -z "$missing" ] || fail "$what: unresolved dependencies: $missing"
    inside 'ldd ./host' | sed 's/^/    /'
    say "$what: the host with the default chain and the template guard"
    inside './host /tmp/work/quiet-hours.so' | sed 's/^/    /' || fail "$what: the host"
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
