/* SPDX-License-Identifier: Apache-2.0 */
/* The name tables of navguard.h and plugin.h (NG_*_MAP) against the
 * values they name and the library's name functions generated from them:
 * every value of an enumeration has exactly one row, the rows cover the
 * values 0..n-1 with no gap or repeat, names are unique within a table, and
 * each ng_*_name function answers its table's name (and "unknown" outside). */
#include <navguard/plugin.h>
#include <string.h>
#include "check.h"

typedef struct { int32_t value; const char *name; } row;
#define ROW(constant, name) { constant, name },

/* Rows cover 0..n-1 once each; names are unique and non-empty. */
static void check_table(const char *table, const row *rows, int n, int expected_count) {
    EXPECT(expected_count < 0 || n == expected_count, "%s has %d rows, its COUNT is %d", table, n, expected_count);
    for (int v = 0; v < n; v++) {
        int seen = 0;
        for (int i = 0; i < n; i++) seen += rows[i].value == v;
        EXPECT(seen == 1, "%s: value %d has %d rows", table, v, seen);
    }
    for (int i = 0; i < n; i++) {
        EXPECT(rows[i].name && rows[i].name[0], "%s: row %d has no name", table, i);
        for (int j = i + 1; j < n; j++)
            EXPECT(strcmp(rows[i].name, rows[j].name) != 0, "%s: \"%s\" twice", table, rows[i].name);
    }
}

static void check_function(const char *table, const row *rows, int n, const char *(*fn)(int32_t)) {
    for (int i = 0; i < n; i++) {
        const char *got = fn(rows[i].value);
        EXPECT(got && strcmp(got, rows[i].name) == 0, "%s: value %d named \"%s\", table says \"%s\"", table,
               rows[i].value, got ? got : "(null)", rows[i].name);
    }
    EXPECT(strcmp(fn(n), "unknown") == 0 && strcmp(fn(-1), "unknown") == 0, "%s: values outside are unknown", table);
}

typedef const char *(*name_fn)(int32_t);

#define TABLE(map, fn, count)                                                     \
    do {                                                                          \
        static const row rows[] = { map(ROW) };                                   \
        int n = (int)(sizeof rows / sizeof rows[0]);                              \
        check_table(#map, rows, n, count);                                        \
        name_fn f = fn;                                                           \
        if (f) check_function(#map, rows, n, f);                                  \
    } while (0)

int main(void) {
    TABLE(NG_REQUEST_KIND_MAP, ng_request_kind_name, NG_REQ_KIND_COUNT);
    TABLE(NG_REASON_MAP, ng_reason_name, NG_REASON_COUNT);
    TABLE(NG_OUTCOME_MAP, ng_outcome_name, -1);
    TABLE(NG_TRACK_MAP, ng_track_name, -1);
    TABLE(NG_PHASE_MAP, ng_phase_name, -1);
    TABLE(NG_SWIPE_STATE_MAP, ng_swipe_state_name, -1);
    TABLE(NG_CLOCK_KIND_MAP, ng_clock_kind_name, -1);
    TABLE(NG_HOLD_END_REASON_MAP, ng_hold_end_reason_name, -1);
    TABLE(NG_SEVERITY_MAP, ng_severity_name, -1);
    TABLE(NG_EVENT_TYPE_MAP, ng_event_type_name, NG_EVENT_TYPE_COUNT);
    TABLE(NG_TOUCH_PHASE_MAP, ng_touch_phase_name, -1);
    TABLE(NG_TOUCH_STATE_MAP, ng_touch_state_name, -1);
    TABLE(NG_VERDICT_MAP, ng_verdict_name, -1);
    TABLE(NG_SHAPE_KIND_MAP, ng_shape_kind_name, -1);
    TABLE(NG_KEY_PHASE_MAP, ng_key_phase_name, -1);
    TABLE(NG_PRESS_CAUSE_MAP, ng_press_cause_name, -1);
    TABLE(NG_BUTTON_MAP, (name_fn)0, -1);
    {   /* ng_button_name takes a code (int64_t): the same checks by hand. */
        static const row buttons[] = { NG_BUTTON_MAP(ROW) };
        int n = (int)(sizeof buttons / sizeof buttons[0]);
        for (int i = 0; i < n; i++)
            EXPECT(strcmp(ng_button_name(buttons[i].value), buttons[i].name) == 0, "button %d named \"%s\"",
                   buttons[i].value, ng_button_name(buttons[i].value));
        EXPECT(strcmp(ng_button_name(n), "unknown") == 0 && strcmp(ng_button_name(-1), "unknown") == 0 &&
               strcmp(ng_button_name((int64_t)1 << 40), "unknown") == 0, "buttons outside the table are unknown");
        EXPECT(strcmp(ng_button_name(NG_BUTTON_B), "B") == 0, "B is B");
    }
    TABLE(NG_VOTE_MAP, (name_fn)0, -1);
    TABLE(NG_STATUS_MAP, (name_fn)0, NG_STATUS_COUNT);

    /* ng_strstatus: "NG_E_HANDLE: <the table's text>". */
#define STATUS_ROW(constant, text) { constant, #constant ": " text },
    static const row statuses[] = { NG_STATUS_MAP(STATUS_ROW) };
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        EXPECT(strcmp(ng_strstatus(statuses[i].value), statuses[i].name) == 0, "ng_strstatus(%d) = \"%s\"",
               statuses[i].value, ng_strstatus(statuses[i].value));
    EXPECT(strcmp(ng_strstatus(NG_STATUS_COUNT), "unknown status") == 0, "unknown status");

    if (g_failures) {
        fprintf(stderr, "test_names: %d of %d checks failed\n", g_failures, g_checks);
        return 1;
    }
    printf("test_names: all %d checks passed\n", g_checks);
    return 0;
}
