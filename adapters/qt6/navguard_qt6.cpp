// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6.cpp — NavGuard's Qt 6 adapter (see navguard_qt6.h).
 *
 * Compile this file into the host program with AUTOMOC on; it uses only
 * navguard.h and Qt's public API (Core, Gui, Qml, Quick).
 */
#include "navguard_qt6.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QMetaObject>
#include <QtCore/QMetaProperty>
#include <QtCore/QSet>
#include <QtCore/QVarLengthArray>
#include <QtCore/QVariantAnimation>
#include <QtGui/QEventPoint>
#include <QtGui/QGuiApplication>
#include <QtGui/QInputDevice>
#include <QtGui/QKeyEvent>
#include <QtGui/QMouseEvent>
#include <QtGui/QPointingDevice>
#include <QtGui/QTouchEvent>
#include <QtGui/QWheelEvent>
#include <QtQml/QJSEngine>
#include <QtQml/QQmlComponent>
#include <QtQml/QQmlContext>
#include <QtQml/QQmlEngine>
#include <QtQml/QQmlListReference>
#include <QtQml/qqml.h>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>

#include <algorithm>
#include <cmath>
#include <memory>

namespace navguard {
namespace qt6 {

namespace {

constexpr int64_t kNsPerMs = 1000000;

/* StackView's Operation and LoadBehavior values (QtQuick.Controls; the C++
 * type is private, so the adapter calls it through QML). */
constexpr int kImmediate = 0;
constexpr int kPushTransition = 1;
constexpr int kReplaceTransition = 2;
constexpr int kPopTransition = 3;
constexpr int kForceLoad = 1;

/* A released swipe finishes past half way, or flung faster than this. */
constexpr double kFlingPxPerS = 800.0;

QVariant idValue(uint64_t id) { return QVariant(static_cast<double>(id)); }

QVariant nameOrNull(const char *s) { return s ? QVariant(QString::fromUtf8(s)) : QVariant(); }

/* A status by its C name ("NG_OK", "NG_E_NOT_FOUND"): the swipe signal's
 * `status`, one format for every call it reports. */
QString statusName(ng_status st) {
    switch (st) {
#define NAVGUARD_QT6_STATUS_NAME(code, text) case code: return QStringLiteral(#code);
        NG_STATUS_MAP(NAVGUARD_QT6_STATUS_NAME)
#undef NAVGUARD_QT6_STATUS_NAME
    default: return QStringLiteral("unknown");
    }
}

/* A screen id from JavaScript (a number): an integer in 1..2^53, else 0
 * (a fraction, a negative number, NaN or infinity would make the cast to
 * an integer undefined; above 2^53 numbers skip integers). */
uint64_t jsId(double v) {
    if (!(v >= 1 && v <= static_cast<double>(kMaxScreenId)) || v != std::floor(v)) return 0;
    return static_cast<uint64_t>(v);
}

/* Every Navigator alive (GUI thread), for Navigator::find. */
QVector<Navigator *> &navigators() {
    static QVector<Navigator *> all;
    return all;
}

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

/* ======================================================================== */
/* Navigator                                                                */
/* ======================================================================== */

Navigator::Navigator(QObject *parent)
    : QObject(parent) {
    navigators().append(this);
    m_deadline.setSingleShot(true);
    m_deadline.setTimerType(Qt::PreciseTimer);
    connect(&m_deadline, &QTimer::timeout, this, &Navigator::tick);
}

Navigator::~Navigator() {
    navigators().removeOne(this);
    m_destroying = true;
    if (m_settle) m_settle->stop();
    if (m_filter) m_filter->attach(nullptr);
    if (m_ctx) ng_context_destroy(m_ctx);
    m_ctx = nullptr;
}

bool Navigator::setError(ng_status st, const char *call) {
    if (st == NG_OK) return false;
    m_error = QStringLiteral("%1: %2 (%3)")
                  .arg(QString::fromUtf8(call), QString::fromUtf8(ng_strstatus(st)),
                       QString::fromUtf8(m_ctx ? ng_errmsg(m_ctx) : "no context"));
    qWarning("NavGuard: %s", qPrintable(m_error));
    return true;
}

/* --- properties --------------------------------------------------------------- */

void Navigator::setStackView(QQuickItem *view) {
    if (m_stackView == view) return;
    if (m_stackView) disconnect(m_stackView, nullptr, this, nullptr);
    m_stackView = view;
    if (view) {
        /* busyChanged() is StackView's: connected by name (its class is private). */
        connect(view, SIGNAL(busyChanged()), this, SLOT(onStackBusy()));
        connect(view, &QQuickItem::windowChanged, this, [this](QQuickWindow *w) {
            if (m_filter) m_filter->attach(w);
        });
        connect(view, &QQuickItem::heightChanged, this, [this] {
            if (m_edge && m_stackView) m_edge->setHeight(m_stackView->height());
        });
        if (m_filter) m_filter->attach(view->window());
    }
    Q_EMIT stackViewChanged();
}

void Navigator::setRoutes(const QVariantMap &routes) {
    m_routes = routes;
    Q_EMIT routesChanged();
}
void Navigator::setInitialRoute(const QString &route) {
    m_initialRoute = route;
    Q_EMIT initialRouteChanged();
}
void Navigator::setInitialProperties(const QVariantMap &properties) {
    m_initialProperties = properties;
    Q_EMIT initialRouteChanged();
}
void Navigator::setGuarded(bool on) {
    if (m_ctx) qWarning("NavGuard: Navigator.guarded is read when the context is created; it is already");
    m_guarded = on;
    Q_EMIT configChanged();
}
void Navigator::setChainConfig(const QString &json) {
    if (m_ctx) qWarning("NavGuard: Navigator.chainConfig is read when the context is created; it is already");
    m_chainConfig = json;
    Q_EMIT configChanged();
}
void Navigator::setRecordPath(const QString &path) {
    if (m_ctx) qWarning("NavGuard: Navigator.recordPath is read when the context is created; it is already");
    m_recordPath = path;
    Q_EMIT configChanged();
}
void Navigator::setEdgeWidth(qreal width) {
    m_edgeWidth = width < 0 ? 0 : width;
    if (m_edge) m_edge->setWidth(m_edgeWidth);
    updateState();
    Q_EMIT edgeWidthChanged();
}
void Navigator::setSettleDuration(int ms) {
    m_settleMs = ms < 0 ? 0 : ms;
    Q_EMIT settleDurationChanged();
}
QVariantList Navigator::backKeys() const { return m_backKeys.list(); }
void Navigator::setBackKeys(const QVariantList &keys) {
    if (m_backKeys.set(keys)) Q_EMIT backKeysChanged();
}

/* --- lookup from C++ ------------------------------------------------------------ */

Navigator *Navigator::find(QQmlEngine *engine, const QString &objectName) {
    Navigator *found = nullptr;
    for (Navigator *nav : std::as_const(navigators())) {
        if (engine && qmlEngine(nav) != engine) continue;
        if (!objectName.isEmpty() && nav->objectName() != objectName) continue;
        if (found) return nullptr; /* several: the caller must name one */
        found = nav;
    }
    return found;
}

void Navigator::componentComplete() { create(); }

/* --- creation ------------------------------------------------------------------- */

ng_status Navigator::create() {
    if (m_ctx) return NG_OK;
    if (m_initialRoute.isEmpty()) {
        m_error = QStringLiteral("Navigator: initialRoute is not set");
        qWarning("NavGuard: %s", qPrintable(m_error));
        return NG_E_STATE;
    }
    ng_options o = NG_OPTIONS_INIT;
    o.delegate.user = this;
    o.delegate.on_outcome = &Navigator::cbOutcome;
    o.delegate.on_transition = &Navigator::cbTransition;
    o.delegate.on_hold_end = &Navigator::cbHoldEnd;
    o.delegate.on_report = &Navigator::cbReport;
    o.delegate.on_log = &Navigator::cbLog;
    o.delegate.on_touch_cancel = &Navigator::cbTouchCancel;
    o.delegate.on_question = &Navigator::cbQuestion;
    o.delegate.on_question_end = &Navigator::cbQuestionEnd;
    o.delegate.on_wake = &Navigator::cbWake;
    o.delegate.on_deadline = &Navigator::cbDeadline;
    ng_context *ctx = nullptr;
    ng_status st = ng_context_create(&o, &ctx);
    if (setError(st, "ng_context_create")) return st;
    m_ctx = ctx;
    /* A context that is not what was asked for (no recording, no chain) is
     * not kept: the navigator stays not ready, error() says why. */
    auto fail = [this](ng_status status, const char *call) {
        setError(status, call);
        m_destroying = true;
        ng_context_destroy(m_ctx);
        m_ctx = nullptr;
        m_destroying = false;
        return status;
    };
    if (!m_recordPath.isEmpty()) {
        /* First, so that the trace holds the whole session and replays. */
        QByteArray path = m_recordPath.toUtf8();
        ng_record_options ro = NG_RECORD_OPTIONS_INIT;
        ro.path = path.constData();
        st = ng_record_start(m_ctx, &ro);
        if (st != NG_OK) return fail(st, "ng_record_start");
    }
    if (!m_chainConfig.isEmpty()) {
        QByteArray json = m_chainConfig.toUtf8();
        st = ng_chain_configure(m_ctx, json.constData());
    } else if (m_guarded) {
        st = ng_chain_configure(m_ctx, nullptr);
    }
    if (st != NG_OK) return fail(st, "ng_chain_configure");

    uint64_t id = newScreenId();
    rememberScreen(id, m_initialRoute, m_initialProperties);
    QByteArray route = m_initialRoute.toUtf8();
    ng_screen root = { id, route.constData(), route.constData() };
    st = ng_stack_set_root(m_ctx, &root);
    if (st != NG_OK) return fail(st, "ng_stack_set_root");

    m_filter = new InputFilter(m_ctx, this);
    m_filter->setKeyHook([this](QKeyEvent *e) { return backKey(e); });
    if (m_stackView) m_filter->attach(m_stackView->window());
    reconcile(false);
    ensureEdge();
    Q_EMIT readyChanged();
    updateState();
    return NG_OK;
}

/* --- requests ------------------------------------------------------------------- */

void Navigator::rememberScreen(uint64_t id, const QString &route, const QVariantMap &properties) {
    QMutexLocker lock(&m_screensMu);
    m_screens.insert(id, ScreenRec{ route, properties });
}

QString Navigator::routeOf(double screenId) const {
    uint64_t id = jsId(screenId);
    if (!id) return QString();
    QMutexLocker lock(&m_screensMu);
    auto it = m_screens.constFind(id);
    return it == m_screens.constEnd() ? QString() : it->route;
}

bool Navigator::applyOptions(ng_request &rq, const QVariantMap &options) {
    rq.flags = options.value(QStringLiteral("animated"), true).toBool() ? NG_REQF_ANIMATED : 0u;
    rq.source = options.value(QStringLiteral("source"), 0).toUInt();
    if (options.value(QStringLiteral("scoped")).toBool()) {
        rq.from_screen = currentScreenId();
    } else if (options.contains(QStringLiteral("fromScreen"))) {
        QVariant v = options.value(QStringLiteral("fromScreen"));
        rq.from_screen = jsId(v.toDouble());
        if (!rq.from_screen && !(v.isNull() || v.toDouble() == 0)) {
            m_error = QStringLiteral("Navigator: fromScreen %1 is not a screen id (an integer in 1..2^53)")
                          .arg(v.toString());
            qWarning("NavGuard: %s", qPrintable(m_error));
            return false;
        }
    }
    if (rq.kind == NG_REQ_PUSH && options.value(QStringLiteral("confirmLeave")).toBool())
        rq.screen_flags |= NG_SCREENF_CONFIRM_LEAVE;
    return true;
}

double Navigator::request(ng_request rq, const QVariantMap &options, const QVariantMap &properties) {
    if (!applyOptions(rq, options)) return 0;
    QByteArray route, identity;
    if (rq.kind == NG_REQ_PUSH) {
        route = rq.screen.route ? QByteArray(rq.screen.route) : QByteArray();
        QString ident = options.value(QStringLiteral("identity")).toString();
        identity = ident.isEmpty() ? route : ident.toUtf8();
        rq.screen.route = route.constData();
        rq.screen.identity = identity.constData();
    }
    return submit(rq, properties);
}

double Navigator::submit(ng_request rq, const QVariantMap &properties) {
    if (!m_ctx) {
        m_error = QStringLiteral("Navigator: no context yet (create() or componentComplete)");
        return 0;
    }
    /* Every id must come back exact from QML (a double). */
    bool idsOk = rq.from_screen <= kMaxScreenId && rq.target_id <= kMaxScreenId &&
                 (rq.kind != NG_REQ_PUSH || rq.screen.id <= kMaxScreenId);
    for (size_t i = 0; rq.kind == NG_REQ_REPLACE_STACK && rq.screens && i < rq.screen_count; i++)
        idsOk &= rq.screens[i].id <= kMaxScreenId;
    if (!idsOk) {
        m_error = QStringLiteral("Navigator.submit: a screen id above 2^53 (QML could not read it exactly)");
        qWarning("NavGuard: %s", qPrintable(m_error));
        return 0;
    }
    if (rq.kind == NG_REQ_PUSH) {
        if (rq.screen.id == 0) rq.screen.id = newScreenId();
        rememberScreen(rq.screen.id, QString::fromUtf8(rq.screen.route ? rq.screen.route : ""), properties);
    }
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    QVector<uint64_t> screens;
    if (!submitRequest(rq, &res)) {
        if (rq.kind == NG_REQ_PUSH) forgetScreen(rq.screen.id);
        for (size_t i = 0; rq.kind == NG_REQ_REPLACE_STACK && i < rq.screen_count; i++) forgetScreen(rq.screens[i].id);
        return 0;
    }
    if (rq.kind == NG_REQ_PUSH) trackPush(res.request_id, { rq.screen.id });
    if (rq.kind == NG_REQ_REPLACE_STACK)
        for (size_t i = 0; i < rq.screen_count; i++) screens.append(rq.screens[i].id);
    if (!screens.isEmpty()) trackPush(res.request_id, screens);
    return static_cast<double>(res.request_id);
}

/* Screen records (route, page properties) live while their screen is stacked
 * or its push is undecided. A push's outcome may come before trackPush (during
 * the submit, or on the GUI thread before a posting thread gets there): it is
 * kept as an orphan until its push is tracked. */
void Navigator::trackPush(uint64_t request, const QVector<uint64_t> &screens) {
    QMutexLocker lock(&m_screensMu);
    auto orphan = m_orphans.find(request);
    if (orphan == m_orphans.end()) {
        m_pushes.insert(request, screens);
        return;
    }
    if (!orphan.value()) /* decided, not applied */
        for (uint64_t id : screens) m_screens.remove(id);
    m_orphans.erase(orphan);
}

void Navigator::pushDecided(uint64_t request, bool applied) {
    QMutexLocker lock(&m_screensMu);
    auto push = m_pushes.find(request);
    if (push == m_pushes.end()) {
        m_orphans.insert(request, applied);
        return;
    }
    if (!applied)
        for (uint64_t id : push.value()) m_screens.remove(id);
    m_pushes.erase(push);
}

void Navigator::forgetScreen(uint64_t screen) {
    QMutexLocker lock(&m_screensMu);
    m_screens.remove(screen);
}

/* After a transition: the records of screens that left the stack go. */
void Navigator::pruneScreens() {
    QVector<uint64_t> stacked = navStack();
    QMutexLocker lock(&m_screensMu);
    QSet<uint64_t> keep(stacked.cbegin(), stacked.cend());
    for (uint64_t id : m_mirror) keep.insert(id);
    for (const QVector<uint64_t> &ids : std::as_const(m_pushes))
        for (uint64_t id : ids) keep.insert(id);
    for (auto it = m_screens.begin(); it != m_screens.end();) {
        if (keep.contains(it.key())) ++it;
        else it = m_screens.erase(it);
    }
}

bool Navigator::submitRequest(const ng_request &rq, ng_request_result *res) {
    ng_status st = ng_request_submit(m_ctx, &rq, res);
    m_lastStatus = st;
    if (setError(st, "ng_request_submit")) return false;
    QVariantMap d;
    d[QStringLiteral("id")] = idValue(res->request_id);
    d[QStringLiteral("kind")] = QString::fromUtf8(ng_request_kind_name(rq.kind));
    d[QStringLiteral("status")] = QString::fromUtf8(ng_outcome_name(res->status));
    d[QStringLiteral("reason")] = QString::fromUtf8(ng_reason_name(res->reason));
    d[QStringLiteral("guard")] = nameOrNull(res->guard_id);
    d[QStringLiteral("source")] = rq.source;
    Q_EMIT submitted(d);
    if (res->status == NG_OUTCOME_DEFERRED || res->status == NG_OUTCOME_QUEUED) Q_EMIT deferred(d);
    updateState();
    return true;
}

double Navigator::push(const QString &route, const QVariantMap &properties, const QVariantMap &options) {
    if (!m_routes.contains(route)) {
        m_error = QStringLiteral("Navigator.push: no route '%1' in routes").arg(route);
        qWarning("NavGuard: %s", qPrintable(m_error));
        return 0;
    }
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    QByteArray r = route.toUtf8();
    rq.screen.route = r.constData();
    return request(rq, options, properties);
}

double Navigator::back(const QVariantMap &options) { return request(NG_REQUEST_INIT(NG_REQ_BACK), options); }
double Navigator::pop(const QVariantMap &options) { return request(NG_REQUEST_INIT(NG_REQ_POP), options); }
double Navigator::popToRoot(const QVariantMap &options) {
    return request(NG_REQUEST_INIT(NG_REQ_POP_TO_ROOT), options);
}
double Navigator::popTo(double screenId, const QVariantMap &options) {
    ng_request rq = NG_REQUEST_INIT(NG_REQ_POP_TO);
    rq.target_id = jsId(screenId);
    if (!rq.target_id) {
        m_error = QStringLiteral("Navigator.popTo: %1 is not a screen id (an integer in 1..2^53)").arg(screenId);
        qWarning("NavGuard: %s", qPrintable(m_error));
        return 0;
    }
    return request(rq, options);
}

double Navigator::replaceStack(const QVariantList &screens, const QVariantMap &options) {
    ng_request rq = NG_REQUEST_INIT(NG_REQ_REPLACE_STACK);
    if (!applyOptions(rq, options)) return 0;
    QVector<ng_screen> list;
    QVector<QByteArray> strings;
    strings.reserve(screens.size() * 2);
    for (const QVariant &v : screens) {
        QVariantMap s = v.toMap();
        QString route = s.value(QStringLiteral("route")).toString();
        if (!m_routes.contains(route)) {
            m_error = QStringLiteral("Navigator.replaceStack: no route '%1' in routes").arg(route);
            qWarning("NavGuard: %s", qPrintable(m_error));
            return 0;
        }
        QString ident = s.value(QStringLiteral("identity")).toString();
        strings.append(route.toUtf8());
        const char *r = strings.last().constData();
        strings.append(ident.isEmpty() ? route.toUtf8() : ident.toUtf8());
        uint64_t id = newScreenId();
        rememberScreen(id, route, s.value(QStringLiteral("properties")).toMap());
        list.append(ng_screen{ id, r, strings.last().constData() });
    }
    rq.screens = list.constData();
    rq.screen_count = static_cast<size_t>(list.size());
    return submit(rq);
}

ng_status Navigator::post(const PostRequest &p, uint64_t *out_id) {
    ng_context *ctx = m_ctx;
    if (!ctx) return NG_E_STATE;
    if (p.fromScreen > kMaxScreenId) return NG_E_RANGE; /* not a screen id QML could read */
    ng_request rq = NG_REQUEST_INIT(p.kind);
    rq.flags = p.animated ? NG_REQF_ANIMATED : 0u;
    rq.source = p.source;
    rq.from_screen = p.fromScreen;
    rq.screen_flags = p.screenFlags;
    QByteArray route = p.route.toUtf8();
    QByteArray identity = p.identity.isEmpty() ? route : p.identity.toUtf8();
    uint64_t screen = 0;
    if (p.kind == NG_REQ_PUSH) {
        screen = newScreenId();
        rq.screen.id = screen;
        rq.screen.route = route.constData();
        rq.screen.identity = identity.constData();
        rememberScreen(screen, p.route, p.properties);
    }
    /* The context's on_wake wakes the GUI loop (cbWake). */
    uint64_t id = 0;
    ng_status st = ng_request_post(ctx, &rq, &id);
    if (out_id) *out_id = st == NG_OK ? id : 0;
    if (screen) {
        if (st != NG_OK) forgetScreen(screen);
        else trackPush(id, { screen });
    }
    return st;
}

bool Navigator::answer(double questionId, bool yes) {
    if (!m_ctx) return false;
    /* Question ids are below 2^53 like request ids; anything else is none. */
    uint64_t id = jsId(questionId);
    ng_status st = id ? ng_question_answer(m_ctx, id, yes ? NG_ANSWER_YES : NG_ANSWER_NO) : NG_E_NOT_FOUND;
    /* NG_E_NOT_FOUND: it timed out or was withdrawn meanwhile (harmless). */
    if (st == NG_E_NOT_FOUND) {
        m_error = QStringLiteral("Navigator.answer: question %1 is no longer open").arg(questionId);
        return false;
    }
    updateState();
    return !setError(st, "ng_question_answer");
}

bool Navigator::setConfirmLeave(double screenId, bool on) {
    if (!m_ctx) return false;
    uint64_t id = jsId(screenId);
    if (!id) {
        m_error = QStringLiteral("Navigator.setConfirmLeave: %1 is not a screen id (an integer in 1..2^53)").arg(screenId);
        return false;
    }
    uint32_t flags = 0;
    size_t n = 0;
    ng_stack_count(m_ctx, &n);
    for (size_t i = 0; i < n; i++) {
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        if (ng_stack_get(m_ctx, i, &s) == NG_OK && s.id == id) flags = s.flags;
    }
    flags = on ? (flags | NG_SCREENF_CONFIRM_LEAVE) : (flags & ~NG_SCREENF_CONFIRM_LEAVE);
    return !setError(ng_screen_set_flags(m_ctx, id, flags), "ng_screen_set_flags");
}

/* --- the loop: ticks and the deadline timer ---------------------------------------- */

void Navigator::scheduleTick() {
    if (!m_tickQueued.exchange(true)) QMetaObject::invokeMethod(this, "tick", Qt::QueuedConnection);
}

void Navigator::tick() {
    m_tickQueued.store(false);
    if (!m_ctx || m_destroying) return;
    ng_tick(m_ctx);
    updateState();
}

/* The one timer, armed for NavGuard's next deadline (on_deadline). */
void Navigator::armDeadline(int64_t deadline) {
    if (!m_ctx || m_destroying) return;
    int64_t now = 0;
    if (deadline == NG_NO_DEADLINE || ng_now(m_ctx, &now) != NG_OK) {
        m_deadline.stop();
        return;
    }
    int64_t ns = deadline - now;
    /* Rounded up: the deadline has passed when the timer fires. */
    int64_t ms = ns <= 0 ? 0 : (ns - 1) / kNsPerMs + 1;
    m_deadline.start(static_cast<int>(ms > INT32_MAX ? INT32_MAX : ms));
}

/* --- delegate --------------------------------------------------------------------- */

void Navigator::cbOutcome(void *user, ng_context *, const ng_outcome *o) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    QVariantMap m;
    m[QStringLiteral("id")] = idValue(o->request_id);
    m[QStringLiteral("kind")] = QString::fromUtf8(ng_request_kind_name(o->kind));
    m[QStringLiteral("outcome")] = QString::fromUtf8(ng_outcome_name(o->outcome));
    m[QStringLiteral("reason")] = QString::fromUtf8(ng_reason_name(o->reason));
    m[QStringLiteral("guard")] = nameOrNull(o->guard_id);
    m[QStringLiteral("source")] = o->source;
    m[QStringLiteral("message")] = nameOrNull(o->message);
    if (o->kind == NG_REQ_PUSH || o->kind == NG_REQ_REPLACE_STACK)
        self->pushDecided(o->request_id, o->outcome == NG_OUTCOME_APPLIED);
    Q_EMIT self->outcome(m);
    if (o->outcome == NG_OUTCOME_APPLIED) Q_EMIT self->applied(m);
    else if (o->outcome == NG_OUTCOME_REFUSED) Q_EMIT self->refused(m);
    else Q_EMIT self->dropped(m);
}

void Navigator::cbTransition(void *user, ng_context *, const ng_transition_event *e) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    self->onTransition(e);
}

void Navigator::cbHoldEnd(void *user, ng_context *, const ng_hold_info *h) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    QVariantMap m;
    m[QStringLiteral("token")] = idValue(h->token);
    m[QStringLiteral("label")] = nameOrNull(h->label);
    m[QStringLiteral("mask")] = h->mask;
    m[QStringLiteral("reason")] = QString::fromUtf8(ng_hold_end_reason_name(h->reason));
    m[QStringLiteral("ms")] = static_cast<double>(h->ended_ns - h->began_ns) / 1e6;
    Q_EMIT self->holdEnded(m);
}

