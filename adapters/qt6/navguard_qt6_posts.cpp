// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_posts.cpp — posts, wake-ups and the deadline timer (see
 * navguard_qt6_posts.h).
 */
#include "navguard_qt6_posts.h"
#include "navguard_qt6.h"

#include <QtCore/QByteArray>
#include <QtCore/QMetaObject>

namespace navguard {
namespace qt6 {
namespace detail {

namespace {
constexpr int64_t kNsPerMs = 1000000;
}

PostQueue::PostQueue(QObject *owner, std::function<void()> tick) : m_owner(owner), m_tick(std::move(tick)) {
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_timer, &QTimer::timeout, owner, [this] { m_tick(); });
}

void PostQueue::wake() {
    /* Queued on the owner's thread: the event goes with the owner if it is
     * destroyed first. */
    if (!m_queued.exchange(true)) QMetaObject::invokeMethod(m_owner, [this] { m_tick(); }, Qt::QueuedConnection);
}

void PostQueue::armDeadline(ng_context *ctx, int64_t deadline) {
    int64_t now = 0;
    if (deadline == NG_NO_DEADLINE || ng_now(ctx, &now) != NG_OK) {
        m_timer.stop();
        return;
    }
    int64_t ns = deadline - now;
    /* Rounded up: the deadline has passed when the timer fires. */
    int64_t ms = ns <= 0 ? 0 : (ns - 1) / kNsPerMs + 1;
    m_timer.start(static_cast<int>(ms > INT32_MAX ? INT32_MAX : ms));
}

ng_status PostQueue::post(ng_context *ctx, ScreenRegistry &screens, const PostRequest &p, uint64_t *out_id) {
    if (!ctx) return NG_E_STATE;
    if (p.fromScreen > kMaxScreenId) return NG_E_RANGE; /* not a screen id QML could read */
    ng_request rq = NG_REQUEST_INIT(p.kind);
    rq.flags = p.animated ? NG_REQF_ANIMATED : 0u;
    rq.source = p.source;
    rq.from_screen = p.fromScreen;
    rq.screen_flags = p.screenFlags;
    QByteArray route = p.route.toUtf8();
    QByteArray identity = p.identity.isEmpty() ? route : p.identity.toUtf8();
    uint64_t screen = 0;
    if (p.kind == NG_REQ_PUSH) {
        screen = screens.newId();
        rq.screen.id = screen;
        rq.screen.route = route.constData();
        rq.screen.identity = identity.constData();
        screens.remember(screen, p.route, p.properties);
    }
    uint64_t id = 0;
    ng_status st = ng_request_post(ctx, &rq, &id);
    if (out_id) *out_id = st == NG_OK ? id : 0;
    if (screen) {
        if (st != NG_OK) screens.forget(screen);
        else screens.trackPush(id, { screen });
    }
    return st;
}

} // namespace detail
} // namespace qt6
} // namespace navguard
