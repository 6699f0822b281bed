/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6_signals.h — the maps the Qt 6 adapter's Navigator signals
 * carry (navguard_qt6.h, "The signals' reference"), built in this one place
 * from NavGuard's C structs. Included by navguard_qt6.h; compile
 * navguard_qt6_signals.cpp with the adapter's other sources. Not part of the
 * adapter's API: it may change with it.
 *
 * Invariant: each builder sets every key the reference lists for its signal,
 * every time (null where a value has none); ids become JavaScript numbers
 * (exact below 2^53); names are navguard.h's lowercase names.
 * Thread rule: pure functions of their arguments, any thread (the Navigator
 * calls them on the GUI thread, from the delegate).
 */
#ifndef NAVGUARD_QT6_SIGNALS_H
#define NAVGUARD_QT6_SIGNALS_H

#include <navguard/navguard.h>

#include <QtCore/QString>
#include <QtCore/QVariant>

namespace navguard {
namespace qt6 {
namespace detail {

/* An id as QML reads it (a double). */
inline QVariant idValue(uint64_t id) { return QVariant(static_cast<double>(id)); }
/* A C string, or null. */
inline QVariant nameOrNull(const char *s) { return s ? QVariant(QString::fromUtf8(s)) : QVariant(); }
/* A status by its C name ("NG_OK", "NG_E_NOT_FOUND"). */
QString statusName(ng_status st);

/* outcome, applied, refused, dropped. */
QVariantMap outcomeMap(const ng_outcome *o);
/* submitted, deferred: the request `rq` as ng_request_submit answered it. */
QVariantMap submittedMap(const ng_request &rq, const ng_request_result &res);
/* transition (the screen track): `fromRoute`, `toRoute` as the registry
 * names them. */
QVariantMap transitionMap(const ng_transition_event *e, const QString &fromRoute, const QString &toRoute);
/* holdEnded. */
QVariantMap holdMap(const ng_hold_info *h);
/* touchCancelled: `routed`, the input filter cancelled it in Qt. */
QVariantMap touchCancelMap(const ng_touch_info *t, bool routed);
/* question, questionEnded: `route`, the screen's route. */
QVariantMap questionMap(const ng_question *q, const QString &route);
/* swipe: every key, with the values of `event`'s call (`st`, its error text
 * from `ctx`); the caller sets the step's own values. */
QVariantMap swipeMap(const char *event, uint64_t request, ng_status st, ng_context *ctx, uint64_t touch);

} // namespace detail
} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_SIGNALS_H */
