/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6_stack.h — the Qt 6 adapter's StackView binding: it makes a Qt
 * Quick Controls StackView show NavGuard's screen stack. Every change is
 * applied one event-loop turn after NavGuard's will-show (never inside
 * StackView's own signals, a page's construction or a NavGuard callback),
 * ng_transition_finish is called once StackView's transition ended (busy
 * false), and during an interactive swipe back it poses the top page and
 * the page below as StackView's pop would (SwipePose,
 * navguard_qt6_swipe.h). Included by navguard_qt6.h; compile
 * navguard_qt6_stack.cpp with the adapter's other sources. Not part of the
 * adapter's API: it may change with it.
 *
 * Thread rule: GUI thread only (the thread of `owner` and the StackView).
 */
#ifndef NAVGUARD_QT6_STACK_H
#define NAVGUARD_QT6_STACK_H

#include <navguard/navguard.h>

#include "navguard_qt6_swipe.h"

#include <QtCore/QPointer>
#include <QtCore/QVariant>
#include <QtCore/QVector>
#include <QtQml/QJSValue>
#include <QtQuick/QQuickItem>

#include <functional>

namespace navguard {
namespace qt6 {
namespace detail {

class ScreenRegistry;

/* NavGuard's stack, bottom first (empty without a context). */
QVector<uint64_t> screenStack(ng_context *ctx);

/* Invariants: mirror() is the screens StackView was last told to show,
 * bottom first; changes wait in order and are applied as one, towards
 * NavGuard's stack as it is then, one turn after the first was scheduled;
 * ng_transition_finish is called only when no change waits, StackView is
 * not busy and no swipe owns the transition. Between beginSwipe() and
 * endSwipe() the pages carry the swipe's pose; after endSwipe(true) the pose
 * is kept until StackView popped (the next flush), then set again. */
class StackBinding {
public:
    /* `owner` (the Navigator) is the context of the queued calls; `screens`
     * gives each screen's route and properties, `routes` each route's page
     * (both outlive the binding); `changed` is called after each
     * ng_transition_finish. */
    StackBinding(QObject *owner, const ScreenRegistry &screens, const QVariantMap &routes,
                 std::function<void()> changed);

    void setContext(ng_context *ctx) { m_ctx = ctx; }
    void setView(QQuickItem *view) { m_view = view; }
    QQuickItem *view() const { return m_view; }
    const QVector<uint64_t> &mirror() const { return m_mirror; }

    /* A change for the transition `request` (its will-show): applied one
     * turn later, with `animated` if it is the last one waiting. */
    void schedule(uint64_t request, bool animated);
    /* Make StackView show NavGuard's stack now: a push, a pop or a replace
     * of what differs above their common bottom. */
    void reconcile(bool animated);
    /* StackView's busy changed (its busyChanged signal). */
    void busyChanged();
    /* The StackView's item at `index` (loaded if it was not). */
    QQuickItem *item(int index) const;

    /* The swipe back: the top page and the one below, the latter shown
     * under the former and posed from StackView's popEnter (the top page
     * from popExit, but for x). Returns false when there is no top page. */
    bool beginSwipe();
    /* The top page at x = `offset`, every track at its share of the pop. */
    void poseSwipe(qreal offset);
    /* The swipe ended: `finished`, the pages land where the pop leaves
     * them (StackView then pops without a transition: schedule()); else
     * they go back to where they were. */
    void endSwipe(bool finished);

private:
    struct Pending {
        uint64_t request;
        bool animated;
    };
    void flush();
    void finishIfSettled();
    QJSValue jsStack() const;
    QJSValue jsPage(uint64_t screen) const;

    QObject *m_owner;
    const ScreenRegistry &m_screens;
    const QVariantMap &m_routes;
    std::function<void()> m_changed;
    ng_context *m_ctx = nullptr;
    QPointer<QQuickItem> m_view;
    QVector<uint64_t> m_mirror;    /* the screens StackView shows, bottom first */
    QVector<Pending> m_pending;
    bool m_flushQueued = false;
    bool m_finishQueued = false;

    QPointer<QQuickItem> m_top, m_below;   /* the swipe's pages */
    SwipePose m_pose;                      /* what poses them (popEnter, popExit) */
    SwipePose m_done;                      /* a finished swipe's tracks, until StackView popped */
    QPointer<QQuickItem> m_doneTop, m_doneBelow;
};

} // namespace detail
} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_STACK_H */