void Navigator::cbReport(void *user, ng_context *, const char *guard, const char *text) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    Q_EMIT self->report(QString::fromUtf8(guard ? guard : ""), QString::fromUtf8(text ? text : ""));
}

void Navigator::cbLog(void *user, ng_context *, int32_t severity, const char *guard, const char *message) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    Q_EMIT self->logMessage(severity, QString::fromUtf8(guard ? guard : ""), QString::fromUtf8(message ? message : ""));
}

void Navigator::cbTouchCancel(void *user, ng_context *, const ng_touch_info *t) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_swipe.dragging && self->m_swipe.touch == t->touch_id && !self->m_destroying)
        self->swipeRelease(true);
    bool routed = self->m_filter && self->m_filter->routeTouchCancel(t);
    if (self->m_destroying) return;
    QVariantMap m;
    m[QStringLiteral("touch")] = idValue(t->touch_id);
    m[QStringLiteral("mouse")] = t->touch_id == kMouseTouchId;
    m[QStringLiteral("view")] = idValue(t->view_id);
    m[QStringLiteral("routed")] = routed;
    Q_EMIT self->touchCancelled(m);
}

/* [any-thread] A post left work for the GUI thread: tick there, soon. */
void Navigator::cbWake(void *user, ng_context *) { static_cast<Navigator *>(user)->scheduleTick(); }

