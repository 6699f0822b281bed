// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_stack.cpp — the StackView binding (see navguard_qt6_stack.h).
 */
#include "navguard_qt6_stack.h"
#include "navguard_qt6_screens.h"

#include <QtCore/QMetaObject>
#include <QtQml/QJSEngine>
#include <QtQml/QQmlEngine>
#include <QtQml/qqml.h>

#include <algorithm>

namespace navguard {
namespace qt6 {
namespace detail {

namespace {
/* StackView's Operation and LoadBehavior values (QtQuick.Controls; the C++
 * type is private, so the binding calls it through QML). */
constexpr int kImmediate = 0;
constexpr int kPushTransition = 1;
constexpr int kReplaceTransition = 2;
constexpr int kPopTransition = 3;
constexpr int kForceLoad = 1;
} // namespace

QVector<uint64_t> screenStack(ng_context *ctx) {
    QVector<uint64_t> ids;
    size_t n = 0;
    if (!ctx || ng_stack_count(ctx, &n) != NG_OK) return ids;
    ids.reserve(static_cast<int>(n));
    for (size_t i = 0; i < n; i++) {
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        if (ng_stack_get(ctx, i, &s) == NG_OK) ids.append(s.id);
    }
    return ids;
}

StackBinding::StackBinding(QObject *owner, const ScreenRegistry &screens, const QVariantMap &routes,
                           std::function<void()> changed)
    : m_owner(owner), m_screens(screens), m_routes(routes), m_changed(std::move(changed)) {}

/* StackView changes its stack inside its own signal handlers and page
 * constructors, where another push re-enters it ("cannot push while already
 * in the process of completing a push"): every change is applied one
 * event-loop turn later, in order. */
void StackBinding::schedule(uint64_t request, bool animated) {
    m_pending.append(Pending{ request, animated });
    if (m_flushQueued) return;
    m_flushQueued = true;
    QMetaObject::invokeMethod(m_owner, [this] { flush(); }, Qt::QueuedConnection);
}

void StackBinding::flush() {
    m_flushQueued = false;
    if (m_pending.isEmpty()) return;
    /* The changes made meanwhile are applied as one, towards NavGuard's
     * stack as it is now; animated if the last one was. */
    Pending last = m_pending.last();
    m_pending.clear();
    reconcile(last.animated);
    if (!m_done.isEmpty() || m_doneTop) {
        /* A finished swipe's pages, once StackView popped (see endSwipe). */
        SwipePose done = std::move(m_done);
        m_done.clear();
        done.popped(m_doneTop, m_doneBelow);
        m_doneTop = nullptr;
        m_doneBelow = nullptr;
    }
    QMetaObject::invokeMethod(m_owner, [this] { finishIfSettled(); }, Qt::QueuedConnection);
}

QJSValue StackBinding::jsStack() const {
    QQmlEngine *engine = m_view ? qmlEngine(m_view) : nullptr;
    return engine ? engine->newQObject(m_view.data()) : QJSValue();
}

QJSValue StackBinding::jsPage(uint64_t screen) const {
    QQmlEngine *engine = qmlEngine(m_view);
    QVariant page = m_routes.value(m_screens.route(screen));
    if (QObject *component = page.value<QObject *>()) return engine->newQObject(component);
    return engine->toScriptValue(page);
}

QQuickItem *StackBinding::item(int index) const {
    QJSValue sv = jsStack();
    QJSValue item = sv.property(QStringLiteral("get")).callWithInstance(sv, { index, kForceLoad });
    return qobject_cast<QQuickItem *>(item.toQObject());
}

void StackBinding::reconcile(bool animated) {
    if (!m_view || !m_ctx) return;
    QQmlEngine *engine = qmlEngine(m_view);
    if (!engine) {
        qWarning("NavGuard: Navigator.stackView has no QML engine: it must be a QML StackView");
        return;
    }
    QVector<uint64_t> target = screenStack(m_ctx);
    if (target == m_mirror || target.isEmpty()) return;
    int k = 0;
    while (k < target.size() && k < m_mirror.size() && target[k] == m_mirror[k]) k++;

    auto pages = [&](int from) {
        QJSValue arr = engine->newArray(static_cast<uint>((target.size() - from) * 2));
        quint32 j = 0;
        for (int i = from; i < target.size(); i++) {
            arr.setProperty(j++, jsPage(target[i]));
            arr.setProperty(j++, engine->toScriptValue(m_screens.properties(target[i])));
        }
        return arr;
    };
    QJSValue sv = jsStack();
    QJSValue result;
    if (m_mirror.isEmpty()) {
        result = sv.property(QStringLiteral("push")).callWithInstance(sv, { pages(0), kImmediate });
    } else if (k == m_mirror.size()) {
        result = sv.property(QStringLiteral("push")).callWithInstance(
            sv, { pages(k), animated ? kPushTransition : kImmediate });
    } else if (k == target.size()) {
        QJSValue below = engine->newQObject(item(k - 1));
        result = sv.property(QStringLiteral("pop")).callWithInstance(
            sv, { below, animated ? kPopTransition : kImmediate });
    } else {
        /* Everything from index k up is replaced. */
        QJSValue from = k == 0 ? QJSValue(QJSValue::NullValue) : engine->newQObject(item(k));
        result = sv.property(QStringLiteral("replace")).callWithInstance(
            sv, { from, pages(k), animated ? kReplaceTransition : kImmediate });
    }
    if (result.isError())
        qWarning("NavGuard: StackView: %s", qPrintable(result.toString()));
    m_mirror = target;
}

void StackBinding::busyChanged() {
    if (!m_view || m_view->property("busy").toBool()) return;
    if (m_finishQueued) return;
    m_finishQueued = true;
    QMetaObject::invokeMethod(m_owner, [this] { finishIfSettled(); }, Qt::QueuedConnection);
}

/* StackView's transition ended: NavGuard's transition in flight ends too
 * (did-show), unless a change is still waiting or a swipe owns it. */
void StackBinding::finishIfSettled() {
    m_finishQueued = false;
    if (!m_ctx || !m_view || !m_pending.isEmpty() || m_flushQueued) return;
    if (m_view->property("busy").toBool()) return;
    ng_track_info t = NG_TRACK_INFO_INIT;
    if (ng_track_get(m_ctx, NG_TRACK_SCREEN, &t) != NG_OK) return;
    if (t.flags & NG_TRANSF_INTERACTIVE) return;
    ng_transition_finish(m_ctx, NG_TRACK_ALL);
    if (m_changed) m_changed();
}

bool StackBinding::beginSwipe() {
    m_top = m_view ? m_view->property("currentItem").value<QQuickItem *>() : nullptr;
    int d = m_mirror.size();
    m_below = d >= 2 ? item(d - 2) : nullptr;
    if (m_below) {
        /* A page StackView loads only now (pushed in an array, never shown)
         * is its newest child: put it under the page the finger moves. */
        if (m_top && m_below->parentItem() == m_top->parentItem()) m_below->stackBefore(m_top);
        m_below->setVisible(true);
    }
    /* The pages posed as StackView's pop would pose them (navguard_qt6.h). */
    m_pose.clear();
    if (m_view && m_below) m_pose.collect(m_view->property("popEnter").value<QObject *>(), m_below, false);
    if (m_view && m_top) m_pose.collect(m_view->property("popExit").value<QObject *>(), m_top, true);
    poseSwipe(0);
    return m_top != nullptr;
}

void StackBinding::poseSwipe(qreal offset) {
    qreal w = m_view ? m_view->width() : 0;
    qreal p = w > 0 ? std::clamp(offset / w, 0.0, 1.0) : 0;
    if (m_top) m_top->setX(offset);
    m_pose.pose(p);
}

void StackBinding::endSwipe(bool finished) {
    QPointer<QQuickItem> top = m_top, below = m_below;
    SwipePose pose = std::move(m_pose);
    m_pose.clear();
    m_top = nullptr;
    m_below = nullptr;
    if (finished) {
        /* The page below ends where the pop leaves it (the settle ends
         * there too; a swipe ended otherwise jumps there). StackView pops
         * the top (scheduled, no transition); flush() then poses the pages
         * again: that pop sets a PropertyAnimation's `from` on the entering
         * page (Qt 6.4), and the top page, which StackView may keep (a page
         * pushed as an item), gets its own values back. */
        pose.land(below);
        m_done = pose;
        m_doneTop = top;
        m_doneBelow = below;
    } else {
        /* Every page gets its own values back. */
        if (top) top->setX(0);
        pose.restore();
        if (below) below->setVisible(false);
    }
}

} // namespace detail
} // namespace qt6
} // namespace navguard
