#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# dpkg-shlibdeps for a cross build's packages (make package-arm64), called
# by CPack in place of dpkg-shlibdeps (cmake/NavGuardPackaging.cmake).
# This machine's dpkg knows no library of the target, and dpkg-shlibdeps
# cannot tell which package of a sysroot (a Debian root for the target) a
# library there belongs to. So the sysroot is shown to it as a package
# being built (-S): a directory whose lib and usr/lib are the sysroot's and
# whose DEBIAN/symbols holds every symbols file of the sysroot's dpkg
# database. Each dependency then gets its version from the symbols the
# binaries use, as in a native build (libc6 (>= 2.34), libffi8 (>= 3.4)).
#
# Environment: NAVGUARD_CROSS_SYSROOT (the root), NAVGUARD_CROSS_MULTIARCH
# (aarch64-linux-gnu).
set -eu
root=${NAVGUARD_CROSS_SYSROOT:?the sysroot}
ma=${NAVGUARD_CROSS_MULTIARCH:?the multiarch triplet}
view=$(mktemp -d)
trap 'rm -rf "$view"' EXIT
mkdir -p "$view/DEBIAN" "$view/usr"
cat "$root"/var/lib/dpkg/info/*.symbols > "$view/DEBIAN/symbols"
ln -s "$root/lib" "$view/lib"
ln -s "$root/usr/lib" "$view/usr/lib"
dpkg-shlibdeps -S"$view" -l"$view/lib/$ma" -l"$view/usr/lib/$ma" "$@"