void Navigator::cbDeadline(void *user, ng_context *, int64_t deadline) {
    static_cast<Navigator *>(user)->armDeadline(deadline);
}

QVariantMap Navigator::questionMap(const ng_question *q) const {
    QVariantMap m;
    m[QStringLiteral("id")] = idValue(q->question_id);
    m[QStringLiteral("topic")] = nameOrNull(q->topic);
    m[QStringLiteral("text")] = nameOrNull(q->text);
    m[QStringLiteral("guard")] = nameOrNull(q->guard_id);
    m[QStringLiteral("requestId")] = idValue(q->request_id);
    m[QStringLiteral("kind")] = QString::fromUtf8(ng_request_kind_name(q->kind));
    m[QStringLiteral("source")] = q->source;
    m[QStringLiteral("screenId")] = idValue(q->screen_id);
    m[QStringLiteral("route")] = q->screen_id ? QVariant(routeOf(static_cast<double>(q->screen_id))) : QVariant();
    m[QStringLiteral("timeoutMs")] =
        q->deadline_ns == NG_NO_DEADLINE ? QVariant() : QVariant(static_cast<double>(q->deadline_ns - q->asked_ns) / 1e6);
    return m;
}

void Navigator::cbQuestion(void *user, ng_context *, const ng_question *q) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    Q_EMIT self->question(self->questionMap(q));
}

