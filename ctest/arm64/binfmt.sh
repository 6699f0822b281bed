#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# aarch64 programs run on this x86_64 machine through qemu-user: Debian's
# qemu-user-static registers qemu-aarch64 with binfmt_misc (flags F and P:
# the interpreter is opened once, so it works inside a chroot too). A
# machine without systemd (a container, a CI VM) may have binfmt_misc
# unmounted or the entry disabled: update-binfmts mounts and enables it.
# Needs root; installs qemu-user-static and binfmt-support when missing.
set -euo pipefail

fail() { printf 'binfmt: FAIL: %s\n' "$*" >&2; exit 1; }

missing=""
for p in qemu-user-static binfmt-support; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    [ "$(id -u)" = 0 ] || fail "needs$missing: run: sudo apt-get install -y$missing"
    echo "binfmt: installing$missing with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null
fi
entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
if [ "$(head -1 "$entry" 2>/dev/null)" != enabled ]; then
    [ "$(id -u)" = 0 ] || fail "qemu-aarch64 is not enabled in binfmt_misc: run: sudo update-binfmts --enable qemu-aarch64"
    update-binfmts --enable qemu-aarch64
fi
[ "$(head -1 "$entry" 2>/dev/null)" = enabled ] || fail "qemu-aarch64 could not be enabled in binfmt_misc ($entry)"
