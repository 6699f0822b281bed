#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A Debian 12 arm64 root for the aarch64 cross build, made once with
# debootstrap (its second stage runs under qemu-user through binfmt_misc)
# and cached as a tarball, like test-dist's amd64 root. It serves twice:
#   - as the cross build's sysroot (make cross-arm64): glibc, libffi and
#     SDL2 headers and libraries for aarch64, which Debian's cross packages
#     do not have (libffi-dev, libsdl2-dev);
#   - as the userland the arm64 tests run in under qemu (make test-arm64):
#     a fresh copy for the packages (dpkg -i, gcc, chroot), and the sysroot
#     as qemu's library prefix for the build tree's tests.
# It has gcc, libc6-dev, pkg-config, libffi-dev and libsdl2-2.0-0 installed,
# and libsdl2-dev's files unpacked without its 60-odd -dev dependencies
# (dpkg -x: headers, libSDL2.so, sdl2.pc; enough to compile the SDL2
# adapter and link its test).
#
# Usage: ctest/arm64/arm64-root.sh CACHE_DIR [DEST [fresh]]
#   Makes CACHE_DIR/bookworm-arm64.tar when missing; with DEST, extracts it
#   there unless DEST already holds this tarball's copy (fresh: always, a new
#   copy). Needs root (debootstrap, chroot, device files) and
#   qemu-user-static with binfmt-support (installed with apt-get when missing).
set -euo pipefail

cache_dir=${1:?cache directory}
dest=${2:-}
fresh=${3:-}
mirror=${NAVGUARD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=gcc,libc6-dev,pkg-config,libffi-dev,libsdl2-2.0-0
mkdir -p "$cache_dir"
cache_dir=$(realpath "$cache_dir")
cache=$cache_dir/bookworm-arm64.tar

say() { printf 'arm64-root: %s\n' "$*"; }
# Mounts debootstrap or a chroot left under DIR (proc, sys), innermost first,
# so that removing DIR never reaches the host's.
unmount_under() {
    local m
    for m in $(awk -v d="$(realpath -m "$1")/" 'index($2 "/", d) == 1 {print $2}' /proc/mounts | sort -r); do
        umount -l "$m"
    done
}
fail() { printf 'arm64-root: FAIL: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot): run it as root"
"$(dirname "${BASH_SOURCE[0]}")/binfmt.sh"

if [ ! -f "$cache" ]; then
    missing=""
    command -v debootstrap >/dev/null || missing="$missing debootstrap"
    if [ -n "$missing" ]; then
        say "installing$missing"
        apt-get install -y $missing >/dev/null
    fi
    tmp=$cache_dir/cache-root
    say "making a minimal Debian 12 arm64 root ($packages; debootstrap under qemu, a few minutes, cached in $cache)"
    unmount_under "$tmp"
    rm -rf "$tmp"
    t0=$(date +%s)
    debootstrap --arch=arm64 --variant=minbase --include="$packages" bookworm "$tmp" "$mirror" \
        > "$cache_dir/debootstrap.log" 2>&1 || { tail -20 "$cache_dir/debootstrap.log" >&2; fail "debootstrap"; }
    # libsdl2-dev's own files only: its dependencies are -dev packages of
    # every display and sound system SDL2 can load, which nothing here needs.
    chroot "$tmp" /bin/sh -ec 'cd /tmp && apt-get update -qq && apt-get download -qq libsdl2-dev \
        && dpkg -x libsdl2-dev_*.deb / && rm -f libsdl2-dev_*.deb && apt-get clean && rm -rf /var/lib/apt/lists/*' \
        >> "$cache_dir/debootstrap.log" 2>&1 || { tail -20 "$cache_dir/debootstrap.log" >&2; fail "libsdl2-dev"; }
    tar -C "$tmp" -cf "$cache.part" .
    mv "$cache.part" "$cache"
    unmount_under "$tmp"
    rm -rf "$tmp"
    say "made in $(( $(date +%s) - t0 )) s"
fi

if [ -n "$dest" ]; then
    stamp=$dest/.navguard-arm64-root
    if [ "$fresh" = fresh ] || [ ! -f "$stamp" ] || [ "$cache" -nt "$stamp" ]; then
        unmount_under "$dest"
        rm -rf "$dest"
        mkdir -p "$dest"
        tar -C "$dest" -xf "$cache"
        touch "$stamp"
    fi
fi
