/* SPDX-License-Identifier: Apache-2.0 */
/*
 * header_check.c — the public headers as a C11 user sees them.
 *
 * Compiled with -std=c11 -Wall -Wextra -Wpedantic -Werror by gcc and by clang
 * (-fsyntax-only), and built and run against libnavguard.so. plugin.h comes
 * first so that it is checked to be self-contained.
 */
#include <navguard/plugin.h>
#include <navguard/navguard.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Layout promises of the headers. */
_Static_assert(sizeof(ng_event) == 64, "ng_event is 64 bytes");
_Static_assert(offsetof(ng_request, size) == 0, "size comes first");
_Static_assert(offsetof(ng_request_result, size) == 0, "size comes first");
_Static_assert(offsetof(ng_options, size) == 0, "size comes first");
_Static_assert(offsetof(ng_delegate, size) == 0, "size comes first");
_Static_assert(offsetof(ng_event, size) == 0, "size comes first");
_Static_assert(sizeof(ng_status) == 4, "ng_status is int32_t");
_Static_assert(NG_PLUGIN_ABI_MAJOR >= 1, "plugin ABI major");

/* The build passes the CMake project version: header and library agree. */
#if defined(NG_EXPECT_VERSION_MAJOR)
_Static_assert(NG_VERSION_MAJOR == NG_EXPECT_VERSION_MAJOR, "NG_VERSION_MAJOR matches project()");
_Static_assert(NG_VERSION_MINOR == NG_EXPECT_VERSION_MINOR, "NG_VERSION_MINOR matches project()");
_Static_assert(NG_VERSION_PATCH == NG_EXPECT_VERSION_PATCH, "NG_VERSION_PATCH matches project()");
#endif

/* Every NG_*_INIT macro, as a C user writes it (CheckInitMacros.cmake checks
 * that none is missing here). */
static uint32_t use_init_macros(void) {
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
    return request.size + result.size + options.size + options.delegate.size +
           event.size + event_result.size + view.size + touch.size + press.size + track.size + hold.size +
           record.size + replay.size + replayed.size + screen.size + guard_request.size +
           question.size + question_spec.size;
}

/* The function types are what a C user expects (checked without referencing
 * the symbols: _Generic does not evaluate its operand). */
typedef ng_status (*create_fn)(const ng_options *, ng_context **);
typedef const char *(*strstatus_fn)(ng_status);
_Static_assert(_Generic(&ng_context_create, create_fn: 1, default: 0), "ng_context_create type");
_Static_assert(_Generic(&ng_strstatus, strstatus_fn: 1, default: 0), "ng_strstatus type");
_Static_assert(_Generic(&ng_version, int32_t (*)(void): 1, default: 0), "ng_version type");

/* A plugin entry written in C has the type plugin.h names. */
static const ng_plugin_descriptor *header_check_entry(void) { return NULL; }
static const ng_plugin_entry_fn entry_fn = header_check_entry;

int main(void) {
    int failures = 0;
    if (use_init_macros() == 0) {
        fprintf(stderr, "header_check.c: NG_*_INIT gave zero sizes\n");
        failures++;
    }
    if (ng_version() != NG_VERSION_NUMBER) {
        fprintf(stderr, "header_check.c: ng_version() = %ld, header says %ld\n",
                (long)ng_version(), (long)NG_VERSION_NUMBER);
        failures++;
    }
    const char *version = ng_version_string();
    if (version == NULL || strcmp(version, NG_VERSION_STRING) != 0) {
        fprintf(stderr, "header_check.c: ng_version_string() = %s, header says %s\n",
                version ? version : "(null)", NG_VERSION_STRING);
        failures++;
    }
    /* The string beside the numbers in navguard.h says the same version. */
    char numbers[32];
    snprintf(numbers, sizeof numbers, "%d.%d.%d", NG_VERSION_MAJOR, NG_VERSION_MINOR, NG_VERSION_PATCH);
    if (strcmp(numbers, NG_VERSION_STRING) != 0) {
        fprintf(stderr, "header_check.c: NG_VERSION_STRING is %s, the numbers say %s\n", NG_VERSION_STRING, numbers);
        failures++;
    }
    if (entry_fn() != NULL) failures++;
    if (failures == 0) printf("header_check.c: ok (library %s)\n", version);
    return failures == 0 ? 0 : 1;
}
