# SPDX-License-Identifier: Apache-2.0
# NavGuard — the project's front door.
#
#   make / make all      configure build/ (CMake + Ninja, Release) and build it
#   make test            SwiftPM build + swift test (and the thread stress tests
#                        under AddressSanitizer), then CMake build + ctest: every
#                        Swift source compiled in ordinary Swift (SwiftPM) and in
#                        Embedded Swift (CMake), so a source that stops compiling
#                        in either mode fails it
#   make install         install to $(PREFIX) (default /usr/local)
#   make package         the Debian packages (libnavguard0, libnavguard-dev,
#                        navguard-tools) in build/packages, checked by lintian
#   make demo            stage-install to build/stage, build examples/kiosk-sim
#                        against the installed copy (pkg-config) and run it
#   make demo-window     the SDL kiosk (examples/sdl-kiosk) in a real window, with
#                        DEMO_ARGS; without DISPLAY a scripted visit under xvfb-run
#                        leaves a screenshot in build/sdl-kiosk.bmp
#   make demo-game       the game front-end (examples/sdl-game): keyboard or
#                        controllers, with DEMO_ARGS; without DISPLAY a scripted
#                        game with two virtual controllers under xvfb-run leaves
#                        its pause menu in build/sdl-game.bmp
#   make demo-qt         the Qt Quick kiosk (examples/qt-kiosk), likewise; its
#                        headless screenshot is build/qt-kiosk.png
#   make package         the Debian packages into build/packages (CPack), then lintian
#   make test-dist       those packages in a minimal Debian 12 root without Swift
#                        (debootstrap + chroot, as root): a C host and a C guard
#                        built there with gcc and run, with and without /proc
#   make bench           build, then run every benchmark in build/bench/
#   make bench-compare   the benchmarks of build/ (Embedded Swift) and of an
#                        ordinary Swift build (build-ordinary/) run alternately,
#                        medians side by side; with BASE=<git revision(s)>
#                        (e.g. BASE=v0.3.0, BASE="v0.2.0 v0.3.0", BASE=v0.2.0..:
#                        it and every release tag since), this build's
#                        beside each revision's, built in build-base/<commit>/;
#                        rows more than 10 % worse flagged; BENCH_FLAGS for
#                        tools/bench-compare.py (e.g. BENCH_FLAGS="--bench
#                        navguard_bench --rows 'push.finish|ng_tick'")
#   make docs            rewrite docs/guards.md from the built-in guards' declared
#                        options (a ctest fails when it is out of date), and
#                        docs/timeline.svg and docs/timeline-incident.svg (navguard
#                        timeline on recorded sessions);
#                        the API reference (Doxygen) into build/docs/html
#   make test-memcheck   the C tests that record and replay under valgrind (also
#                        the last step of test-sanitize)
#   make test-sanitize   libnavguard, the plugins and the C tests built twice more
#                        with the toolchain's clang, in build-sanitize/address
#                        (ASan; UBSan for C) and build-sanitize/thread (TSan),
#                        each running the C tests (and the fuzz replay under
#                        ASan), then the Swift thread stress tests under TSan;
#                        CI runs it
#   make fuzz            configure build-fuzz/ (-DNAVGUARD_FUZZ=ON, clang), build
#                        the libFuzzer target FUZZ_TARGET (fuzz_api, the C API;
#                        fuzz_read, the trace and crash-dump readers) and run it
#                        FUZZ_SECONDS (default 60) on fuzz/corpus (corpus-read);
#                        findings go to build-fuzz/fuzz/artifacts/ (artifacts-read/)
#   make cross-arm64     libnavguard, the guards (C and Swift), the SDL2 adapter's
#                        objects, the C tests and benchmarks cross-built for
#                        aarch64 Linux into build-arm64/ (Embedded Swift, the
#                        cross gcc, a Debian arm64 root as sysroot; as root)
#   make test-arm64      those tests under qemu-user, and the arm64 packages in
#                        an arm64 root (ctest/arm64/test-arm64.sh; as root)
#   make package-arm64   libnavguard0 and libnavguard-dev for arm64, then lintian
#   make bench-arm64     the benchmarks under qemu-user (ratios to their C floor)
#   make clean           remove build/, build-fuzz/, build-sanitize/ and SwiftPM's build products
#
# Needs Swift on PATH. cmake, ninja and pkg-config are installed with apt-get
# when missing (as root; otherwise the command to run is printed).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
# Swift, ninja and ctest parallelize themselves; steps run in the order written.
.NOTPARALLEL:

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
PREFIX     ?= /usr/local
CMAKE      ?= cmake
CTEST      ?= ctest
CPACK      ?= cpack
SWIFT      ?= swift
CC         ?= cc

