// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_swipedriver.cpp — the swipe back driver (see
 * navguard_qt6_swipedriver.h).
 */
#include "navguard_qt6_swipedriver.h"
#include "navguard_qt6.h"
#include "navguard_qt6_signals.h"
#include "navguard_qt6_stack.h"

#include <QtCore/QVariantAnimation>
#include <QtQml/QQmlComponent>
#include <QtQml/QQmlContext>
#include <QtQml/QQmlEngine>
#include <QtQml/qqml.h>

#include <algorithm>
#include <cmath>

namespace navguard {
namespace qt6 {
namespace detail {

namespace {

/* A released swipe finishes past half way, or flung faster than this. */
constexpr double kFlingPxPerS = 800.0;

/* The edge: an Item over StackView's left edge with a DragHandler. */
const char kEdgeQml[] = R"QML(
import QtQuick
Item {
    id: edge
    signal began(int pointId, real pressX, real x)
    signal moved(real x)
    signal ended(real x)
    property real lastX: 0
    DragHandler {
        target: null
        yAxis.enabled: false
        onActiveChanged: {
            if (active) {
                edge.lastX = centroid.scenePosition.x
                edge.began(centroid.id, centroid.scenePressPosition.x, centroid.scenePosition.x)
            } else {
                edge.ended(edge.lastX)
            }
        }
        onCentroidChanged: {
            if (active) {
                edge.lastX = centroid.scenePosition.x
                edge.moved(edge.lastX)
            }
        }
    }
}
)QML";

} // namespace

SwipeDriver::SwipeDriver(QObject *owner, StackBinding &stack, Hooks hooks)
    : m_owner(owner), m_stack(stack), m_hooks(std::move(hooks)) {}

SwipeDriver::~SwipeDriver() { stop(); }

void SwipeDriver::stop() {
    if (m_settle) m_settle->stop();
}

qreal SwipeDriver::width() const { return m_stack.view() ? m_stack.view()->width() : 0; }

void SwipeDriver::setEdgeWidth(qreal width) {
    m_edgeWidth = width < 0 ? 0 : width;
    if (m_edge) m_edge->setWidth(m_edgeWidth);
}

void SwipeDriver::setEdgeHeight(qreal height) {
    if (m_edge) m_edge->setHeight(height);
}

void SwipeDriver::updateEdge(int depth) {
    if (m_edge) m_edge->setVisible(m_edgeWidth > 0 && (depth > 1 || m_swipe.active));
}

QQuickItem *SwipeDriver::ensureEdge(QQuickItem *view) {
    if (m_edge || !view) return nullptr;
    QQmlEngine *engine = qmlEngine(view);
    if (!engine) return nullptr;
    QQmlComponent component(engine);
    component.setData(kEdgeQml, QUrl());
    QObject *o = component.create(qmlContext(view));
    auto *edge = qobject_cast<QQuickItem *>(o);
    if (!edge) {
        qWarning("NavGuard: the swipe-back edge did not load: %s", qPrintable(component.errorString()));
        delete o;
        return nullptr;
    }
    edge->setParent(m_owner);
    edge->setParentItem(view);
    edge->setObjectName(QStringLiteral("navguard-edge"));
    edge->setZ(1e6);
    edge->setWidth(m_edgeWidth);
    edge->setHeight(view->height());
    m_edge = edge;
    return edge;
}

void SwipeDriver::begin(int pointId, double pressX, double x) {
    if (!m_ctx || m_swipe.active || !m_filter) return;
    uint64_t touch = m_filter->touchIdOf(pointId);
    if (touch == 0) return;
    ng_request rq = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    rq.flags = NG_REQF_ANIMATED | NG_REQF_TOUCH_DRIVEN;
    rq.driving_touch = touch;
    m_swipe.dragging = true;
    m_swipe.touch = touch;
    m_swipe.x0 = pressX;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    /* An applied request shows at once: will() runs inside the submit. */
    ng_status st = m_hooks.submit(rq, &res);
    if (!m_swipe.active) m_swipe = Swipe{};
    QVariantMap m = swipeMap("begin", res.request_id, st, m_ctx, touch);
    if (st == NG_OK) {
        m[QStringLiteral("outcome")] = QString::fromUtf8(ng_outcome_name(res.status));
        m[QStringLiteral("reason")] = QString::fromUtf8(ng_reason_name(res.reason));
        m[QStringLiteral("guard")] = nameOrNull(res.guard_id);
    }
    m_hooks.swipe(m);
    if (m_swipe.active && m_swipe.dragging) {
        m_swipe.velocity.start();
        move(x);
    }
}

void SwipeDriver::move(double x) {
    if (!m_swipe.active || !m_swipe.dragging || !m_stack.view()) return;
    qreal w = width();
    /* The finger's recent positions, for its speed when it lets go. */
    m_swipe.velocity.add(x);
    m_swipe.offset = std::clamp(x - m_swipe.x0, 0.0, w);
    m_stack.poseSwipe(m_swipe.offset);
    if (w > 0) ng_interactive_update(m_ctx, m_swipe.offset / w);
}

void SwipeDriver::end(double x) {
    if (!m_swipe.active || !m_swipe.dragging) return;
    move(x);
    release(false);
}

void SwipeDriver::touchCancelled(uint64_t touch) {
    if (m_swipe.dragging && m_swipe.touch == touch) release(true);
}

void SwipeDriver::will(const ng_transition_event *e) {
    m_swipe.active = true;
    m_swipe.request = e->request_id;
    m_swipe.settling = false;
    m_swipe.offset = 0;
    m_stack.beginSwipe();
    m_hooks.swipingChanged();
    if (!m_swipe.dragging) {
        /* An interactive back nobody drives (applied after a deferral):
         * roll it back. */
        ng_interactive_release(m_ctx, false);
        m_swipe.finish = false;
        settle();
    }
}

void SwipeDriver::release(bool touchCancelled) {
    qreal w = width();
    double progress = w > 0 ? m_swipe.offset / w : 0;
    double v = touchCancelled ? 0 : m_swipe.velocity.velocity();
    m_swipe.releaseSpeed = v;
    bool finish = !touchCancelled && (progress > 0.5 || v > kFlingPxPerS);
    m_swipe.dragging = false;
    m_swipe.finish = finish;
    ng_status st = ng_interactive_release(m_ctx, finish);
    QVariantMap m = swipeMap("release", m_swipe.request, st, m_ctx, m_swipe.touch);
    m[QStringLiteral("progress")] = progress;
    m[QStringLiteral("velocity")] = v;
    m[QStringLiteral("finish")] = finish;
    m[QStringLiteral("touchCancelled")] = touchCancelled;
    m_hooks.swipe(m);
    if (st == NG_E_NOT_FOUND) {
        /* It already ended (the watchdog): put the pages back. */
        ended(false);
        return;
    }
    settle();
}

void SwipeDriver::settle() {
    qreal w = width();
    qreal to = m_swipe.finish ? w : 0;
    qreal remaining = std::abs(to - m_swipe.offset);
    double ms = w > 0 ? (m_swipe.finish ? 1.0 : 1.25) * m_settleMs * remaining / w : 0;
    if (m_swipe.finish && m_swipe.releaseSpeed > 0) {
        double fling = 1500.0 * remaining / m_swipe.releaseSpeed; /* lands at about its own speed */
        if (fling < ms) ms = fling;
    }
    m_swipe.settling = true;
    if (!m_settle) {
        m_settle = new QVariantAnimation(m_owner);
        QObject::connect(m_settle, &QVariantAnimation::valueChanged, m_owner, [this](const QVariant &v) {
            m_swipe.offset = v.toReal();
            m_stack.poseSwipe(m_swipe.offset);
        });
        QObject::connect(m_settle, &QVariantAnimation::finished, m_owner, [this] { settled(); });
    }
    m_settle->stop();
    m_settle->setStartValue(m_swipe.offset);
    m_settle->setEndValue(to);
    m_settle->setDuration(static_cast<int>(ms < 60 ? 60 : ms));
    m_settle->setEasingCurve(m_swipe.finish ? QEasingCurve::OutCubic : QEasingCurve::InOutQuad);
    m_settle->start();
}

/* The page settled: the swipe is complete (NavGuard's did-show or cancel
 * follows inside ng_interactive_complete, and ends it). */
void SwipeDriver::settled() {
    if (!m_swipe.active || !m_ctx) return;
    uint64_t id = m_swipe.request, touch = m_swipe.touch;
    bool finish = m_swipe.finish;
    qreal w = width();
    double progress = w > 0 ? m_swipe.offset / w : 0;
    ng_status st = ng_interactive_complete(m_ctx);
    QVariantMap m = swipeMap("complete", id, st, m_ctx, touch);
    m[QStringLiteral("progress")] = progress;
    m[QStringLiteral("finish")] = finish;
    m_hooks.swipe(m);
    if (st != NG_OK) ended(false);
    m_hooks.changed();
}

void SwipeDriver::ended(bool finished) {
    if (!m_swipe.active) return;
    if (m_settle) m_settle->stop();
    m_swipe = Swipe{};
    m_stack.endSwipe(finished);
    m_hooks.swipingChanged();
}

} // namespace detail
} // namespace qt6
} // namespace navguard
