/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6_swipedriver.h — the Qt 6 adapter's swipe back driver: an
 * edge item with a DragHandler over the StackView's left edge, whose drag
 * becomes NavGuard's interactive back (ng_request_submit of
 * NG_REQ_INTERACTIVE_BACK, ng_interactive_update, ng_interactive_release,
 * ng_interactive_complete), with the pages posed by the StackView binding
 * (navguard_qt6_stack.h) and the release speed from SwipeVelocity
 * (navguard_qt6_swipe.h). Included by navguard_qt6.h; compile
 * navguard_qt6_swipedriver.cpp with the adapter's other sources. Not part of
 * the adapter's API: it may change with it.
 *
 * Thread rule: GUI thread only.
 */
#ifndef NAVGUARD_QT6_SWIPEDRIVER_H
#define NAVGUARD_QT6_SWIPEDRIVER_H

#include <navguard/navguard.h>

#include "navguard_qt6_swipe.h"

#include <QtCore/QPointer>
#include <QtCore/QVariant>
#include <QtQuick/QQuickItem>

#include <functional>

class QVariantAnimation;

namespace navguard {
namespace qt6 {

class InputFilter;

namespace detail {

class StackBinding;

/* Invariants: at most one swipe at a time, active from NavGuard's
 * interactive will-show until its did-show or cancel (or a failed
 * complete); while dragging, the page follows the finger and each move is
 * ng_interactive_update'd; a release is ng_interactive_release'd once and
 * settles (finish past half way or flung faster than 800 px/s), then
 * ng_interactive_complete; an interactive back applied with no finger (after
 * a deferral) is rolled back at once. Every step is reported through
 * `swipe` with the keys of navguard_qt6.h's reference. */
class SwipeDriver {
public:
    struct Hooks {
        /* Submit a request as the Navigator does (its submitted/deferred
         * signals); returns the status. */
        std::function<ng_status(const ng_request &, ng_request_result *)> submit;
        /* The swipe signal. */
        std::function<void(const QVariantMap &)> swipe;
        /* swiping() changed. */
        std::function<void()> swipingChanged;
        /* NavGuard's state may have changed (the Navigator's properties). */
        std::function<void()> changed;
    };
    /* `owner` (the Navigator) parents the edge and the settle animation;
     * `stack` poses the pages; both outlive the driver. */
    SwipeDriver(QObject *owner, StackBinding &stack, Hooks hooks);
    ~SwipeDriver();

    void setContext(ng_context *ctx) { m_ctx = ctx; }
    void setFilter(InputFilter *filter) { m_filter = filter; }
    qreal edgeWidth() const { return m_edgeWidth; }
    void setEdgeWidth(qreal width);
    int settleDuration() const { return m_settleMs; }
    void setSettleDuration(int ms) { m_settleMs = ms < 0 ? 0 : ms; }
    bool active() const { return m_swipe.active; }
    /* Stop a settle in flight (the context goes). */
    void stop();

    /* The edge over `view`'s left edge, made now if there is none (from QML
     * text: the DragHandler's class is private). Returns the new item, whose
     * began(int pointId, real pressX, real x), moved(real x) and
     * ended(real x) the owner connects to begin(), move() and end();
     * nullptr when none was made. */
    QQuickItem *ensureEdge(QQuickItem *view);
    void setEdgeHeight(qreal height);
    /* The edge shows while a swipe could start (`depth` above 1) or runs. */
    void updateEdge(int depth);

    /* The edge's drag: it began (Qt point `pointId`, pressed at scene x
     * `pressX`, now at `x`), moved, ended. */
    void begin(int pointId, double pressX, double x);
    void move(double x);
    void end(double x);

    /* NavGuard's interactive back will show (the pages start to follow). */
    void will(const ng_transition_event *e);
    /* Its did-show (`finished`) or cancel: the pages land or go back. */
    void ended(bool finished);
    /* NavGuard cancelled `touch`: when it drives the swipe, it springs back. */
    void touchCancelled(uint64_t touch);

private:
    struct Swipe {
        bool active = false;       /* NavGuard's interactive back is ours */
        bool dragging = false;     /* the finger drives it */
        bool settling = false;
        uint64_t request = 0;
        uint64_t touch = 0;
        qreal x0 = 0;
        qreal releaseSpeed = 0;    /* px/s at release */
        qreal offset = 0;
        bool finish = false;
        SwipeVelocity velocity;    /* the finger's recent positions */
    };
    void release(bool touchCancelled);
    void settle();
    void settled();
    qreal width() const;

    QObject *m_owner;
    StackBinding &m_stack;
    Hooks m_hooks;
    ng_context *m_ctx = nullptr;
    InputFilter *m_filter = nullptr;
    QPointer<QQuickItem> m_edge;
    qreal m_edgeWidth = 24;
    int m_settleMs = 300;
    Swipe m_swipe;
    QVariantAnimation *m_settle = nullptr;
};

} // namespace detail
} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_SWIPEDRIVER_H */
