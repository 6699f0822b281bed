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
