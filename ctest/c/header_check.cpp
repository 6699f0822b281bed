// SPDX-License-Identifier: Apache-2.0
/*
 * header_check.cpp — the public headers as a C++17 user sees them.
 *
 * Compiled with -std=c++17 -Wall -Wextra -Wpedantic -Werror by g++ and by
 * clang++ (-fsyntax-only), and built and run against libnavguard.so.
 * navguard.h comes first so that it is checked to be self-contained.
 */
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <type_traits>

// Layout promises of the headers.
static_assert(sizeof(ng_event) == 64, "ng_event is 64 bytes");
static_assert(offsetof(ng_request, size) == 0, "size comes first");
static_assert(offsetof(ng_options, size) == 0, "size comes first");
static_assert(std::is_same<ng_status, int32_t>::value, "ng_status is int32_t");
static_assert(std::is_standard_layout<ng_event>::value && std::is_trivial<ng_event>::value,
              "ng_event is a C struct");
static_assert(std::is_standard_layout<ng_plugin_descriptor>::value, "C struct");

#if defined(NG_EXPECT_VERSION_MAJOR)
static_assert(NG_VERSION_MAJOR == NG_EXPECT_VERSION_MAJOR, "NG_VERSION_MAJOR matches project()");
static_assert(NG_VERSION_MINOR == NG_EXPECT_VERSION_MINOR, "NG_VERSION_MINOR matches project()");
static_assert(NG_VERSION_PATCH == NG_EXPECT_VERSION_PATCH, "NG_VERSION_PATCH matches project()");
#endif

// C++ sees the functions with C language linkage: redeclaring a function
// extern "C" is an error ("different language linkage") unless the header
// declared it inside extern "C" too. Linking this file against the library
// checks it once more (a C++-mangled name would not resolve).
extern "C" {
int32_t ng_version(void);
const char *ng_version_string(void);
const char *ng_strstatus(ng_status status);
ng_status ng_context_create(const ng_options *options, ng_context **out);
}

// The function types are what a C++ user expects (decltype: no reference).
static_assert(std::is_same<decltype(&ng_context_create),
                           ng_status (*)(const ng_options *, ng_context **)>::value, "type");
static_assert(std::is_same<decltype(&ng_strstatus), const char *(*)(ng_status)>::value, "type");

// Every NG_*_INIT macro, as a C++ user writes it (no narrowing, no missing
// initializers; CheckInitMacros.cmake checks that none is missing here).
static uint32_t use_init_macros() {
    ng_request request = NG_REQUEST_INIT(NG_REQ_PUSH);
    ng_request_result result = NG_REQUEST_RESULT_INIT;
    ng_options options = NG_OPTIONS_INIT;
    ng_event event = NG_EVENT_INIT(NG_EVENT_TOUCH);
    ng_event_result event_result = NG_EVENT_RESULT_INIT;
    ng_view view = NG_VIEW_INIT;
    ng_touch_info touch = NG_TOUCH_INFO_INIT;
    ng_press_info press = NG_PRESS_INFO_INIT;
    ng_track_info track = NG_TRACK_INFO_INIT;
    ng_hold_view hold = NG_HOLD_VIEW_INIT;
    ng_record_options record = NG_RECORD_OPTIONS_INIT;
    ng_screen_info screen = NG_SCREEN_INFO_INIT;
    ng_guard_request guard_request = NG_GUARD_REQUEST_INIT;
    ng_replay_options replay = NG_REPLAY_OPTIONS_INIT;
    ng_replay_result replayed = NG_REPLAY_RESULT_INIT;
    ng_question question = NG_QUESTION_INIT;
    ng_question_spec question_spec = NG_QUESTION_SPEC_INIT;
    const ng_request braced[] = { NG_REQUEST_INIT(NG_REQ_POP), NG_REQUEST_INIT(NG_REQ_BACK) };
    return request.size + result.size + options.size + options.delegate.size +
           event.size + event_result.size + view.size + braced[1].size + touch.size + press.size + track.size + hold.size +
           record.size + replay.size + replayed.size + screen.size + guard_request.size +
           question.size + question_spec.size;
}

// A plugin entry written in C++ has the type plugin.h names.
extern "C" const ng_plugin_descriptor *header_check_entry(void) { return nullptr; }
static const ng_plugin_entry_fn entry_fn = header_check_entry;

int main() {
    int failures = 0;
    if (use_init_macros() == 0) {
        std::fprintf(stderr, "header_check.cpp: NG_*_INIT gave zero sizes\n");
        failures++;
    }
    if (ng_version() != NG_VERSION_NUMBER) {
        std::fprintf(stderr, "header_check.cpp: ng_version() = %ld, header says %ld\n",
                     static_cast<long>(ng_version()), static_cast<long>(NG_VERSION_NUMBER));
        failures++;
    }
    const char *version = ng_version_string();
    if (version == nullptr || std::strcmp(version, NG_VERSION_STRING) != 0) {
        std::fprintf(stderr, "header_check.cpp: ng_version_string() = %s, header says %s\n",
                     version ? version : "(null)", NG_VERSION_STRING);
        failures++;
    }
    if (entry_fn() != nullptr) failures++;
    if (failures == 0) std::printf("header_check.cpp: ok (library %s)\n", version);
    return failures == 0 ? 0 : 1;
}