void Navigator::cbQuestionEnd(void *user, ng_context *, const ng_question *q, ng_answer answer) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    Q_EMIT self->questionEnded(self->questionMap(q), QString::fromUtf8(ng_answer_name(answer)));
}

void Navigator::onTransition(const ng_transition_event *e) {
    const char *flagNames[5];
    int nf = 0;
    if (e->flags & NG_TRANSF_ANIMATED) flagNames[nf++] = "animated";
    if (e->flags & NG_TRANSF_INTERACTIVE) flagNames[nf++] = "interactive";
    if (e->flags & NG_TRANSF_INTERRUPTED) flagNames[nf++] = "interrupted";
    if (e->flags & NG_TRANSF_FORCED) flagNames[nf++] = "forced";
    if (e->flags & NG_TRANSF_TOUCH_DRIVEN) flagNames[nf++] = "touch-driven";
    QStringList flags;
    for (int i = 0; i < nf; i++) flags << QString::fromUtf8(flagNames[i]);

    if (e->track == NG_TRACK_SCREEN) {
        bool interactive = (e->flags & NG_TRANSF_INTERACTIVE) != 0;
        if (e->phase == NG_PHASE_WILL) {
            if (interactive) swipeWill(e);
            else schedule(e->request_id, (e->flags & NG_TRANSF_ANIMATED) != 0);
        } else if (interactive) {
            /* The page was moved by the finger: StackView pops at once. */
            swipeEnd(e->phase == NG_PHASE_DID);
            if (e->phase == NG_PHASE_DID) schedule(e->request_id, false);
        }
    }
    /* Only the screen track means something in Qt (StackView); the bar
     * track is UIKit's navigation bar, which a Qt window does not have. */
    if (e->track != NG_TRACK_SCREEN) {
        updateState();
        return;
    }
    QVariantMap m;
    m[QStringLiteral("track")] = QString::fromUtf8(ng_track_name(e->track));
    m[QStringLiteral("phase")] = QString::fromUtf8(ng_phase_name(e->phase));
    m[QStringLiteral("kind")] = QString::fromUtf8(ng_request_kind_name(e->kind));
    m[QStringLiteral("id")] = idValue(e->request_id);
    m[QStringLiteral("from")] = idValue(e->from_id);
    m[QStringLiteral("to")] = idValue(e->to_id);
    m[QStringLiteral("fromRoute")] = e->from_id ? QVariant(routeOf(static_cast<double>(e->from_id))) : QVariant();
    m[QStringLiteral("toRoute")] = e->to_id ? QVariant(routeOf(static_cast<double>(e->to_id))) : QVariant();
    m[QStringLiteral("flags")] = flags;
    Q_EMIT transition(m);
    if (e->track == NG_TRACK_SCREEN && e->phase != NG_PHASE_WILL) pruneScreens();
    updateState();
}

