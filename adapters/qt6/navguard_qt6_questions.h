/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6_questions.h — the Qt 6 adapter's leave questions: asking
 * before a stacked screen is left (NG_SCREENF_CONFIRM_LEAVE, set or cleared
 * on the screen) and answering a question a guard asked (Navigator's
 * question signal, answer()). The question maps are built with the other
 * signals' (navguard_qt6_signals.h). Included by navguard_qt6.h; compile
 * navguard_qt6_questions.cpp with the adapter's other sources. Not part of
 * the adapter's API: it may change with it.
 *
 * Thread rule: GUI thread (the context's owner thread).
 */
#ifndef NAVGUARD_QT6_QUESTIONS_H
#define NAVGUARD_QT6_QUESTIONS_H

#include <navguard/navguard.h>

#include <cstdint>

namespace navguard {
namespace qt6 {
namespace detail {

/* Invariant: stateless; NavGuard keeps the questions and the flags, this
 * only turns the QML calls into C calls. */
struct Questions {
    /* Answer question `id` (0: none) yes or no. NG_E_NOT_FOUND when it is
     * not open (it timed out or was withdrawn meanwhile, or never was);
     * else ng_question_answer's status. */
    static ng_status answer(ng_context *ctx, uint64_t id, bool yes);
    /* Ask before any request removes stacked screen `screen` (`on`), or stop
     * asking; its other flags are kept. ng_screen_set_flags's status. */
    static ng_status setConfirmLeave(ng_context *ctx, uint64_t screen, bool on);
};

} // namespace detail
} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_QUESTIONS_H */
