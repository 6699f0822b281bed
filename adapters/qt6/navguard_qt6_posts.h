/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6_posts.h — the Qt 6 adapter's side of NavGuard's loop: requests
 * posted from any thread (Navigator::post), the wake-up they cause
 * (on_wake: one queued tick on the GUI thread) and the one timer armed for
 * NavGuard's next deadline (on_deadline). Included by navguard_qt6.h;
 * compile navguard_qt6_posts.cpp with the adapter's other sources. Not part
 * of the adapter's API: it may change with it.
 */
#ifndef NAVGUARD_QT6_POSTS_H
#define NAVGUARD_QT6_POSTS_H

#include <navguard/navguard.h>

#include <QtCore/QTimer>

#include <atomic>
#include <functional>

class QObject;

namespace navguard {
namespace qt6 {

struct PostRequest;

namespace detail {

class ScreenRegistry;

/* Invariants: at most one tick is queued at a time (a burst of wakes from
 * any number of threads makes one ng_tick); the timer is armed for the
 * deadline NavGuard named last (stopped for NG_NO_DEADLINE), rounded up to
 * the millisecond, so it fires once the deadline passed.
 * Thread rule: wake() and post() from any thread; everything else on the
 * thread of `owner` (the GUI thread). */
class PostQueue {
public:
    /* `tick` is called on `owner`'s thread for each queued tick and each
     * deadline; `owner` must outlive this queue (the Navigator owns both). */
    PostQueue(QObject *owner, std::function<void()> tick);
    /* [any-thread] Queue one tick (the context's on_wake). */
    void wake();
    /* [owner] A tick runs now: a later wake queues another. */
    void ticking() { m_queued.store(false); }
    /* [owner] Arm the timer for `deadline` on `ctx`'s clock (on_deadline). */
    void armDeadline(ng_context *ctx, int64_t deadline);
    /* [owner] No more deadlines (the context goes). */
    void stop() { m_timer.stop(); }

    /* [any-thread] Post `request` to `ctx` (ng_request_post: the context's
     * on_wake then calls wake()); a PUSH's screen is registered in `screens`
     * first, forgotten if the post fails. `out_id` (may be NULL) gets the
     * request id, 0 on failure. Returns ng_request_post's statuses,
     * NG_E_STATE without a context, NG_E_RANGE for a fromScreen above
     * kMaxScreenId. */
    static ng_status post(ng_context *ctx, ScreenRegistry &screens, const PostRequest &request, uint64_t *out_id);

private:
    QObject *m_owner;
    std::function<void()> m_tick;
    std::atomic<bool> m_queued{ false };
    QTimer m_timer;
};

} // namespace detail
} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_POSTS_H */