/* --- StackView binding -------------------------------------------------------------- */

QVector<uint64_t> Navigator::navStack() const {
    QVector<uint64_t> ids;
    size_t n = 0;
    if (!m_ctx || ng_stack_count(m_ctx, &n) != NG_OK) return ids;
    ids.reserve(static_cast<int>(n));
    for (size_t i = 0; i < n; i++) {
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        if (ng_stack_get(m_ctx, i, &s) == NG_OK) ids.append(s.id);
    }
    return ids;
}

int Navigator::depth() const { return navStack().size(); }

uint64_t Navigator::currentScreenId() const {
    QVector<uint64_t> s = navStack();
    return s.isEmpty() ? 0 : s.last();
}

double Navigator::currentScreen() const { return static_cast<double>(currentScreenId()); }

QString Navigator::currentRoute() const { return routeOf(currentScreen()); }

QStringList Navigator::routeStack() const {
    QStringList routes;
    for (uint64_t id : navStack()) routes << routeOf(static_cast<double>(id));
    return routes;
}

/* A StackView change for the transition `request`. StackView changes its
 * stack inside its own signal handlers and page constructors, where another
 * push re-enters it ("cannot push while already in the process of completing
 * a push"): every change is applied one event-loop turn later, in order, so
 * none ever runs inside StackView, a page's construction or a NavGuard
 * callback. */
