/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6_swipe.h — the swipe back's parts of the Qt 6 adapter's
 * Navigator (navguard_qt6.h): how the pages are posed as the finger moves
 * (SwipePose) and how fast the finger went when it let go (SwipeVelocity).
 * Included by navguard_qt6.h; compile navguard_qt6_swipe.cpp with the
 * adapter's other sources. GUI thread only. Not part of the adapter's API:
 * these types may change with it.
 */
#ifndef NAVGUARD_QT6_SWIPE_H
#define NAVGUARD_QT6_SWIPE_H

#include <QtCore/QByteArray>
#include <QtCore/QElapsedTimer>
#include <QtCore/QPointer>
#include <QtCore/QVector>
#include <QtQuick/QQuickItem>

namespace navguard {
namespace qt6 {
namespace detail {

/* The pages of a swipe back, posed as StackView's pop would pose them:
 * every numeric property an animation of a transition (popEnter for the page
 * below, popExit for the top page) moves on a page is a track, set to
 * from + (to - from) * its share of the swipe's progress (navguard_qt6.h,
 * "StackView has no interactive pop").
 * Invariant: a track's `saved` is its property's value from before the swipe
 * (a property two animations move keeps the value from before both), so
 * restore() puts every page back exactly. */
class SwipePose {
public:
    /* Add the tracks `transition` (a Transition, a group or one animation)
     * gives `item` over the whole pop; `skipX` leaves its x alone (the top
     * page's x is the finger's). */
    void collect(QObject *transition, QQuickItem *item, bool skipX) { collect(transition, item, skipX, 0, 1); }
    /* Every track at `progress` (0..1) of the pop. */
    void pose(qreal progress) const;
    /* `item`'s tracks where the pop ends. */
    void land(const QQuickItem *item) const;
    /* Every page back to its values from before the swipe. */
    void restore() const;
    /* After StackView popped: `below` where the pop ends, `top` (which
     * StackView may keep) back to its own values, its x 0. */
    void popped(QQuickItem *top, const QQuickItem *below) const;
    bool isEmpty() const { return m_tracks.isEmpty(); }
    void clear() { m_tracks.clear(); }

private:
    struct Track {
        QPointer<QQuickItem> item;
        QByteArray property;
        qreal from, to, saved;      /* saved: the value before the swipe */
        qreal begin, end;           /* its share [begin, end] of the pop */
    };
    void collect(QObject *animation, QQuickItem *item, bool skipX, qreal begin, qreal end);

    QVector<Track> m_tracks;
};

/* The finger's speed at release, from its recent positions.
 * Invariant: at most kSamples positions are kept, the newest last, each
 * stamped on one clock started by start(). */
class SwipeVelocity {
public:
    /* Forget every position; times count from now. */
    void start();
    /* The finger is at `x` (scene px) now. */
    void add(qreal x);
    /* px/s, positive to the right, over at least the last 80 ms: from the
     * newest position at least 80 ms old (else the oldest kept) to now. A
     * finger held still before letting go has no speed. */
    double velocity() const;

private:
    static constexpr int kSamples = 16;
    QElapsedTimer m_clock;
    int m_count = 0;               /* positions added since start() */
    qint64 m_ms[kSamples] = {};
    qreal m_x[kSamples] = {};
};

} // namespace detail
} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_SWIPE_H */
