/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6_screens.h — the Qt 6 adapter's screen registry: what the
 * Navigator (navguard_qt6.h) knows of each screen id it gave out, its route
 * and its page's properties, for StackView (which builds the page) and for
 * the signals (which name the route). Included by navguard_qt6.h; compile
 * navguard_qt6_screens.cpp with the adapter's other sources. Not part of the
 * adapter's API: it may change with it.
 *
 * Thread rule: every member may be called from any thread (post() makes
 * screens on the posting thread); one mutex guards the records.
 */
#ifndef NAVGUARD_QT6_SCREENS_H
#define NAVGUARD_QT6_SCREENS_H

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QString>
#include <QtCore/QVariant>
#include <QtCore/QVector>

#include <atomic>
#include <cstdint>

namespace navguard {
namespace qt6 {
namespace detail {

/* A screen or question id from JavaScript (a number): the integer it is, in
 * 1..2^53 (navguard_qt6.h's kMaxScreenId), else 0 (a fraction, a negative
 * number, NaN or infinity would make the cast to an integer undefined; above
 * 2^53 numbers skip integers). */
uint64_t idFromJs(double value);

/* Screen id -> route and page properties.
 * Invariants: ids count up from 1 and are never reused; a record lives while
 * its screen is stacked or shown, or while the push (or replace-stack) that
 * brought it is undecided, and goes once that push is decided unapplied or
 * the screen left both stacks (prune). A push decided before it was tracked
 * (its outcome came during the submit, or on the GUI thread before the
 * posting thread tracked it) waits as an orphan until trackPush. */
class ScreenRegistry {
public:
    /* The next screen id (1, 2, ...). */
    uint64_t newId() { return m_next.fetch_add(1, std::memory_order_relaxed); }
    void remember(uint64_t id, const QString &route, const QVariantMap &properties);
    void forget(uint64_t id);
    /* The route of `id` ("" when it has no record). */
    QString route(uint64_t id) const;
    /* The page properties of `id` (empty when it has no record). */
    QVariantMap properties(uint64_t id) const;
    /* `screens` are the ones the push or replace-stack `request` brings. */
    void trackPush(uint64_t request, const QVector<uint64_t> &screens);
    /* That request's outcome: not applied forgets its screens. */
    void pushDecided(uint64_t request, bool applied);
    /* Keep only the records of `stacked` (NavGuard's stack), `shown`
     * (StackView's) and of undecided pushes. */
    void prune(const QVector<uint64_t> &stacked, const QVector<uint64_t> &shown);

private:
    struct Record {
        QString route;
        QVariantMap properties;
    };
    mutable QMutex m_mu;
    QHash<uint64_t, Record> m_screens;
    QHash<uint64_t, QVector<uint64_t>> m_pushes; /* undecided push / replace-stack -> its screens */
    QHash<uint64_t, bool> m_orphans;             /* decided before tracked -> applied */
    std::atomic<uint64_t> m_next{ 1 };
};

} // namespace detail
} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_SCREENS_H */
