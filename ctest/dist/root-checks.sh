# SPDX-License-Identifier: Apache-2.0
# The checks of NavGuard's packages installed in a Debian root, shared by
# make test-dist (ctest/dist/test-dist.sh, amd64) and make test-arm64
# (ctest/arm64/test-arm64.sh). Sourced; the caller defines say, fail, $src
# (the source tree) and $root (the root, made and unpacked).

# install_packages LOG DEB...: dpkg -i inside the root (every dependency the
# packages declare must be in it), and no Swift runtime file anywhere in it.
install_packages() {
    local log=$1 d; shift
    say "installing $# packages: $(for d in "$@"; do basename "$d"; done | tr '\n' ' ')"
    mkdir -p "$root/tmp/pkgs" "$root/tmp/work"
    cp "$@" "$root/tmp/pkgs/"
    chroot "$root" /bin/sh -c 'dpkg -i /tmp/pkgs/*.deb' > "$log" 2>&1 \
        || { cat "$log" >&2; fail "dpkg -i (dependencies the packages declare must be in the root)"; }
    if find "$root" -xdev \( -name 'libswift*' -o -name 'libFoundation*' -o -name 'swift*' -type f \) | grep -q .; then
        fail "a Swift runtime file is in the root: $(find "$root" -xdev -name 'libswift*' | head -3)"
    fi
}

# check_docs: libnavguard-dev put the adapters' guides and out-of-tree
# examples in Debian's place for its documentation.
check_docs() {
    local f
    for f in adapters/qt6/README.md adapters/sdl2/README.md examples/qt6/CMakeLists.txt examples/qt6/main.cpp \
             examples/qt6/Main.qml examples/sdl2/CMakeLists.txt examples/sdl2/main.c; do
        [ -f "$root/usr/share/doc/libnavguard-dev/$f" ] || fail "libnavguard-dev lacks /usr/share/doc/libnavguard-dev/$f"
    done
    say "libnavguard-dev: the adapters' guides and examples in /usr/share/doc/libnavguard-dev"
}

# What a file needs, read from outside the root with this machine's readelf.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
only() {   # only FILE ALLOWED...: FILE needs nothing but the ALLOWED libraries
    local file=$1 lib; shift
    for lib in $(needed "$file"); do
        case " $* " in *" $lib "*) ;; *) fail "${file#"$root"} needs $lib (only $* expected)";; esac
    done
}

# check_needs LIBDIR EXTRA...: libnavguard.so.0 needs libc and libm (and the
# EXTRA libraries: the loader on aarch64), each built-in guard libc only
# (ffi-predicate libffi too): libnavguard is Embedded Swift, with no Swift
# runtime to pull in libstdc++.
check_needs() {
    local libdir=$1 guard; shift
    only "$libdir/libnavguard.so.0" libc.so.6 libm.so.6 "$@"
    say "libnavguard.so.0 ($(stat -L -c %s "$libdir/libnavguard.so.0") bytes) needs: $(needed "$libdir/libnavguard.so.0")"
    for guard in "$libdir"/navguard/plugins/*.so; do
        if [ "$(basename "$guard")" = ffi-predicate.so ]; then only "$guard" libc.so.6 libffi.so.8; else only "$guard" libc.so.6; fi
    done
}

# check_depends DEB: libnavguard0 depends on libc6 and libffi8, nothing else.
check_depends() {
    local depends dep
    depends=$(dpkg-deb -f "$1" Depends)
    for dep in $(printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//'); do
        case $dep in libc6|libffi8) ;; *) fail "libnavguard0 depends on $dep: $depends";; esac
    done
    say "libnavguard0 depends on: $depends"
}

# inside COMMAND: run a shell command in the root's /tmp/work, with a clean
# environment.
inside() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp /bin/sh -ec "cd /tmp/work; $1"
}

# build_host_and_guard WHAT [LDD...]: gcc, inside the root, builds the C host
# (ctest/dist/host.c) against libnavguard-dev with pkg-config and the C guard
# template with only <navguard/plugin.h>; ldd resolves the host, the library
# and the LDD files; then the host runs the default chain plus the guard.
build_host_and_guard() {
    local what=$1 missing extra="" f; shift
    for f in "$@"; do extra="$extra ldd $f || true;"; done
    cp "$src/ctest/dist/host.c" "$src/examples/plugins/c-minimal/minimal.c" "$root/tmp/work/"
    say "$what: building the host and the template guard with gcc"
    inside 'gcc -std=c11 -Wall -Wextra -Werror -o host host.c $(pkg-config --cflags --libs navguard)'
    inside 'gcc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o quiet-hours.so minimal.c $(pkg-config --cflags navguard)'
    say "$what: ldd"
    missing=$(inside "ldd ./host; ldd \$(pkg-config --variable=libdir navguard)/libnavguard.so.0;$extra" \
              | grep 'not found' || true)
    [ -z "$missing" ] || fail "$what: unresolved dependencies: $missing"
    inside 'ldd ./host' | sed 's/^/    /'
    say "$what: the host with the default chain and the template guard"
    inside './host /tmp/work/quiet-hours.so' | sed 's/^/    /' || fail "$what: the host"
}
