// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_swipe.cpp — the swipe back's pose and speed (see
 * navguard_qt6_swipe.h).
 */
#include "navguard_qt6_swipe.h"

#include <QtCore/QMetaObject>
#include <QtCore/QMetaProperty>
#include <QtCore/QStringList>
#include <QtQml/QQmlListReference>
#include <QtQml/qqml.h>

#include <algorithm>

namespace navguard {
namespace qt6 {
namespace detail {

namespace {

/* The class `cls` of `o`'s chain reads its own property `name`: a
 * NumberAnimation's `from` reads 0 when unset, its PropertyAnimation base's
 * an invalid QVariant. */
QVariant baseProperty(QObject *o, const char *cls, const char *name) {
    for (const QMetaObject *mo = o->metaObject(); mo; mo = mo->superClass()) {
        if (qstrcmp(mo->className(), cls) != 0) continue;
        int i = mo->indexOfProperty(name);
        return i >= 0 ? mo->property(i).read(o) : QVariant();
    }
    return o->property(name);
}

/* An animation's length in ms (a group's: its children's, in sequence or
 * side by side), to share a sequence's progress among its parts. */
int animationMs(QObject *a) {
    if (!a) return 0;
    if (a->inherits("QQuickAnimationGroup")) {
        bool sequence = a->inherits("QQuickSequentialAnimation");
        qmlExecuteDeferred(a);
        QQmlListReference kids(a, "animations");
        int ms = 0;
        for (qsizetype i = 0; i < kids.count(); i++) {
            int k = animationMs(kids.at(i));
            ms = sequence ? ms + k : std::max(ms, k);
        }
        return ms;
    }
    return std::max(0, a->property("duration").toInt());
}

} // namespace

/* The numeric properties `animation` (a transition, a group or one
 * animation) moves on `item`, as tracks over [begin, end] of the pop. */
void SwipePose::collect(QObject *animation, QQuickItem *item, bool skipX, qreal begin, qreal end) {
    if (!animation || !item) return;
    if (animation->inherits("QQuickTransition") || animation->inherits("QQuickAnimationGroup")) {
        /* A Transition's animations are made when it first runs (Qt defers
         * them): make them now. */
        qmlExecuteDeferred(animation);
        bool sequence = animation->inherits("QQuickSequentialAnimation");
        QQmlListReference kids(animation, "animations");
        int total = sequence ? animationMs(animation) : 0;
        qreal at = begin;
        for (qsizetype i = 0; i < kids.count(); i++) {
            QObject *kid = kids.at(i);
            if (!sequence) {
                collect(kid, item, skipX, begin, end);
                continue;
            }
            qreal share = total > 0 ? (end - begin) * animationMs(kid) / total : 0;
            collect(kid, item, skipX, at, at + share);
            at += share;
        }
        return;
    }
    /* An animation of something else than the page does not pose it. */
    QObject *target = animation->property("target").value<QObject *>();
    if (target && target != item) return;
    QStringList properties;
    QVariant from;
    if (animation->inherits("QQuickXAnimator")) properties << QStringLiteral("x");
    else if (animation->inherits("QQuickYAnimator")) properties << QStringLiteral("y");
    else if (animation->inherits("QQuickOpacityAnimator")) properties << QStringLiteral("opacity");
    else if (animation->inherits("QQuickScaleAnimator")) properties << QStringLiteral("scale");
    else if (animation->inherits("QQuickRotationAnimator")) properties << QStringLiteral("rotation");
    if (!properties.isEmpty()) {
        from = animation->property("from");
    } else if (animation->inherits("QQuickPropertyAnimation")) {
        QString names = animation->property("property").toString() + QLatin1Char(',') +
                        animation->property("properties").toString();
        for (const QString &n : names.split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (!n.trimmed().isEmpty()) properties << n.trimmed();
        from = baseProperty(animation, "QQuickPropertyAnimation", "from");
    } else {
        return;
    }
    QVariant to = animation->inherits("QQuickPropertyAnimation")
                      ? baseProperty(animation, "QQuickPropertyAnimation", "to")
                      : animation->property("to");
    if (!to.isValid()) return;
    for (const QString &name : std::as_const(properties)) {
        if (skipX && name == QLatin1String("x")) continue;
        QByteArray prop = name.toUtf8();
        bool ok = false;
        qreal now = item->property(prop.constData()).toReal(&ok);
        if (!ok) continue;
        bool fromOk = false;
        qreal f = from.isValid() ? from.toReal(&fromOk) : now;
        if (from.isValid() && !fromOk) continue;
        /* A property two animations move keeps its value from before both. */
        qreal saved = now;
        for (const Track &t : std::as_const(m_tracks))
            if (t.item == item && t.property == prop) saved = t.saved;
        m_tracks.append(Track{ item, prop, f, to.toReal(), saved, begin, end });
    }
}

void SwipePose::pose(qreal progress) const {
    for (const Track &t : m_tracks) {
        if (!t.item) continue;
        qreal q = t.end > t.begin ? std::clamp((progress - t.begin) / (t.end - t.begin), 0.0, 1.0)
                                  : (progress >= t.end ? 1.0 : 0.0);
        t.item->setProperty(t.property.constData(), t.from + (t.to - t.from) * q);
    }
}

void SwipePose::land(const QQuickItem *item) const {
    for (const Track &t : m_tracks)
        if (t.item && t.item == item) t.item->setProperty(t.property.constData(), t.to);
}

void SwipePose::restore() const {
    for (const Track &t : m_tracks)
        if (t.item) t.item->setProperty(t.property.constData(), t.saved);
}

void SwipePose::popped(QQuickItem *top, const QQuickItem *below) const {
    for (const Track &t : m_tracks) {
        if (!t.item) continue;
        if (t.item == below) t.item->setProperty(t.property.constData(), t.to);
        else if (t.item == top) t.item->setProperty(t.property.constData(), t.saved);
    }
    if (top) top->setX(0);
}

void SwipeVelocity::start() {
    m_clock.start();
    m_count = 0;
}

void SwipeVelocity::add(qreal x) {
    int k = m_count % kSamples;
    m_ms[k] = m_clock.elapsed();
    m_x[k] = x;
    m_count++;
}

double SwipeVelocity::velocity() const {
    int n = m_count < kSamples ? m_count : kSamples;
    if (n < 2) return 0;
    int last = (m_count - 1) % kSamples;
    qint64 t = m_clock.elapsed();
    int ref = (m_count - n) % kSamples;
    for (int i = 1; i < n; i++) {
        int k = (m_count - 1 - i) % kSamples;
        if (m_ms[k] <= t - 80) {
            ref = k;
            break;
        }
    }
    qint64 dt = t - m_ms[ref];
    return dt > 1 ? (m_x[last] - m_x[ref]) * 1000.0 / static_cast<double>(dt) : 0.0;
}

} // namespace detail
} // namespace qt6
} // namespace navguard