STAGE      := $(abspath $(BUILD_DIR))/stage
DEMO_DIR   := $(abspath $(BUILD_DIR))/demo
DEMO_ARGS  ?=

# `make fuzz`: a separate build tree, a clang with libFuzzer (the Swift
# toolchain's, next to swift), the run's length and extra libFuzzer flags
# (e.g. FUZZ_FLAGS=-fork=2).
FUZZ_DIR     ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= $(or $(wildcard $(dir $(realpath $(shell command -v $(SWIFT) 2>/dev/null)))clang),/opt/swift/usr/bin/clang)
FUZZ_FLAGS   ?=
FUZZ_OUT     := $(FUZZ_DIR)/fuzz

.PHONY: all tools test-tools sanitize-tools test-memcheck package-tools configure build test swift-test swift-test-asan test-sanitize install package test-dist demo demo-window demo-game demo-qt bench bench-compare fuzz docs clean \
        cross-tools cross-arm64 test-arm64 package-arm64 bench-arm64

all: build

# $(call apt_install,<what needs them>): the Debian packages named in the
# shell variable `missing` are installed with apt-get when running as root;
# otherwise make stops with the exact command to run.
define apt_install
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = 0 ]; then \
    echo "Installing$$missing with apt-get ($(1))"; \
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
  else \
    echo "error: $(1) needs$$missing; run: sudo apt-get update && sudo apt-get install -y$$missing" >&2; \
    exit 1; \
  fi; \
fi
endef

# Swift must be on PATH; cmake, ninja and pkg-config are installed if missing.
tools:
	@command -v $(SWIFT) >/dev/null || { echo "error: '$(SWIFT)' is not on PATH: install the Swift toolchain first" >&2; exit 1; }
	@missing=""; \
	command -v $(CMAKE) >/dev/null || missing="$$missing cmake"; \
	command -v ninja >/dev/null || missing="$$missing ninja-build"; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	$(call apt_install,the build)