void Navigator::schedule(uint64_t request, bool animated) {
    m_pending.append(Pending{ request, animated });
    if (m_flushQueued) return;
    m_flushQueued = true;
    QMetaObject::invokeMethod(this, &Navigator::flush, Qt::QueuedConnection);
}

void Navigator::flush() {
    m_flushQueued = false;
    if (m_pending.isEmpty()) return;
    /* The changes made meanwhile are applied as one, towards NavGuard's
     * stack as it is now; animated if the last one was. */
    Pending last = m_pending.last();
    m_pending.clear();
    reconcile(last.animated);
    if (!m_swipeDone.isEmpty() || m_swipeDoneTop) {
        /* A finished swipe's pages, once StackView popped (see swipeEnd). */
        SwipePose done = std::move(m_swipeDone);
        m_swipeDone.clear();
        done.popped(m_swipeDoneTop, m_swipeDoneBelow);
        m_swipeDoneTop = nullptr;
        m_swipeDoneBelow = nullptr;
    }
    QMetaObject::invokeMethod(this, &Navigator::finishIfSettled, Qt::QueuedConnection);
}

QJSValue Navigator::jsStack() const {
    QQmlEngine *engine = m_stackView ? qmlEngine(m_stackView) : nullptr;
    return engine ? engine->newQObject(m_stackView.data()) : QJSValue();
}

QJSValue Navigator::jsPage(uint64_t screenId) const {
    QQmlEngine *engine = qmlEngine(m_stackView);
    QVariant page = m_routes.value(routeOf(static_cast<double>(screenId)));
    if (QObject *component = page.value<QObject *>()) return engine->newQObject(component);
    return engine->toScriptValue(page);
}

QQuickItem *Navigator::stackItem(int index) const {
    QJSValue sv = jsStack();
    QJSValue item = sv.property(QStringLiteral("get")).callWithInstance(sv, { index, kForceLoad });
    return qobject_cast<QQuickItem *>(item.toQObject());
}

/* Make StackView show NavGuard's stack: a push, a pop or a replace of what
 * differs above their common bottom. */
