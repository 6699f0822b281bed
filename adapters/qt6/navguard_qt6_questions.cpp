// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_questions.cpp — leave questions (see navguard_qt6_questions.h).
 */
#include "navguard_qt6_questions.h"

namespace navguard {
namespace qt6 {
namespace detail {

ng_status Questions::answer(ng_context *ctx, uint64_t id, bool yes) {
    if (!id) return NG_E_NOT_FOUND;
    return ng_question_answer(ctx, id, yes ? NG_ANSWER_YES : NG_ANSWER_NO);
}

ng_status Questions::setConfirmLeave(ng_context *ctx, uint64_t screen, bool on) {
    uint32_t flags = 0;
    size_t n = 0;
    ng_stack_count(ctx, &n);
    for (size_t i = 0; i < n; i++) {
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        if (ng_stack_get(ctx, i, &s) == NG_OK && s.id == screen) flags = s.flags;
    }
    flags = on ? (flags | NG_SCREENF_CONFIRM_LEAVE) : (flags & ~NG_SCREENF_CONFIRM_LEAVE);
    return ng_screen_set_flags(ctx, screen, flags);
}

} // namespace detail
} // namespace qt6
} // namespace navguard