# `make package`: CPack's DEB generator computes the packages' dependencies
# with dpkg-shlibdeps (dpkg-dev) on the binaries `file` recognizes, and
# lintian checks the result; libnavguard-dev holds the API reference, which
# doxygen makes (and python3 runs its filter).
PACKAGE_TOOLS := dpkg-dev file lintian doxygen python3
package-tools: tools
	@missing=""; \
	for p in $(PACKAGE_TOOLS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	$(call apt_install,make package)

# The tests also run the SDL2 adapter and the SDL kiosk in a real window:
# an X server (Xvfb), xdotool to drive it, SDL2, SDL2_ttf and the DejaVu font;
# the Qt 6 adapter and the Qt Quick kiosk: Qt 6 (Quick, Controls) and the QML
# modules the kiosk imports; and they build the Debian packages (package_deb).
QT_PACKAGES := qt6-declarative-dev qml6-module-qtquick qml6-module-qtquick-controls \
  qml6-module-qtquick-templates qml6-module-qtquick-window qml6-module-qtquick-layouts \
  qml6-module-qtqml-workerscript
# prometheus: its promtool checks the textfiles of `navguard stats --format
# prometheus` and adapters/journald's navguard_metrics (without it those
# ctests check the format with their own parser only).
TEST_PACKAGES := xvfb xdotool libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core $(QT_PACKAGES) abigail-tools prometheus $(PACKAGE_TOOLS)
test-tools: tools
	@missing=""; \
	for p in $(TEST_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	$(call apt_install,make test)

configure: tools
	$(CMAKE) -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	$(CMAKE) --build $(BUILD_DIR)

swift-test: test-tools
	$(SWIFT) build
	$(SWIFT) test --no-parallel

# The thread stress tests again under AddressSanitizer (a separate SwiftPM
# build in .build-asan): a use-after-free between a destroy and another
# thread's call must be caught, not only a crash. Leak checking is off: the
# test runner itself keeps a few objects to exit.
swift-test-asan: test-tools
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan \
	  --no-parallel --filter ThreadStressTests

# SwiftPM compiles the sources in ordinary Swift (swift-test), CMake in
# Embedded Swift (build; the ctest navguard_embedded fails for a tree
# configured otherwise): both must compile.
test: test-tools swift-test swift-test-asan build
	$(CTEST) --test-dir $(BUILD_DIR) --output-on-failure

# libnavguard (Swift: -sanitize=address or thread; its C part, the plugins and
# the C tests: -fsanitize=address,undefined or thread), built by the Swift
# toolchain's clang (whose runtimes swiftc instruments for) in
# $(SANITIZE_DIR)/address and $(SANITIZE_DIR)/thread
# (cmake/NavGuardSanitize.cmake), then the C tests and the SDL2 and Qt 6
# adapters' tests under each (Qt itself uninstrumented), and the fuzz harnesses' replays (fuzz_api_smoke,
# fuzz_read_smoke: corpus, crashers, 20,000 generated inputs each) under ASan
# + UBSan (one thread: TSan would only slow them down). Then the Swift thread
# stress tests under TSan (a SwiftPM build in .build-tsan), as swift-test-asan
# runs them under ASan, and MEMCHECK_TESTS under valgrind (installed with
# apt-get when missing, as root). Any finding fails the run. .ci/run runs it
# after `make test`.
SANITIZE_DIR   ?= build-sanitize
SANITIZE_CC    ?= $(FUZZ_CC)
SANITIZE_CXX   ?= $(dir $(SANITIZE_CC))clang++
SANITIZE_C_TESTS := c_test_.*|compat_.*|header_check_c(xx)?_run|readme_example(_cxx)?|sdl2_adapter|qt6_adapter|journald_sink|journald_metrics
SANITIZE_TESTS_address := ^($(SANITIZE_C_TESTS)|fuzz_api_smoke|fuzz_read_smoke)$$
SANITIZE_TESTS_thread  := ^($(SANITIZE_C_TESTS))$$
# Then the C tests that record and replay, the other C tests that are clean
# under it, and the readers' corpus, under valgrind's memcheck on the ordinary
# build (ctest/memcheck/memcheck.sh). Left out, to be looked at:
# c_test_plugins, c_test_hardening and fuzz_api_corpus (memcheck reports
# conditional jumps on bytes of opendir's buffer in the plugin directory scan,
# PluginFile.swift), and c_test_crash_dump (its children crash on purpose:
# invalid writes).
MEMCHECK_TESTS := ^(c_test_(abi|contract|names|record|record_posted|swipe)|header_check_c(xx)?_run|readme_example(_cxx)?|fuzz_read_corpus)$$
SANITIZE_PACKAGES := valgrind
sanitize-tools: test-tools
	@missing=""; \
	for p in $(SANITIZE_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	$(call apt_install,make test-sanitize)

# The memcheck step alone (about 40 s on the ordinary build).
test-memcheck: sanitize-tools build
	ctest/memcheck/memcheck.sh "$(BUILD_DIR)" '$(MEMCHECK_TESTS)'

test-sanitize: sanitize-tools build
	@test -x "$(SANITIZE_CC)" || { echo "error: no clang at '$(SANITIZE_CC)': set SANITIZE_CC to the Swift toolchain's clang" >&2; exit 1; }
	@start=$$(date +%s); \
	for s in address thread; do \
	  d="$(SANITIZE_DIR)/$$s"; \
	  if [ $$s = address ]; then tests='$(SANITIZE_TESTS_address)'; else tests='$(SANITIZE_TESTS_thread)'; fi; \
	  echo "== test-sanitize: $$s, in $$d"; \
	  $(CMAKE) -S . -B "$$d" -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DNAVGUARD_SANITIZE=$$s \
	    -DCMAKE_C_COMPILER="$(SANITIZE_CC)" -DCMAKE_CXX_COMPILER="$(SANITIZE_CXX)" >/dev/null || exit 1; \
	  $(CMAKE) --build "$$d" || exit 1; \
	  ASAN_OPTIONS="detect_leaks=1:$${ASAN_OPTIONS-}" UBSAN_OPTIONS="print_stacktrace=1:$${UBSAN_OPTIONS-}" \
	  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:$${TSAN_OPTIONS-}" \
	    $(CTEST) --test-dir "$$d" --output-on-failure -R "$$tests" || exit 1; \
	done; \
	echo "== test-sanitize: the Swift thread stress tests under TSan, in .build-tsan"; \
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan && \
	TSAN_OPTIONS="halt_on_error=1:$${TSAN_OPTIONS-}" $(SWIFT) test --skip-build --sanitize=thread \
	  --scratch-path .build-tsan --no-parallel --filter ThreadStressTests || exit 1; \
	echo "== test-sanitize: the C tests that record and replay, under valgrind's memcheck, in $(BUILD_DIR)"; \
	ctest/memcheck/memcheck.sh "$(BUILD_DIR)" '$(MEMCHECK_TESTS)' || exit 1; \
	echo "test-sanitize: passed under ASan + UBSan, TSan and memcheck in $$(( $$(date +%s) - start )) s"

install: build
	$(CMAKE) --install $(BUILD_DIR) --prefix "$(abspath $(PREFIX))"

# The Debian packages (cmake/NavGuardPackaging.cmake) into $(BUILD_DIR)/packages,
# then lintian, which must be clean: an error or a warning fails the target.
package: package-tools build
	rm -rf "$(BUILD_DIR)/packages"
	cd "$(BUILD_DIR)" && $(CPACK) --config CPackConfig.cmake
	lintian --fail-on error,warning "$(BUILD_DIR)"/packages/*.deb
	@ls -l "$(BUILD_DIR)"/packages/*.deb

# NavGuard where no Swift is (ctest/dist/test-dist.sh): the packages
# installed with dpkg into a minimal Debian 12 root (debootstrap, cached in
# $(BUILD_DIR)/dist), a C host and the C guard template built there with gcc
# and run, without /proc mounted and with it. Needs root (chroot); .ci/run
# runs it after `make test`.
test-dist: package
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: make test-dist needs root (debootstrap, chroot): run: sudo make test-dist" >&2; exit 1; fi
	ctest/dist/test-dist.sh "$(BUILD_DIR)" "$(BUILD_DIR)/packages"

# aarch64 Linux (arm64), cross-built on this x86_64 machine into $(ARM64_DIR)
# (cmake/toolchains/aarch64-linux-gnu.cmake): Swift in Embedded Swift for
# aarch64, C with Debian's cross gcc, which links everything, against a
# Debian 12 arm64 root made by debootstrap (ctest/arm64/arm64-root.sh, cached
# in $(ARM64_DIR)/root-cache, extracted as $(ARM64_DIR)/sysroot). No navguard
# tool for arm64 (it needs an aarch64 Swift runtime): the tests replay the
# traces recorded on arm64 with this machine's tool, built in $(BUILD_DIR).
# All as root (debootstrap, chroot, binfmt_misc).
ARM64_DIR     ?= build-arm64
ARM64_SYSROOT := $(abspath $(ARM64_DIR))/sysroot
ARM64_TOOLS   := gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static binfmt-support debootstrap
cross-tools: tools
	@missing=""; \
	for p in $(ARM64_TOOLS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	$(call apt_install,make cross-arm64)
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: make cross-arm64 needs root (debootstrap, binfmt_misc): run: sudo make cross-arm64" >&2; exit 1; fi

cross-arm64: cross-tools
	ctest/arm64/arm64-root.sh "$(ARM64_DIR)/root-cache" "$(ARM64_SYSROOT)"
	$(CMAKE) -S . -B $(ARM64_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_TOOLCHAIN_FILE=$(abspath cmake/toolchains/aarch64-linux-gnu.cmake) \
	  -DNAVGUARD_CROSS_SYSROOT="$(ARM64_SYSROOT)" -DNAVGUARD_BUILD_CLI=OFF -DNAVGUARD_FUZZ_SMOKE_RUNS=2000 \
	  -DNAVGUARD_HOST_CLI="$(abspath $(BUILD_DIR))/swiftpm/release/navguard-cli" \
	  -DNAVGUARD_HOST_PLUGIN_DIR="$(abspath $(BUILD_DIR))/lib/navguard/plugins"
	$(CMAKE) --build $(ARM64_DIR)

package-arm64: package-tools cross-arm64
	rm -rf "$(ARM64_DIR)/packages"
	cd "$(ARM64_DIR)" && $(CPACK) --config CPackConfig.cmake
	lintian --fail-on error,warning "$(ARM64_DIR)"/packages/*.deb
	@ls -l "$(ARM64_DIR)"/packages/*.deb

# The host build first: its navguard tool replays the traces kiosk-sim
# records on arm64, and validates the arm64 guards through the arm64
# navguard-validator-child under qemu. .ci/run runs this after test-dist.
test-arm64: build package-arm64
	ctest/arm64/test-arm64.sh "$(ARM64_DIR)" "$(ARM64_DIR)/packages"

bench-arm64: cross-arm64
	@for b in $$(find "$(ARM64_DIR)/bench" -maxdepth 1 -type f -perm -u+x | sort); do \
	  echo "== $$b (qemu-aarch64: compare its ratios, not its times)"; \
	  qemu-aarch64-static -L "$(ARM64_SYSROOT)" "$$b"; \
	done

# kiosk-sim is built from the staged install only: its header, its library
# (rpath into the stage) and its pkg-config file; never from the source tree.
demo:
	@test -d examples/kiosk-sim || { echo "error: examples/kiosk-sim is missing" >&2; exit 1; }
	rm -rf "$(STAGE)" "$(DEMO_DIR)"
	$(MAKE) --no-print-directory install PREFIX="$(STAGE)"
	mkdir -p "$(DEMO_DIR)"
	@export PKG_CONFIG_PATH="$(STAGE)/lib/pkgconfig"; \
	cflags=$$(pkg-config --cflags navguard); libs=$$(pkg-config --libs navguard); \
	set -x; \
	$(CC) -std=c11 -O2 -Wall -Wextra -o "$(DEMO_DIR)/kiosk-sim" \
	  examples/kiosk-sim/*.c -Iexamples/kiosk-sim $$cflags $$libs \
	  -Wl,-rpath,"$(STAGE)/lib" -lm -lpthread
	@ldd "$(DEMO_DIR)/kiosk-sim" | grep navguard
	"$(DEMO_DIR)/kiosk-sim" $(DEMO_ARGS)

# The API reference is Doxygen on the headers (cmake/NavGuardAPIDocs.cmake,
# target navguard-api-docs; doxygen comes with package-tools).
# docs/guards.md is generated: `navguard plugins docs` reads every built-in's
# declarations from the build tree's plugin directory. docs/timeline.svg is
# `navguard timeline` on the kiosk session ctest/c/trace_host.c records, and
# docs/timeline-incident.svg on its --incident session, docs/timeline-idle-return.svg
# on its --idle-return session.
docs: package-tools build
	$(CMAKE) --build $(BUILD_DIR) --target navguard-api-docs
	@echo "API reference: $(BUILD_DIR)/docs/html/index.html"
	NAVGUARD_PLUGIN_DIR="$(abspath $(BUILD_DIR))/lib/navguard/plugins" NAVGUARD_PLUGIN_PATH= \
	  "$(BUILD_DIR)/swiftpm/release/navguard-cli" plugins docs > docs/guards.md
	@echo "docs/guards.md written"
	NAVGUARD_PLUGIN_DIR="$(abspath $(BUILD_DIR))/lib/navguard/plugins" NAVGUARD_PLUGIN_PATH= \
	  "$(BUILD_DIR)/navguard-cli-tests/trace_host" "$(BUILD_DIR)/kiosk.jsonl"
	"$(BUILD_DIR)/swiftpm/release/navguard-cli" timeline "$(BUILD_DIR)/kiosk.jsonl" -o docs/timeline.svg
	NAVGUARD_PLUGIN_DIR="$(abspath $(BUILD_DIR))/lib/navguard/plugins" NAVGUARD_PLUGIN_PATH= \
	  "$(BUILD_DIR)/navguard-cli-tests/trace_host" "$(BUILD_DIR)/incident.jsonl" --incident
	"$(BUILD_DIR)/swiftpm/release/navguard-cli" timeline "$(BUILD_DIR)/incident.jsonl" -o docs/timeline-incident.svg
	NAVGUARD_PLUGIN_DIR="$(abspath $(BUILD_DIR))/lib/navguard/plugins" NAVGUARD_PLUGIN_PATH= \
	  "$(BUILD_DIR)/navguard-cli-tests/trace_host" "$(BUILD_DIR)/unattended-checkout.jsonl" --idle-return
	"$(BUILD_DIR)/swiftpm/release/navguard-cli" timeline "$(BUILD_DIR)/unattended-checkout.jsonl" -o docs/timeline-idle-return.svg

# demo-window: examples/sdl-kiosk in a window on $(DISPLAY), run with DEMO_ARGS
# (e.g. DEMO_ARGS=--unguarded; F1 overlay, F12 screenshot, Escape quits).
# With no DISPLAY (ssh, CI) it does not fail: it says so and plays a short
# scripted visit under `xvfb-run -a` (examples/sdl-kiosk/headless-demo.sh),
# whose exit screenshot (overlay open, a swipe-back in flight) is left in
# $(BUILD_DIR)/sdl-kiosk.bmp.
demo-window: test-tools build
	@app="$(BUILD_DIR)/examples/sdl-kiosk/sdl-kiosk"; \
	test -x "$$app" || { echo "error: $$app was not built (see the sdl-kiosk line of cmake's output)" >&2; exit 1; }; \
	if [ -n "$${DISPLAY:-}" ]; then \
	  echo "sdl-kiosk on $$DISPLAY: F1 overlay, F12 screenshot, drag from the left edge to go back, Escape quits"; \
	  "$$app" $(DEMO_ARGS); \
	else \
	  echo "DISPLAY is not set: no screen to open a window on. Playing a scripted visit under xvfb-run instead;"; \
	  echo "its screenshot goes to $(BUILD_DIR)/sdl-kiosk.bmp (run with a DISPLAY to use the kiosk yourself)."; \
	  xvfb-run -a -s "-screen 0 800x600x24 -nolisten tcp" \
	    examples/sdl-kiosk/headless-demo.sh "$$app" "$(BUILD_DIR)/sdl-kiosk.bmp" $(DEMO_ARGS); \
	  echo "screenshot: $(BUILD_DIR)/sdl-kiosk.bmp"; \
	fi

# demo-game: examples/sdl-game in a window on $(DISPLAY), run with DEMO_ARGS
# (e.g. DEMO_ARGS=--unguarded; arrows/D-pad, Enter/A, Escape/B is Back, P or
# Start pauses, F12 screenshot, Ctrl+Q quits). With no DISPLAY it plays a
# short scripted game with two virtual controllers under `xvfb-run -a`
# (examples/sdl-game/headless-demo.sh), whose exit screenshot (controller 1's
# pause menu, controller 2's presses dropped) is left in $(BUILD_DIR)/sdl-game.bmp.
demo-game: test-tools build
	@app="$(BUILD_DIR)/examples/sdl-game/sdl-game"; \
	test -x "$$app" || { echo "error: $$app was not built (see the sdl-game line of cmake's output)" >&2; exit 1; }; \
	if [ -n "$${DISPLAY:-}" ]; then \
	  echo "sdl-game on $$DISPLAY: arrows or D-pad, Enter or A, Escape or B is Back, P or Start pauses, Ctrl+Q quits"; \
	  "$$app" $(DEMO_ARGS); \
	else \
	  echo "DISPLAY is not set: no screen to open a window on. Playing a scripted game under xvfb-run instead;"; \
	  echo "its screenshot goes to $(BUILD_DIR)/sdl-game.bmp (run with a DISPLAY to play yourself)."; \
	  xvfb-run -a -s "-screen 0 800x600x24 -nolisten tcp" \
	    examples/sdl-game/headless-demo.sh "$$app" "$(BUILD_DIR)/sdl-game.bmp" $(DEMO_ARGS); \
	  echo "screenshot: $(BUILD_DIR)/sdl-game.bmp"; \
	fi

# demo-qt: examples/qt-kiosk in a window on $(DISPLAY), run with DEMO_ARGS
# (e.g. DEMO_ARGS=--unguarded; Escape or Backspace is Back, F12 screenshot,
# Ctrl+Q quits). With no DISPLAY it plays a short scripted visit under
# `xvfb-run -a` (examples/qt-kiosk/headless-demo.sh), whose exit screenshot
# (a swipe-back in flight) is left in $(BUILD_DIR)/qt-kiosk.png.
demo-qt: test-tools build
	@app="$(BUILD_DIR)/examples/qt-kiosk/qt-kiosk"; \
	test -x "$$app" || { echo "error: $$app was not built (see the qt-kiosk line of cmake's output)" >&2; exit 1; }; \
	if [ -n "$${DISPLAY:-}" ]; then \
	  echo "qt-kiosk on $$DISPLAY: Escape or Backspace is Back, drag from the left edge to go back, F12 screenshot, Ctrl+Q quits"; \
	  "$$app" $(DEMO_ARGS); \
	else \
	  echo "DISPLAY is not set: no screen to open a window on. Playing a scripted visit under xvfb-run instead;"; \
	  echo "its screenshot goes to $(BUILD_DIR)/qt-kiosk.png (run with a DISPLAY to use the kiosk yourself)."; \
	  xvfb-run -a -s "-screen 0 800x600x24 -nolisten tcp" \
	    examples/qt-kiosk/headless-demo.sh "$$app" "$(BUILD_DIR)/qt-kiosk.png" $(DEMO_ARGS); \
	  echo "screenshot: $(BUILD_DIR)/qt-kiosk.png"; \
	fi

# Benchmarks are the executables bench/ builds into $(BUILD_DIR)/bench/.
bench:
	@test -d bench || { echo "error: bench/ is missing: there are no benchmarks to run" >&2; exit 1; }
	$(MAKE) --no-print-directory build
	@benches=$$(find "$(BUILD_DIR)/bench" -maxdepth 1 -type f -perm -u+x 2>/dev/null | sort); \
	if [ -z "$$benches" ]; then echo "error: no benchmark executables in $(BUILD_DIR)/bench/" >&2; exit 1; fi; \
	for b in $$benches; do echo "== $$b"; "$$b"; done

# Two (or more) builds' benchmarks run alternately in one session, BENCH_ROUNDS
# rounds each, medians side by side with their ratios, each row's ratio to
# the C floor of the same build and run, a row more than 10 % worse flagged
# (tools/bench-compare.py).
#   make bench-compare                   this build (Embedded Swift, $(BUILD_DIR))
#                                        beside an ordinary Swift build of the
#                                        same sources ($(ORDINARY_DIR): -DNAVGUARD_SWIFT_EMBEDDED=OFF,
#                                        without the CLI)
#   make bench-compare BASE=v0.3.0       this build beside that git revision's:
#                                        `git archive` of it into
#                                        $(BASE_DIR)/<commit>/src, its own CMake
#                                        build in $(BASE_DIR)/<commit>/build
#                                        (configured as its `make configure`
#                                        does), of which only the benchmarks
#                                        and the plugins they load are built
#   make bench-compare BASE="v0.2.0 v0.3.0"  several revisions, oldest first:
#                                        one column each, then this build's
#   make bench-compare BASE=v0.2.0..     that revision and every release tag
#                                        (v*) after it, up to this build
# Rows are matched by name; a row only some builds have is shown with "-"
# for the others. Builds run under `nice -n $(BENCH_NICE)`; the benchmarks
# themselves do not.
ORDINARY_DIR ?= $(BUILD_DIR)-ordinary
BASE_DIR     ?= build-base
BASE         ?=
BENCH_ROUNDS ?= 2
BENCH_NICE   ?= 10
BENCH_FLAGS  ?=
# $(call bench_build,DIR): build in DIR (a Ninja tree) what the benchmarks
# run: every executable in bench/ and every plugin in lib/navguard/plugins/
# (the default chain), by their paths, which name the same things in every
# revision.
define bench_build
targets=$$(ninja -C "$(1)" -t targets all | sed -n 's#^\(bench/[^:]*\|lib/navguard/plugins/[^:]*\):.*#\1#p'); \
if [ -z "$$targets" ]; then echo "error: $(1) builds no benchmark" >&2; exit 1; fi; \
nice -n $(BENCH_NICE) $(CMAKE) --build "$(1)" --target $$targets
endef
bench-compare: test-tools
ifeq ($(strip $(BASE)),)
	$(MAKE) --no-print-directory build
	$(CMAKE) -S . -B $(ORDINARY_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DNAVGUARD_SWIFT_EMBEDDED=OFF -DNAVGUARD_BUILD_CLI=OFF
	$(CMAKE) --build $(ORDINARY_DIR)
	python3 tools/bench-compare.py --rounds $(BENCH_ROUNDS) $(BENCH_FLAGS) \
	  ordinary="$(ORDINARY_DIR)/bench" embedded="$(BUILD_DIR)/bench"
else
	$(MAKE) --no-print-directory configure
	@$(call bench_build,$(BUILD_DIR))
	@revs=""; \
	for rev in $(BASE); do \
	  case "$$rev" in \
	  *..) from=$$(git rev-parse --verify --quiet "$${rev%..}^{commit}") || { echo "error: BASE: '$${rev%..}' is not a git revision here" >&2; exit 1; }; \
	       revs="$$revs $${rev%..}"; \
	       for t in $$(git tag --list 'v*' --merged HEAD --contains "$$from" --sort=version:refname); do \
	         c=$$(git rev-parse "$$t^{commit}"); \
	         [ "$$c" = "$$from" ] || [ "$$c" = "$$(git rev-parse HEAD)" ] || revs="$$revs $$t"; \
	       done ;; \
	  *) revs="$$revs $$rev" ;; \
	  esac; \
	done; \
	builds=""; \
	for rev in $$revs; do \
	  commit=$$(git rev-parse --verify --quiet "$$rev^{commit}") || { echo "error: BASE: '$$rev' is not a git revision here" >&2; exit 1; }; \
	  short=$$(git rev-parse --short=7 "$$commit"); \
	  label=$$(git describe --tags --exact-match "$$commit" 2>/dev/null || echo "$$rev"); \
	  dir="$(BASE_DIR)/$$short"; \
	  if [ "$$(cat "$$dir/src/.commit" 2>/dev/null)" != "$$commit" ]; then \
	    echo "== bench-compare: $$rev ($$short) into $$dir/src"; \
	    rm -rf "$$dir"; mkdir -p "$$dir/src"; \
	    git archive "$$commit" | tar -x -C "$$dir/src"; \
	    echo "$$commit" > "$$dir/src/.commit"; \
	  fi; \
	  echo "== bench-compare: building $$label's benchmarks in $$dir/build"; \
	  nice -n $(BENCH_NICE) $(CMAKE) -S "$$dir/src" -B "$$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) >/dev/null; \
	  $(call bench_build,$$dir/build); \
	  builds="$$builds $$label=$$dir/build/bench"; \
	done; \
	python3 tools/bench-compare.py --rounds $(BENCH_ROUNDS) $(BENCH_FLAGS) $$builds this="$(BUILD_DIR)/bench"
endif

# FUZZ_TARGET=fuzz_api (default): the harness (fuzz/api/) runs call
# sequences; FUZZ_TARGET=fuzz_read: traces and crash dumps go to the readers
# (ng_replay). Both against an ASan and coverage instrumented copy of
# libnavguard; new inputs go to $(FUZZ_OUT)/corpus (corpus-read), crashes and
# hangs to $(FUZZ_OUT)/artifacts/ (artifacts-read/; replay one with
# `$(FUZZ_OUT)/$(FUZZ_TARGET) FILE`, or `build/fuzz/$(FUZZ_TARGET)_replay -v
# FILE` for the trace).
FUZZ_TARGET ?= fuzz_api
FUZZ_SEEDS   = $(if $(filter fuzz_read,$(FUZZ_TARGET)),fuzz/corpus-read,fuzz/corpus)
FUZZ_SUFFIX  = $(if $(filter fuzz_read,$(FUZZ_TARGET)),-read,)
FUZZ_MAX_LEN = $(if $(filter fuzz_read,$(FUZZ_TARGET)),32768,4096)
fuzz: tools
	@test -x "$(FUZZ_CC)" || { echo "error: no clang at '$(FUZZ_CC)': set FUZZ_CC to a clang with libFuzzer" >&2; exit 1; }
	@case "$(FUZZ_TARGET)" in fuzz_api|fuzz_read) ;; *) echo "error: FUZZ_TARGET is fuzz_api or fuzz_read" >&2; exit 1;; esac
	$(CMAKE) -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DNAVGUARD_FUZZ=ON -DCMAKE_C_COMPILER="$(FUZZ_CC)"
	$(CMAKE) --build $(FUZZ_DIR) --target $(FUZZ_TARGET)
	mkdir -p $(FUZZ_OUT)/corpus$(FUZZ_SUFFIX) $(FUZZ_OUT)/artifacts$(FUZZ_SUFFIX)
	UBSAN_OPTIONS="print_stacktrace=1:$${UBSAN_OPTIONS-}" \
	$(FUZZ_OUT)/$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -timeout=25 -max_len=$(FUZZ_MAX_LEN) \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_OUT)/artifacts$(FUZZ_SUFFIX)/ $(FUZZ_FLAGS) \
	  $(FUZZ_OUT)/corpus$(FUZZ_SUFFIX) $(FUZZ_SEEDS)

clean:
	rm -rf $(BUILD_DIR) $(ORDINARY_DIR) $(BASE_DIR) $(FUZZ_DIR) $(SANITIZE_DIR) $(ARM64_DIR) .build-cmake-helper .build-asan .build-tsan
	-$(SWIFT) package clean
