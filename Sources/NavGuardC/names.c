/* SPDX-License-Identifier: Apache-2.0 */
/* The name functions of navguard.h, generated from its NG_*_MAP tables: the
 * one place each value's name is written is the header row beside the
 * value. */
#include "navguard/navguard.h"
#include "navguard/plugin.h"
#include "navguard_c.h"

#define NG_NAME_CASE(constant, name) case constant: return name;
#define NG_NAME_FUNCTION(function, type, map)      \
    const char *function(type value) {             \
        switch (value) { map(NG_NAME_CASE) }       \
        return "unknown";                          \
    }

/* Each table with a *_COUNT in the header is dense: one entry per value from
 * 0 below the count (an entry at or above it does not compile: the index is
 * outside the array; a missing one fails the number of entries). Readers
 * take enum ranges from these counts. */
#define NG_ONE_ENTRY(constant, name) +1
#define NG_ENTRY_AT(constant, name) [constant] = 1,
#define NG_DENSE_TABLE(map, count)                                                 \
    _Static_assert(sizeof((const char[count]){ map(NG_ENTRY_AT) }) == (count) &&     \
                   (0 map(NG_ONE_ENTRY)) == (count), #map " has one entry per value below " #count);
NG_DENSE_TABLE(NG_STATUS_MAP, NG_STATUS_COUNT)
NG_DENSE_TABLE(NG_REQUEST_KIND_MAP, NG_REQ_KIND_COUNT)
NG_DENSE_TABLE(NG_REASON_MAP, NG_REASON_COUNT)
NG_DENSE_TABLE(NG_EVENT_TYPE_MAP, NG_EVENT_TYPE_COUNT)
NG_DENSE_TABLE(NG_OUTCOME_MAP, NG_OUTCOME_COUNT)
NG_DENSE_TABLE(NG_TRACK_MAP, NG_TRACK_COUNT)
NG_DENSE_TABLE(NG_PHASE_MAP, NG_PHASE_COUNT)
NG_DENSE_TABLE(NG_SWIPE_STATE_MAP, NG_SWIPE_STATE_COUNT)
NG_DENSE_TABLE(NG_HOLD_END_REASON_MAP, NG_HOLD_END_REASON_COUNT)
NG_DENSE_TABLE(NG_SEVERITY_MAP, NG_SEVERITY_COUNT)
NG_DENSE_TABLE(NG_ANSWER_MAP, NG_ANSWER_COUNT)
NG_DENSE_TABLE(NG_TOUCH_PHASE_MAP, NG_TOUCH_PHASE_COUNT)
NG_DENSE_TABLE(NG_TOUCH_STATE_MAP, NG_TOUCH_STATE_COUNT)
NG_DENSE_TABLE(NG_VERDICT_MAP, NG_VERDICT_COUNT)
NG_DENSE_TABLE(NG_SHAPE_KIND_MAP, NG_SHAPE_KIND_COUNT)

#define NG_STATUS_CASE(constant, text) case constant: return #constant ": " text;
const char *ng_strstatus(ng_status status) {
    switch (status) { NG_STATUS_MAP(NG_STATUS_CASE) }
    return "unknown status";
}

NG_NAME_FUNCTION(ng_request_kind_name, ng_request_kind, NG_REQUEST_KIND_MAP)
NG_NAME_FUNCTION(ng_reason_name, ng_reason, NG_REASON_MAP)
NG_NAME_FUNCTION(ng_outcome_name, ng_outcome_kind, NG_OUTCOME_MAP)
NG_NAME_FUNCTION(ng_track_name, ng_track, NG_TRACK_MAP)
NG_NAME_FUNCTION(ng_phase_name, ng_phase, NG_PHASE_MAP)
NG_NAME_FUNCTION(ng_swipe_state_name, ng_swipe_state, NG_SWIPE_STATE_MAP)
NG_NAME_FUNCTION(ng_clock_kind_name, ng_clock_kind, NG_CLOCK_KIND_MAP)
NG_NAME_FUNCTION(ng_hold_end_reason_name, ng_hold_end_reason, NG_HOLD_END_REASON_MAP)
NG_NAME_FUNCTION(ng_severity_name, ng_severity, NG_SEVERITY_MAP)
NG_NAME_FUNCTION(ng_event_type_name, ng_event_type, NG_EVENT_TYPE_MAP)
NG_NAME_FUNCTION(ng_touch_phase_name, int32_t, NG_TOUCH_PHASE_MAP)
NG_NAME_FUNCTION(ng_touch_state_name, int32_t, NG_TOUCH_STATE_MAP)
NG_NAME_FUNCTION(ng_verdict_name, ng_verdict_kind, NG_VERDICT_MAP)
NG_NAME_FUNCTION(ng_shape_kind_name, ng_shape_kind, NG_SHAPE_KIND_MAP)
NG_NAME_FUNCTION(ng_key_phase_name, int32_t, NG_KEY_PHASE_MAP)
NG_NAME_FUNCTION(ng_answer_name, ng_answer, NG_ANSWER_MAP)
NG_NAME_FUNCTION(ng_button_name, int64_t, NG_BUTTON_MAP)
NG_NAME_FUNCTION(ng_press_cause_name, int32_t, NG_PRESS_CAUSE_MAP)

/* Private (navguard_c.h): the NG_WANT_* bits' names, for the tool. */
const char *ngc_want_name(uint32_t bit) {
    switch (bit) { NG_WANT_MAP(NG_NAME_CASE) }
    return "unknown";
}

/* The version formula is written once, as NG_VERSION_NUMBER in navguard.h. */
int32_t ng_version(void) { return NG_VERSION_NUMBER; }
const char *ng_version_string(void) { return NG_VERSION_STRING; }