void Navigator::reconcile(bool animated) {
    if (!m_stackView || !m_ctx) return;
    QQmlEngine *engine = qmlEngine(m_stackView);
    if (!engine) {
        qWarning("NavGuard: Navigator.stackView has no QML engine: it must be a QML StackView");
        return;
    }
    QVector<uint64_t> target = navStack();
    if (target == m_mirror || target.isEmpty()) return;
    int k = 0;
    while (k < target.size() && k < m_mirror.size() && target[k] == m_mirror[k]) k++;

    auto pages = [&](int from) {
        QJSValue arr = engine->newArray(static_cast<uint>((target.size() - from) * 2));
        quint32 j = 0;
        for (int i = from; i < target.size(); i++) {
            QVariantMap props;
            {
                QMutexLocker lock(&m_screensMu);
                props = m_screens.value(target[i]).properties;
            }
            arr.setProperty(j++, jsPage(target[i]));
            arr.setProperty(j++, engine->toScriptValue(props));
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
        QJSValue item = engine->newQObject(stackItem(k - 1));
        result = sv.property(QStringLiteral("pop")).callWithInstance(
            sv, { item, animated ? kPopTransition : kImmediate });
    } else {
        /* Everything from index k up is replaced. */
        QJSValue from = k == 0 ? QJSValue(QJSValue::NullValue) : engine->newQObject(stackItem(k));
        result = sv.property(QStringLiteral("replace")).callWithInstance(
            sv, { from, pages(k), animated ? kReplaceTransition : kImmediate });
    }
    if (result.isError())
        qWarning("NavGuard: StackView: %s", qPrintable(result.toString()));
    m_mirror = target;
}

void Navigator::onStackBusy() {
    if (!m_stackView || m_stackView->property("busy").toBool()) return;
    if (m_finishQueued) return;
    m_finishQueued = true;
    QMetaObject::invokeMethod(this, &Navigator::finishIfSettled, Qt::QueuedConnection);
}

/* StackView's transition ended: NavGuard's transition in flight ends too
 * (did-show), unless a change is still waiting or a swipe owns it. */
void Navigator::finishIfSettled() {
    m_finishQueued = false;
    if (!m_ctx || !m_stackView || !m_pending.isEmpty() || m_flushQueued) return;
    if (m_stackView->property("busy").toBool()) return;
    ng_track_info t = NG_TRACK_INFO_INIT;
    if (ng_track_get(m_ctx, NG_TRACK_SCREEN, &t) != NG_OK) return;
    if (t.flags & NG_TRANSF_INTERACTIVE) return;
    ng_transition_finish(m_ctx, NG_TRACK_ALL);
    updateState();
}

void Navigator::updateState() {
    if (!m_ctx || m_destroying) return;
    bool busy = false;
    ng_transition_in_flight(m_ctx, NG_TRACK_SCREEN, &busy, nullptr);
    if (busy != m_busy) {
        m_busy = busy;
        Q_EMIT busyChanged();
    }
    QVector<uint64_t> s = navStack();
    if (m_edge) m_edge->setVisible(m_edgeWidth > 0 && (s.size() > 1 || m_swipe.active));
    if (s != m_lastStack) {
        m_lastStack = s;
        Q_EMIT stackChanged();
    }
}

/* --- swipe-back ---------------------------------------------------------------------- */

/* The edge: an Item over StackView's left edge with a DragHandler, made from
 * QML text (the handler's class is private). */
static const char kEdgeQml[] = R"QML(
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

/* The pages at the swipe's progress: the top page at the finger, every
 * track at its share of the pop. */
void Navigator::swipePose() {
    qreal w = m_stackView ? m_stackView->width() : 0;
    qreal p = w > 0 ? std::clamp(m_swipe.offset / w, 0.0, 1.0) : 0;
    if (m_swipe.top) m_swipe.top->setX(m_swipe.offset);
    m_swipe.pose.pose(p);
}

void Navigator::ensureEdge() {
    if (m_edge || !m_stackView) return;
    QQmlEngine *engine = qmlEngine(m_stackView);
    if (!engine) return;
    QQmlComponent component(engine);
    component.setData(kEdgeQml, QUrl());
    QObject *o = component.create(qmlContext(m_stackView));
    auto *edge = qobject_cast<QQuickItem *>(o);
    if (!edge) {
        qWarning("NavGuard: the swipe-back edge did not load: %s", qPrintable(component.errorString()));
        delete o;
        return;
    }
    edge->setParent(this);
    edge->setParentItem(m_stackView);
    edge->setObjectName(QStringLiteral("navguard-edge"));
    edge->setZ(1e6);
    edge->setWidth(m_edgeWidth);
    edge->setHeight(m_stackView->height());
    m_edge = edge;
    connect(edge, SIGNAL(began(int, double, double)), this, SLOT(edgeBegan(int, double, double)));
    connect(edge, SIGNAL(moved(double)), this, SLOT(edgeMoved(double)));
    connect(edge, SIGNAL(ended(double)), this, SLOT(edgeEnded(double)));
    updateState();
}

void Navigator::edgeBegan(int pointId, double pressX, double x) {
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
    bool ok = submitRequest(rq, &res);
    if (!m_swipe.active) m_swipe = Swipe{};
    QVariantMap m = swipeEvent("begin", res.request_id, ok ? NG_OK : m_lastStatus, touch);
    if (ok) {
        m[QStringLiteral("outcome")] = QString::fromUtf8(ng_outcome_name(res.status));
        m[QStringLiteral("reason")] = QString::fromUtf8(ng_reason_name(res.reason));
        m[QStringLiteral("guard")] = nameOrNull(res.guard_id);
    }
    Q_EMIT swipe(m);
    if (m_swipe.active && m_swipe.dragging) {
        m_swipe.velocity.start();
        edgeMoved(x);
    }
}

void Navigator::edgeMoved(double x) {
    if (!m_swipe.active || !m_swipe.dragging || !m_stackView) return;
    qreal w = m_stackView->width();
    m_swipe.x = x;
    /* The finger's recent positions, for its speed when it lets go. */
    m_swipe.velocity.add(x);
    m_swipe.offset = std::clamp(x - m_swipe.x0, 0.0, w);
    swipePose();
    if (w > 0) ng_interactive_update(m_ctx, m_swipe.offset / w);
}

void Navigator::edgeEnded(double x) {
    if (!m_swipe.active || !m_swipe.dragging) return;
    edgeMoved(x);
    swipeRelease(false);
}

/* A swipe signal's map: the same keys for every event (navguard_qt6.h,
 * Navigator::swipe), the event's own values set by the caller. */
QVariantMap Navigator::swipeEvent(const char *event, uint64_t request, ng_status st, uint64_t touch) const {
    QVariantMap m;
    m[QStringLiteral("event")] = QString::fromLatin1(event);
    m[QStringLiteral("request")] = idValue(request);
    m[QStringLiteral("ok")] = st == NG_OK;
    m[QStringLiteral("status")] = statusName(st);
    m[QStringLiteral("error")] = st == NG_OK ? QString()
                                             : QStringLiteral("%1 (%2)").arg(QString::fromUtf8(ng_strstatus(st)),
                                                                             QString::fromUtf8(m_ctx ? ng_errmsg(m_ctx) : "no context"));
    m[QStringLiteral("outcome")] = QString();
    m[QStringLiteral("reason")] = QString();
    m[QStringLiteral("guard")] = QVariant();
    m[QStringLiteral("touch")] = idValue(touch);
    m[QStringLiteral("mouse")] = touch == kMouseTouchId;
    m[QStringLiteral("progress")] = 0.0;
    m[QStringLiteral("velocity")] = 0.0;
    m[QStringLiteral("finish")] = false;
    m[QStringLiteral("touchCancelled")] = false;
    return m;
}

void Navigator::swipeWill(const ng_transition_event *e) {
    m_swipe.active = true;
    m_swipe.request = e->request_id;
    m_swipe.settling = false;
    m_swipe.offset = 0;
    m_swipe.top = m_stackView ? m_stackView->property("currentItem").value<QQuickItem *>() : nullptr;
    int d = m_mirror.size();
    m_swipe.below = d >= 2 ? stackItem(d - 2) : nullptr;
    if (m_swipe.below) {
        /* A page StackView loads only now (pushed in an array, never shown)
         * is its newest child: put it under the page the finger moves. */
        if (m_swipe.top && m_swipe.below->parentItem() == m_swipe.top->parentItem())
            m_swipe.below->stackBefore(m_swipe.top);
        m_swipe.below->setVisible(true);
    }
    /* The pages posed as StackView's pop would pose them (see the header). */
    m_swipe.pose.clear();
    if (m_stackView && m_swipe.below)
        m_swipe.pose.collect(m_stackView->property("popEnter").value<QObject *>(), m_swipe.below, false);
    if (m_stackView && m_swipe.top)
        m_swipe.pose.collect(m_stackView->property("popExit").value<QObject *>(), m_swipe.top, true);
    swipePose();
    Q_EMIT swipingChanged();
    if (!m_swipe.dragging) {
        /* An interactive back nobody drives (applied after a deferral):
         * roll it back. */
        ng_interactive_release(m_ctx, false);
        m_swipe.finish = false;
        swipeSettle();
    }
}

void Navigator::swipeRelease(bool touchCancelled) {
    qreal w = m_stackView ? m_stackView->width() : 0;
    double progress = w > 0 ? m_swipe.offset / w : 0;
    double v = touchCancelled ? 0 : m_swipe.velocity.velocity();
    m_swipe.releaseSpeed = v;
    bool finish = !touchCancelled && (progress > 0.5 || v > kFlingPxPerS);
    m_swipe.dragging = false;
    m_swipe.finish = finish;
    ng_status st = ng_interactive_release(m_ctx, finish);
    QVariantMap m = swipeEvent("release", m_swipe.request, st, m_swipe.touch);
    m[QStringLiteral("progress")] = progress;
    m[QStringLiteral("velocity")] = v;
    m[QStringLiteral("finish")] = finish;
    m[QStringLiteral("touchCancelled")] = touchCancelled;
    Q_EMIT swipe(m);
    if (st == NG_E_NOT_FOUND) {
        /* It already ended (the watchdog): put the pages back. */
        swipeEnd(false);
        return;
    }
    swipeSettle();
}

void Navigator::swipeSettle() {
    qreal w = m_stackView ? m_stackView->width() : 0;
    qreal to = m_swipe.finish ? w : 0;
    qreal remaining = std::abs(to - m_swipe.offset);
    double ms = w > 0 ? (m_swipe.finish ? 1.0 : 1.25) * m_settleMs * remaining / w : 0;
    if (m_swipe.finish && m_swipe.releaseSpeed > 0) {
        double fling = 1500.0 * remaining / m_swipe.releaseSpeed; /* lands at about its own speed */
        if (fling < ms) ms = fling;
    }
    m_swipe.settling = true;
    if (!m_settle) {
        m_settle = new QVariantAnimation(this);
        connect(m_settle, &QVariantAnimation::valueChanged, this, [this](const QVariant &v) {
            m_swipe.offset = v.toReal();
            swipePose();
        });
        connect(m_settle, &QVariantAnimation::finished, this, [this] {
            if (!m_swipe.active || !m_ctx) return;
            uint64_t id = m_swipe.request, touch = m_swipe.touch;
            bool finish = m_swipe.finish;
            qreal w = m_stackView ? m_stackView->width() : 0;
            double progress = w > 0 ? m_swipe.offset / w : 0;
            ng_status st = ng_interactive_complete(m_ctx);
            QVariantMap m = swipeEvent("complete", id, st, touch);
            m[QStringLiteral("progress")] = progress;
            m[QStringLiteral("finish")] = finish;
            Q_EMIT swipe(m);
            if (st != NG_OK) swipeEnd(false);
            updateState();
        });
    }
    m_settle->stop();
    m_settle->setStartValue(m_swipe.offset);
    m_settle->setEndValue(to);
    m_settle->setDuration(static_cast<int>(ms < 60 ? 60 : ms));
    m_settle->setEasingCurve(m_swipe.finish ? QEasingCurve::OutCubic : QEasingCurve::InOutQuad);
    m_settle->start();
}

void Navigator::swipeEnd(bool finished) {
    if (!m_swipe.active) return;
    if (m_settle) m_settle->stop();
    QPointer<QQuickItem> top = m_swipe.top, below = m_swipe.below;
    SwipePose pose = std::move(m_swipe.pose);
    m_swipe = Swipe{};
    if (finished) {
        /* The page below ends where the pop leaves it (the settle ends
         * there too; a swipe ended otherwise jumps there). StackView pops
         * the top (scheduled, no transition); flush() then poses the pages
         * again: that pop sets a PropertyAnimation's `from` on the entering
         * page (Qt 6.4), and the top page, which StackView may keep (a page
         * pushed as an item), gets its own values back. */
        pose.land(below);
        m_swipeDone = pose;
        m_swipeDoneTop = top;
        m_swipeDoneBelow = below;
    } else {
        /* Every page gets its own values back. */
        if (top) top->setX(0);
        pose.restore();
        if (below) below->setVisible(false);
    }
    Q_EMIT swipingChanged();
}

/* --- Back keys ------------------------------------------------------------------------ */

/* [GUI thread] From the filter, for a key NavGuard delivered, before Qt's
 * focus delivery: a key of backKeys sends a guarded Back. */
bool Navigator::backKey(QKeyEvent *ke) {
    if (!m_backKeys.takes(ke, m_filter ? m_filter->window() : nullptr)) return false;
    /* One Back per press; its repeats and release are consumed with it. */
    if (ke->type() == QEvent::KeyPress && !ke->isAutoRepeat())
        back({ { QStringLiteral("source"), ke->key() } });
    return true;
}

/* ======================================================================== */

void registerQmlTypes(const char *uri) { qmlRegisterType<Navigator>(uri, 1, 0, "Navigator"); }

} // namespace qt6
} // namespace navguard

/* The adapter's meta-objects: with CMake's AUTOMOC on, this include makes moc
 * run on navguard_qt6.h even when this file comes from an imported target
 * (NavGuard::qt6); without CMake, run moc on the header yourself (with Qt
 * Quick's include flags: moc $(pkg-config --cflags Qt6Quick) navguard_qt6.h
 * -o moc_navguard_qt6.cpp) and put the result on the include path. */
#include "moc_navguard_qt6.cpp"
