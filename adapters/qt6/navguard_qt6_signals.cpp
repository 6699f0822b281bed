// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_signals.cpp — the Navigator signals' maps (see
 * navguard_qt6_signals.h; their reference is navguard_qt6.h's).
 */
#include "navguard_qt6_signals.h"

#include <QtCore/QStringList>

namespace navguard {
namespace qt6 {
namespace detail {

QString statusName(ng_status st) {
    switch (st) {
#define NAVGUARD_QT6_STATUS_NAME(code, text) case code: return QStringLiteral(#code);
        NG_STATUS_MAP(NAVGUARD_QT6_STATUS_NAME)
#undef NAVGUARD_QT6_STATUS_NAME
    default: return QStringLiteral("unknown");
    }
}

QVariantMap outcomeMap(const ng_outcome *o) {
    QVariantMap m;
    m[QStringLiteral("id")] = idValue(o->request_id);
    m[QStringLiteral("kind")] = QString::fromUtf8(ng_request_kind_name(o->kind));
    m[QStringLiteral("outcome")] = QString::fromUtf8(ng_outcome_name(o->outcome));
    m[QStringLiteral("reason")] = QString::fromUtf8(ng_reason_name(o->reason));
    m[QStringLiteral("guard")] = nameOrNull(o->guard_id);
    m[QStringLiteral("source")] = o->source;
    m[QStringLiteral("message")] = nameOrNull(o->message);
    return m;
}

QVariantMap submittedMap(const ng_request &rq, const ng_request_result &res) {
    QVariantMap d;
    d[QStringLiteral("id")] = idValue(res.request_id);
    d[QStringLiteral("kind")] = QString::fromUtf8(ng_request_kind_name(rq.kind));
    d[QStringLiteral("status")] = QString::fromUtf8(ng_outcome_name(res.status));
    d[QStringLiteral("reason")] = QString::fromUtf8(ng_reason_name(res.reason));
    d[QStringLiteral("guard")] = nameOrNull(res.guard_id);
    d[QStringLiteral("source")] = rq.source;
    return d;
}

QVariantMap transitionMap(const ng_transition_event *e, const QString &fromRoute, const QString &toRoute) {
    QStringList flags;
    if (e->flags & NG_TRANSF_ANIMATED) flags << QStringLiteral("animated");
    if (e->flags & NG_TRANSF_INTERACTIVE) flags << QStringLiteral("interactive");
    if (e->flags & NG_TRANSF_INTERRUPTED) flags << QStringLiteral("interrupted");
    if (e->flags & NG_TRANSF_FORCED) flags << QStringLiteral("forced");
    if (e->flags & NG_TRANSF_TOUCH_DRIVEN) flags << QStringLiteral("touch-driven");
    QVariantMap m;
    m[QStringLiteral("track")] = QString::fromUtf8(ng_track_name(e->track));
    m[QStringLiteral("phase")] = QString::fromUtf8(ng_phase_name(e->phase));
    m[QStringLiteral("kind")] = QString::fromUtf8(ng_request_kind_name(e->kind));
    m[QStringLiteral("id")] = idValue(e->request_id);
    m[QStringLiteral("from")] = idValue(e->from_id);
    m[QStringLiteral("to")] = idValue(e->to_id);
    m[QStringLiteral("fromRoute")] = e->from_id ? QVariant(fromRoute) : QVariant();
    m[QStringLiteral("toRoute")] = e->to_id ? QVariant(toRoute) : QVariant();
    m[QStringLiteral("flags")] = flags;
    return m;
}

QVariantMap holdMap(const ng_hold_info *h) {
    QVariantMap m;
    m[QStringLiteral("token")] = idValue(h->token);
    m[QStringLiteral("label")] = nameOrNull(h->label);
    m[QStringLiteral("mask")] = h->mask;
    m[QStringLiteral("reason")] = QString::fromUtf8(ng_hold_end_reason_name(h->reason));
    m[QStringLiteral("ms")] = static_cast<double>(h->ended_ns - h->began_ns) / 1e6;
    return m;
}

QVariantMap touchCancelMap(const ng_touch_info *t, bool routed) {
    QVariantMap m;
    m[QStringLiteral("touch")] = idValue(t->touch_id);
    m[QStringLiteral("mouse")] = t->touch_id == NG_MOUSE_TOUCH_ID;
    m[QStringLiteral("view")] = idValue(t->view_id);
    m[QStringLiteral("routed")] = routed;
    return m;
}

QVariantMap questionMap(const ng_question *q, const QString &route) {
    QVariantMap m;
    m[QStringLiteral("id")] = idValue(q->question_id);
    m[QStringLiteral("topic")] = nameOrNull(q->topic);
    m[QStringLiteral("text")] = nameOrNull(q->text);
    m[QStringLiteral("guard")] = nameOrNull(q->guard_id);
    m[QStringLiteral("requestId")] = idValue(q->request_id);
    m[QStringLiteral("kind")] = QString::fromUtf8(ng_request_kind_name(q->kind));
    m[QStringLiteral("source")] = q->source;
    m[QStringLiteral("screenId")] = idValue(q->screen_id);
    m[QStringLiteral("route")] = q->screen_id ? QVariant(route) : QVariant();
    m[QStringLiteral("timeoutMs")] =
        q->deadline_ns == NG_NO_DEADLINE ? QVariant() : QVariant(static_cast<double>(q->deadline_ns - q->asked_ns) / 1e6);
    return m;
}

QVariantMap swipeMap(const char *event, uint64_t request, ng_status st, ng_context *ctx, uint64_t touch) {
    QVariantMap m;
    m[QStringLiteral("event")] = QString::fromLatin1(event);
    m[QStringLiteral("request")] = idValue(request);
    m[QStringLiteral("ok")] = st == NG_OK;
    m[QStringLiteral("status")] = statusName(st);
    m[QStringLiteral("error")] = st == NG_OK ? QString()
                                             : QStringLiteral("%1 (%2)").arg(QString::fromUtf8(ng_strstatus(st)),
                                                                             QString::fromUtf8(ctx ? ng_errmsg(ctx) : "no context"));
    m[QStringLiteral("outcome")] = QString();
    m[QStringLiteral("reason")] = QString();
    m[QStringLiteral("guard")] = QVariant();
    m[QStringLiteral("touch")] = idValue(touch);
    m[QStringLiteral("mouse")] = touch == NG_MOUSE_TOUCH_ID;
    m[QStringLiteral("progress")] = 0.0;
    m[QStringLiteral("velocity")] = 0.0;
    m[QStringLiteral("finish")] = false;
    m[QStringLiteral("touchCancelled")] = false;
    return m;
}

} // namespace detail
} // namespace qt6
} // namespace navguard
