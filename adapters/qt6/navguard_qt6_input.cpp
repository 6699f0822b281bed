// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_input.cpp — the Qt 6 adapter's input filter,
 * navguard::qt6::InputFilter (declared in navguard_qt6.h, its public API):
 * Qt's pointer, key and wheel events to ng_event_submit and back, and
 * NavGuard's touch cancels into Qt's grabs. GUI thread only.
 */
#include "navguard_qt6.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QVarLengthArray>
#include <QtGui/QEventPoint>
#include <QtGui/QGuiApplication>
#include <QtGui/QInputDevice>
#include <QtGui/QKeyEvent>
#include <QtGui/QMouseEvent>
#include <QtGui/QPointingDevice>
#include <QtGui/QTouchEvent>
#include <QtGui/QWheelEvent>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>

#include <memory>

namespace navguard {
namespace qt6 {

namespace {

bool isMouseDevice(const QPointingDevice *dev) {
    return !dev || dev->type() == QInputDevice::DeviceType::Mouse ||
           dev->type() == QInputDevice::DeviceType::TouchPad;
}

} // namespace

/* ======================================================================== */
/* InputFilter                                                              */
/* ======================================================================== */

InputFilter::InputFilter(ng_context *ctx, QObject *parent) : QObject(parent), m_ctx(ctx) {
    for (auto &d : m_devices) d = nullptr;
    connect(qGuiApp, &QGuiApplication::applicationStateChanged, this,
            &InputFilter::onApplicationStateChanged);
}

InputFilter::~InputFilter() { attach(nullptr); }

void InputFilter::attach(QQuickWindow *window) {
    if (m_window == window) return;
    if (m_window) m_window->removeEventFilter(this);
    m_window = window;
    m_watched = window;
    if (window) window->installEventFilter(this);
}

bool InputFilter::submit(ng_event &e, ng_event_result &r) {
    ng_status st = ng_event_submit(m_ctx, &e, &r);
    m_failed = st != NG_OK;
    if (m_failed) {
        /* Fail closed, as every adapter (navguard.h, "Writing an adapter"):
         * NavGuard kept no state for the event, so Qt does not get it. Said
         * once per filter: a destroyed context fails every event. */
        r.verdict = NG_VERDICT_DROP;
        r.reason = NG_REASON_INVALID;
        if (!m_warned) {
            m_warned = true;
            qWarning("NavGuard: ng_event_submit: %s (%s): input is dropped while it fails (adapters fail closed)",
                     ng_strstatus(st), ng_errmsg(m_ctx));
        }
    }
    if (m_observer) m_observer(e, r);
    return r.verdict == NG_VERDICT_DELIVER;
}

/* The end of a touch: submitted like any event; when it cannot be (the
 * submit failed) and Qt had the touch, Qt's grabber is cancelled, so the
 * touch ends once on both sides and nothing stays pressed. */
bool InputFilter::submitEnd(ng_event &e, ng_event_result &r, const Live &l) {
    bool deliver = submit(e, r);
    if (!deliver && m_failed && l.delivered) cancelInQt(l.device, l.point, l.scene);
    return deliver;
}

static inline void touchEvent(ng_event &e, int32_t phase, uint64_t id, QPointF p) {
    e.type = NG_EVENT_TOUCH;
    e.phase = phase;
    e.touch_id = id;
    e.x = p.x();
    e.y = p.y();
}

int InputFilter::liveIndex(uint64_t id) const {
    for (int i = 0; i < m_count; i++)
        if (m_live[i].id == id) return i;
    return -1;
}

void InputFilter::forget(int index) {
    if (index < 0 || index >= m_count) return;
    m_live[index] = m_live[--m_count];
}

uint64_t InputFilter::fingerId(const QPointingDevice *device, int point) {
    int d = 0;
    while (d < m_deviceCount && m_devices[d] != device) d++;
    if (d == m_deviceCount) {
        if (m_deviceCount == kMaxDevices) d = kMaxDevices - 1; /* shares the last slot */
        else m_devices[m_deviceCount++] = device;
    }
    return (static_cast<uint64_t>(d + 1) << 32) | static_cast<uint32_t>(point);
}

uint64_t InputFilter::touchIdOf(int qtPointId, const QPointingDevice *device) const {
    for (int i = m_count - 1; i >= 0; i--)
        if (m_live[i].point == qtPointId && (!device || m_live[i].device == device)) return m_live[i].id;
    return 0;
}

/* --- mouse: the left button is one touch ----------------------------------- */

bool InputFilter::onMouse(QEvent *event) {
    auto *me = static_cast<QMouseEvent *>(event);
    const QPointingDevice *dev = me->pointingDevice();
    /* Mouse events Qt synthesized from touch: their touch points were judged.
     * The last mouse device is remembered (asking its type twice per move
     * showed in the bench); a destroyed device is forgotten. */
    if (dev != m_mouse || !dev) {
        if (!isMouseDevice(dev)) return false;
        if (dev) {
            /* One connection, to the device remembered now (Qt refuses
             * Qt::UniqueConnection for a lambda: it made none). */
            disconnect(m_mouseGone);
            m_mouse = dev;
            m_mouseGone = connect(dev, &QObject::destroyed, this, [this, dev] { if (m_mouse == dev) m_mouse = nullptr; });
        }
    }
    int i = liveIndex(kMouseTouchId);
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    ng_event_result r = NG_EVENT_RESULT_INIT;
    switch (event->type()) {
    case QEvent::MouseMove: {
        if (i >= 0) {
            Live &m = m_live[i];
            m.scene = me->scenePosition();
            if (me->buttons() & Qt::LeftButton) {
                touchEvent(e, NG_TOUCH_MOVED, kMouseTouchId, m.scene);
                return !submit(e, r);
            }
            /* The button is up but its release never came: end the touch. */
            touchEvent(e, NG_TOUCH_CANCELLED, kMouseTouchId, m.scene);
            Live ended = m;
            forget(i);
            return !submitEnd(e, r, ended);
        }
        if (me->buttons() != Qt::NoButton || !m_hover) return false;
        e.type = NG_EVENT_HOVER;
        e.x = me->scenePosition().x();
        e.y = me->scenePosition().y();
        return !submit(e, r);
    }
    case QEvent::MouseButtonPress: {
        if (me->button() != Qt::LeftButton) return false;
        if (i >= 0) {
            /* A press while the touch is live: its release was lost. */
            touchEvent(e, NG_TOUCH_CANCELLED, kMouseTouchId, m_live[i].scene);
            forget(i);
            submit(e, r);
            e = NG_EVENT_INIT(NG_EVENT_TOUCH);
            r = NG_EVENT_RESULT_INIT;
        }
        touchEvent(e, NG_TOUCH_BEGAN, kMouseTouchId, me->scenePosition());
        bool deliver = submit(e, r);
        if (m_count < kMaxTouches) {
            Live &m = m_live[m_count++];
            m.id = kMouseTouchId;
            m.device = dev;
            m.point = me->point(0).id();
            m.scene = me->scenePosition();
            m.delivered = deliver;
            m.dblClickOk = deliver;
        }
        return !deliver;
    }
    case QEvent::MouseButtonDblClick:
        /* No NavGuard phase: it goes with the press it follows, and not
         * after NavGuard cancelled that press. */
        if (me->button() != Qt::LeftButton) return false;
        return !(i >= 0 && m_live[i].dblClickOk);
    case QEvent::MouseButtonRelease: {
        if (me->button() != Qt::LeftButton || i < 0) return false;
        touchEvent(e, NG_TOUCH_ENDED, kMouseTouchId, me->scenePosition());
        Live ended = m_live[i];
        forget(i);
        return !submitEnd(e, r, ended);
    }
    default:
        return false;
    }
}

/* --- touch: a verdict per point ------------------------------------------- */

bool InputFilter::onTouch(QEvent *event) {
    auto *te = static_cast<QTouchEvent *>(event);
    const QPointingDevice *dev = te->pointingDevice();
    const QList<QEventPoint> &points = te->points();
    const qsizetype n = points.size();
    QVarLengthArray<bool, 16> keep(n);
    qsizetype kept = 0;
    for (qsizetype k = 0; k < n; k++) {
        const QEventPoint &pt = points[k];
        uint64_t id = fingerId(dev, pt.id());
        int i = liveIndex(id);
        ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
        ng_event_result r = NG_EVENT_RESULT_INIT;
        bool deliver = true;
        switch (pt.state()) {
        case QEventPoint::State::Pressed:
            if (i >= 0) {
                /* The id is live: its end was lost. */
                touchEvent(e, NG_TOUCH_CANCELLED, id, m_live[i].scene);
                forget(i);
                submit(e, r);
                e = NG_EVENT_INIT(NG_EVENT_TOUCH);
                r = NG_EVENT_RESULT_INIT;
            }
            touchEvent(e, NG_TOUCH_BEGAN, id, pt.scenePosition());
            deliver = submit(e, r);
            if (m_count < kMaxTouches) {
                Live &l = m_live[m_count++];
                l.id = id;
                l.device = dev;
                l.point = pt.id();
                l.scene = pt.scenePosition();
                l.delivered = deliver;
                l.dblClickOk = false;
            }
            break;
        case QEventPoint::State::Updated:
            if (i >= 0) m_live[i].scene = pt.scenePosition();
            touchEvent(e, NG_TOUCH_MOVED, id, pt.scenePosition());
            deliver = submit(e, r);
            break;
        case QEventPoint::State::Released: {
            touchEvent(e, NG_TOUCH_ENDED, id, pt.scenePosition());
            Live ended = i >= 0 ? m_live[i] : Live{ id, dev, pt.id(), pt.scenePosition(), false, false };
            forget(i);
            deliver = submitEnd(e, r, ended);
            break;
        }
        default:
            /* Stationary: not an event of its own; it stays in what Qt sees
             * only while its touch is delivered. */
            deliver = i < 0 || m_live[i].delivered;
            break;
        }
        keep[k] = deliver;
        kept += deliver;
    }
    if (kept == n) return false;
    event->setAccepted(true);
    if (kept == 0) return true;

    /* Some points delivered, some dropped: Qt gets an event with only the
     * delivered ones, typed from what it has seen of this device. */
    QList<QEventPoint> sub;
    sub.reserve(kept);
    bool allPressed = true, allReleased = true;
    for (qsizetype k = 0; k < n; k++) {
        if (!keep[k]) continue;
        sub.append(points[k]);
        allPressed &= points[k].state() == QEventPoint::State::Pressed;
        allReleased &= points[k].state() == QEventPoint::State::Released;
    }
    bool othersLive = false;
    for (int i = 0; i < m_count; i++) {
        if (m_live[i].device != dev || !m_live[i].delivered) continue;
        bool inEvent = false;
        for (qsizetype k = 0; k < n && !inEvent; k++)
            inEvent = keep[k] && fingerId(dev, points[k].id()) == m_live[i].id &&
                      points[k].state() == QEventPoint::State::Pressed;
        othersLive |= !inEvent;
    }
    QEvent::Type type = allPressed && !othersLive ? QEvent::TouchBegin
                      : allReleased && !othersLive ? QEvent::TouchEnd
                                                   : QEvent::TouchUpdate;
    QTouchEvent filtered(type, dev, te->modifiers(), sub);
    filtered.setTimestamp(te->timestamp());
    m_forwarding = true;
    QCoreApplication::sendEvent(m_window, &filtered);
    m_forwarding = false;
    return true;
}

/* --- keys, wheel -------------------------------------------------------------- */

bool InputFilter::onKey(QEvent *event) {
    auto *ke = static_cast<QKeyEvent *>(event);
    if (event->type() == QEvent::KeyRelease && ke->isAutoRepeat()) {
        /* X11's auto-repeat: a release before each repeat. It follows the
         * key's last verdict. */
        if (ke->key() == m_lastKey && !m_lastKeyDelivered) return true;
        return m_keyHook && m_keyHook(ke);
    }
    ng_event e = NG_EVENT_INIT(NG_EVENT_KEY);
    e.phase = event->type() == QEvent::KeyRelease ? NG_KEY_UP : ke->isAutoRepeat() ? NG_KEY_REPEAT : NG_KEY_DOWN;
    e.code = ke->key();
    ng_event_result r = NG_EVENT_RESULT_INIT;
    bool deliver = submit(e, r);
    m_lastKey = ke->key();
    m_lastKeyDelivered = deliver;
    if (!deliver) return true;
    return m_keyHook && m_keyHook(ke);
}

bool InputFilter::onWheel(QEvent *event) {
    if (!m_wheel) return false;
    auto *we = static_cast<QWheelEvent *>(event);
    ng_event e = NG_EVENT_INIT(NG_EVENT_SCROLL);
    QPoint steps = we->angleDelta();
    if (!steps.isNull()) {
        e.x = steps.x() / 120.0; /* in notches, as SDL's wheel */
        e.y = steps.y() / 120.0;
    } else {
        e.x = we->pixelDelta().x();
        e.y = we->pixelDelta().y();
    }
    ng_event_result r = NG_EVENT_RESULT_INIT;
    return !submit(e, r);
}

/* --- the filter ---------------------------------------------------------------- */

bool InputFilter::eventFilter(QObject *watched, QEvent *event) {
    if (watched != m_watched) return false;
    switch (event->type()) {
    case QEvent::MouseMove:
    case QEvent::MouseButtonPress:
    case QEvent::MouseButtonRelease:
    case QEvent::MouseButtonDblClick:
        return onMouse(event);
    case QEvent::TouchBegin:
    case QEvent::TouchUpdate:
    case QEvent::TouchEnd:
        return m_forwarding ? false : onTouch(event);
    case QEvent::TouchCancel: {
        /* Qt cancels every point of the device itself: NavGuard ends them. */
        const QPointingDevice *dev = static_cast<QTouchEvent *>(event)->pointingDevice();
        for (int i = m_count - 1; i >= 0; i--) {
            if (m_live[i].id == kMouseTouchId || m_live[i].device != dev) continue;
            ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
            ng_event_result r = NG_EVENT_RESULT_INIT;
            touchEvent(e, NG_TOUCH_CANCELLED, m_live[i].id, m_live[i].scene);
            forget(i);
            submit(e, r);
        }
        return false;
    }
    case QEvent::KeyPress:
    case QEvent::KeyRelease:
        return onKey(event);
    case QEvent::Wheel:
        return onWheel(event);
    case QEvent::FocusOut:
    case QEvent::Hide:
    case QEvent::WindowDeactivate:
        endTouches();
        return false;
    default:
        return false;
    }
}

void InputFilter::onApplicationStateChanged(Qt::ApplicationState state) {
    if (state != Qt::ApplicationActive) endTouches();
}

int InputFilter::endTouches() {
    int ended = 0;
    while (m_count > 0) {
        Live l = m_live[m_count - 1];
        m_count--;
        ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
        ng_event_result r = NG_EVENT_RESULT_INIT;
        touchEvent(e, NG_TOUCH_CANCELLED, l.id, l.scene);
        submit(e, r);
        if (l.delivered) cancelInQt(l.device, l.point, l.scene);
        ended++;
    }
    return ended;
}

/* --- cancel routing ------------------------------------------------------------ */

bool InputFilter::routeTouchCancel(const ng_touch_info *touch) {
    if (!touch) return false;
    int i = liveIndex(touch->touch_id);
    if (i < 0) return false;
    Live &l = m_live[i];
    /* NavGuard drops its later phases; Qt must forget the press now. The
     * entry stays until Qt ends the point, so its later events keep their id. */
    l.delivered = false;
    l.dblClickOk = false;
    cancelInQt(l.device, l.point, l.scene);
    return true;
}

QQuickItem *InputFilter::cancelSink() {
    if (!m_sink && m_window) {
        /* An item, since Qt Quick treats every exclusive grabber that is not
         * a pointer handler as an item. Hidden and empty: nothing is ever
         * delivered to it. */
        m_sink = new QQuickItem(m_window->contentItem());
        m_sink->setObjectName(QStringLiteral("navguard-cancel-sink"));
        m_sink->setVisible(false);
        m_sink->setEnabled(false);
    }
    return m_sink;
}

void InputFilter::cancelInQt(const QPointingDevice *device, int point, QPointF scene) {
    if (!m_window || !device) return;
    QQuickItem *sink = cancelSink();
    if (!sink) return;
    QPointF global = m_window->mapToGlobal(scene);
    std::unique_ptr<QPointerEvent> ev;
    if (isMouseDevice(device)) {
        ev = std::make_unique<QMouseEvent>(QEvent::MouseMove, scene, scene, global, Qt::NoButton,
                                           Qt::LeftButton, Qt::NoModifier, device);
        if (ev->pointCount() < 1 || ev->point(0).id() != point) return;
    } else {
        QEventPoint pt(point, QEventPoint::State::Stationary, scene, global);
        ev = std::make_unique<QTouchEvent>(QEvent::TouchUpdate, device, Qt::NoModifier,
                                           QList<QEventPoint>{ pt });
    }
    const QEventPoint &p = ev->point(0);
    QPointer<QObject> grabber = ev->exclusiveGrabber(p);
    const QList<QPointer<QObject>> passive = ev->passiveGrabbers(p);
    if (grabber && grabber != sink) {
        /* A new exclusive grabber cancels the old one's grab
         * (CancelGrabExclusive): what Qt does when a Flickable steals it. */
        ev->setExclusiveGrabber(p, sink);
    }
    for (const QPointer<QObject> &g : passive) {
        /* Qt has no cancel for a passive grab: make the handler the
         * exclusive grabber for an instant, then cancel that. */
        if (!g || !g->inherits("QQuickPointerHandler")) continue;
        ev->setExclusiveGrabber(p, g);
        ev->setExclusiveGrabber(p, sink);
    }
    if (!passive.isEmpty()) ev->clearPassiveGrabbers(p);
    if (ev->exclusiveGrabber(p) == sink) ev->setExclusiveGrabber(p, nullptr);
}

} // namespace qt6
} // namespace navguard
