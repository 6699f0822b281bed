/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6.h — NavGuard's Qt 6 adapter (Qt Quick), C++17, Qt 6.4 or later.
 *
 * Compile navguard_qt6*.cpp into your program (the way Dear ImGui ships its
 * backends) with navguard_qt6.h's moc output (CMake's AUTOMOC, or
 * find_package's own moc): it sits on the host side of navguard.h, knows
 * nothing of the library's internals and needs only Qt (Core, Gui, Qml,
 * Quick) and libnavguard. Installed as
 * <prefix>/share/navguard/adapters/qt6/navguard_qt6*.{h,cpp}; with CMake,
 * find_package(NavGuard COMPONENTS qt6) gives NavGuard::qt6, which compiles
 * it into whatever links it. This header is the API; the others hold the
 * Navigator's parts (namespace navguard::qt6::detail, not API), each owning
 * one job, which the Navigator wires: navguard_qt6_stack (the StackView
 * binding), navguard_qt6_swipedriver (the edge's drag as an interactive
 * back) and navguard_qt6_swipe (the pages' pose, the release speed),
 * navguard_qt6_posts (posts, on_wake, the deadline timer),
 * navguard_qt6_screens (screen ids, routes, properties),
 * navguard_qt6_backkeys, navguard_qt6_questions, navguard_qt6_signals (the
 * signals' maps); navguard_qt6_input.cpp is the InputFilter's source.
 *
 * Two parts, usable together (the usual way) or apart:
 *
 *  - navguard::qt6::InputFilter, an event filter on a QQuickWindow: every
 *    pointer, key, wheel and hover event is converted, submitted
 *    (ng_event_submit) and passed on to Qt only when NavGuard delivers it. The
 *    mouse (left button) is one touch; each point of a QTouchEvent gets its
 *    own verdict; keys are NG_EVENT_KEY; the wheel NG_EVENT_SCROLL; mouse
 *    motion with no button NG_EVENT_HOVER. A focus loss, a hidden window or
 *    an application going inactive ends every live touch. NavGuard's
 *    on_touch_cancel is routed into Qt by taking the point's grab away from
 *    the item or handler holding it (routeTouchCancel).
 *
 *  - navguard::qt6::Navigator, a QML type (registerQmlTypes(), then in QML
 *    `import NavGuard` and Navigator { stackView: stack; routes: {...} })
 *    that owns a context with the default guard chain and drives a Qt Quick
 *    Controls StackView: push(route, properties), back(), popToRoot() and the
 *    rest go through NavGuard, each outcome comes back as a signal; StackView
 *    is changed one event-loop turn after screen will-show (so never from
 *    inside its own signals or a page's construction) and
 *    ng_transition_finish is called when its transition ends (busy false);
 *    posts from any thread (post()) wake the GUI loop (the context's
 *    on_wake); one QTimer is armed for NavGuard's next deadline
 *    (on_deadline); replies scoped to the screen they were asked from
 *    (fromScreen) are dropped as stale once the user left it; a screen
 *    pushed with confirmLeave makes every path that would remove it ask the
 *    host first (question / answer()); an edge DragHandler drives an
 *    interactive back with the page following the finger and the page below
 *    posed as StackView's pop would pose it; the keys of backKeys (Escape,
 *    Back, Backspace) send a guarded Back whatever has focus. The Navigator
 *    installs an InputFilter on the StackView's window.
 *
 * Reaching a QML-made Navigator from C++: Navigator::find(engine) after the
 * QML loaded (GUI thread), then post() from any thread. Screen ids are
 * integers in 1..2^53 (kMaxScreenId): QML reads them exactly as numbers, and
 * the Navigator refuses an id it is given that is not one (a fraction, a
 * negative number, NaN, or above 2^53), with error() saying why.
 *
 * Touch ids (ng_event.touch_id): the mouse is NG_MOUSE_TOUCH_ID (navguard.h,
 * all ones, as in every adapter); a finger is
 * (device << 32) | (Qt point id & 0xFFFFFFFF), where device is 1.. in the
 * order the adapter first saw each QPointingDevice. Finger ids stay below
 * 2^53, so QML reads them exactly; the mouse's does not fit a double (QML
 * reads 18446744073709551616), so signals that carry a touch also say
 * `mouse` (true for the mouse).
 *
 * Timestamps: Qt stamps input events on the window system's clock (X server
 * milliseconds on xcb), not on NavGuard's, so the adapter leaves
 * ng_event.timestamp_ns 0 (not known): NavGuard times everything with ng_now.
 *
 * Fail closed, as every adapter (navguard.h, "Writing an adapter", says
 * why): an event ng_event_submit answers with a status (a destroyed context,
 * a wrong thread) is not passed to Qt; the observer sees it as DROP,
 * NG_REASON_INVALID, and the first such failure is a qWarning naming the
 * status. A touch Qt already had is ended in Qt (its grab cancelled) when
 * its release cannot be submitted, so nothing stays pressed.
 *
 * Thread rule: everything runs on the GUI thread that owns the context,
 * except Navigator::post, which any thread may call.
 *
 * What Qt 6.4 cannot express, and what the adapter does instead:
 *  - Cancelling one touch point: Qt has no public per-point cancel, and a
 *    TouchCancel event cancels every point of the device. The adapter hands
 *    the point's exclusive grab to a hidden item of its own
 *    (QPointerEvent::setExclusiveGrabber), which Qt reports to the old
 *    grabber as CancelGrabExclusive (a Button gets its ungrab event and stops
 *    being pressed; a TapHandler or DragHandler emits canceled), then drops
 *    the grab. A handler holding only a passive grab (a TapHandler with the
 *    default gesturePolicy) is cancelled the same way, after being made the
 *    exclusive grabber for that instant: its grabChanged signal sees a
 *    GrabExclusive just before the cancel. Other points keep their grabs.
 *  - A QTouchEvent whose points get different verdicts: the original event
 *    is consumed and a QTouchEvent with only the delivered points (and the
 *    stationary points of delivered touches) is sent to the window in its
 *    place, typed TouchBegin / TouchUpdate / TouchEnd from what Qt has seen
 *    of those points. Only this case allocates.
 *  - A double click has no NavGuard phase: MouseButtonDblClick follows the
 *    verdict of the press it comes with (dropped with it, and after NavGuard
 *    cancelled that press). X11 auto-repeat sends a key release before each
 *    repeat: such a release follows the verdict of the key's last event.
 *  - Shortcuts (QML Shortcut, QAction) are matched by Qt before the window
 *    sees the key: a Shortcut on a key of Navigator.backKeys wins over it
 *    (the key never reaches the window: no Back is sent, and NavGuard does
 *    not see the key). Leave Back keys to backKeys, or take the key out of
 *    backKeys and guard it yourself (its handler calls back()).
 *  - StackView has no interactive pop: during a swipe the Navigator moves
 *    the top page with the finger (x = the finger's distance from where it
 *    pressed) and poses the page below itself, from StackView's own popEnter
 *    transition (the default one or the host's): each numeric property an
 *    animation of popEnter moves on the page (x, y, opacity, scale...; an
 *    XAnimator, a NumberAnimation, a PropertyAnimation, in Parallel or
 *    Sequential groups) is set to from + (to - from) * progress, progress
 *    being the top page's x over the StackView's width, so the page below
 *    follows the finger and reaches where StackView's pop would leave it.
 *    popExit's animations pose the top page the same way, but for x (the
 *    finger's). An animation without `from` starts from the page's value
 *    (a PropertyAnimation), or from 0 (an Animator or a NumberAnimation: Qt
 *    does not say whether theirs was set; give them `from`). An animation
 *    with its own target, a ScriptAction or a PropertyAction does not pose
 *    the page. When the swipe completes the pages are where the pop ends
 *    and StackView pops without a transition; when it is cancelled they go
 *    back to where they were.
 */
#ifndef NAVGUARD_QT6_H
#define NAVGUARD_QT6_H

#include <navguard/navguard.h>

#include "navguard_qt6_backkeys.h"
#include "navguard_qt6_posts.h"
#include "navguard_qt6_screens.h"
#include "navguard_qt6_stack.h"
#include "navguard_qt6_swipe.h"
#include "navguard_qt6_swipedriver.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QObject>
#include <QtCore/QPointF>
#include <QtCore/QPointer>
#include <QtCore/QString>
#include <QtCore/QTimer>
#include <QtCore/QVariant>
#include <QtCore/QVector>
#include <QtQml/QJSValue>
#include <QtQml/QQmlParserStatus>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>

#include <atomic>
#include <cstdint>
#include <functional>

class QEvent;
class QKeyEvent;
class QPointingDevice;
class QQmlEngine;
class QVariantAnimation;

namespace navguard {
namespace qt6 {

/* The touch id of the mouse (left button): navguard.h's NG_MOUSE_TOUCH_ID,
 * the same in every adapter (so `navguard timeline` names it "mouse"). Finger
 * ids never equal it. */
inline constexpr uint64_t kMouseTouchId = NG_MOUSE_TOUCH_ID;

/* The largest screen id (2^53): every integer up to it is exact in a
 * JavaScript number. The Navigator's own ids count up from 1. */
inline constexpr uint64_t kMaxScreenId = UINT64_C(1) << 53;

/* Live touches the filter follows (to end them on focus loss, to route their
 * cancels, to type a filtered QTouchEvent). A touch beyond this many is still
 * submitted; only those services are left to NavGuard's watchdog. */
inline constexpr int kMaxTouches = 32;

/* Pointing devices told apart in touch ids. */
inline constexpr int kMaxDevices = 32;

/* ------------------------------------------------------------------------ */
/* InputFilter                                                               */
/* ------------------------------------------------------------------------ */

class InputFilter : public QObject {
    Q_OBJECT
public:
    /* Every event the filter submitted, with its verdict (for logs and
     * overlays). Called on the GUI thread right after ng_event_submit. */
    using Observer = std::function<void(const ng_event &event, const ng_event_result &result)>;
    /* A key event NavGuard delivered (KeyPress or KeyRelease, auto-repeats
     * included), before Qt delivers it to the focus item: return true to
     * consume it. The Navigator's Back keys are one. GUI thread. */
    using KeyHook = std::function<bool(QKeyEvent *event)>;

    /* [owner] A filter for `ctx` (not owned: it must outlive the filter). */
    explicit InputFilter(ng_context *ctx, QObject *parent = nullptr);
    ~InputFilter() override;

    /* [owner] Install on `window` (nullptr: detach), and follow the
     * application's state. A filter serves one window at a time. */
    void attach(QQuickWindow *window);
    QQuickWindow *window() const { return m_window; }
    ng_context *context() const { return m_ctx; }

    /* Submit mouse motion with no button as NG_EVENT_HOVER (default true),
     * and wheel events as NG_EVENT_SCROLL (default true). */
    void setHoverEnabled(bool on) { m_hover = on; }
    bool hoverEnabled() const { return m_hover; }
    void setWheelEnabled(bool on) { m_wheel = on; }
    bool wheelEnabled() const { return m_wheel; }

    void setObserver(Observer observer) { m_observer = std::move(observer); }
    void setKeyHook(KeyHook hook) { m_keyHook = std::move(hook); }

    /* [owner] Route NavGuard's on_touch_cancel into Qt: the item or handler
     * grabbing that touch's point is told its grab was cancelled (see the
     * file comment). Call it from your delegate's on_touch_cancel (the
     * Navigator does). Returns true when the touch was one of this filter's. */
    bool routeTouchCancel(const ng_touch_info *touch);

    /* [owner] End every live touch as NG_TOUCH_CANCELLED (what a focus loss
     * does), and take their grabs in Qt away. Returns how many it ended. */
    int endTouches();

    /* [owner] The NavGuard touch id of a live Qt point (`device` nullptr:
     * any device), or 0 when the filter follows no such point. */
    uint64_t touchIdOf(int qtPointId, const QPointingDevice *device = nullptr) const;

    /* The filter itself (QObject::eventFilter); public for benchmarks. */
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Live {
        uint64_t id;              /* NavGuard touch id */
        const QPointingDevice *device;
        int point;                /* Qt point id */
        QPointF scene;            /* last scene position */
        bool delivered;           /* Qt saw its press */
        bool dblClickOk;          /* mouse: the press a double click follows */
    };

    bool submit(ng_event &e, ng_event_result &r);
    bool submitEnd(ng_event &e, ng_event_result &r, const Live &l);
    bool onMouse(QEvent *event);
    bool onTouch(QEvent *event);
    bool onKey(QEvent *event);
    bool onWheel(QEvent *event);
    int liveIndex(uint64_t id) const;
    void forget(int index);
    uint64_t fingerId(const QPointingDevice *device, int point);
    void cancelInQt(const QPointingDevice *device, int point, QPointF scene);
    QQuickItem *cancelSink();
    void onApplicationStateChanged(Qt::ApplicationState state);

    ng_context *m_ctx;
    QPointer<QQuickWindow> m_window;
    QQuickWindow *m_watched = nullptr;   /* m_window, compared on every event without QPointer's check */
    const QPointingDevice *m_mouse = nullptr;   /* the last device found to be a mouse */
    QMetaObject::Connection m_mouseGone;        /* forgets m_mouse when it is destroyed */
    QPointer<QQuickItem> m_sink;
    Observer m_observer;
    KeyHook m_keyHook;
    bool m_hover = true;
    bool m_wheel = true;
    bool m_forwarding = false;    /* sending a filtered QTouchEvent */
    bool m_failed = false;        /* the last ng_event_submit returned a status */
    bool m_warned = false;        /* that was said once */
    int m_lastKey = 0;            /* for X11's auto-repeat releases */
    bool m_lastKeyDelivered = true;
    int m_count = 0;
    Live m_live[kMaxTouches];
    int m_deviceCount = 0;
    const QPointingDevice *m_devices[kMaxDevices];
};

/* ------------------------------------------------------------------------ */
/* Navigator                                                                 */
/* ------------------------------------------------------------------------ */

/* A request posted from any thread (Navigator::post). */
struct PostRequest {
    ng_request_kind kind = NG_REQ_PUSH;
    QString route;                 /* PUSH: the route (a key of `routes`) */
    QVariantMap properties;        /* PUSH: the page's initial properties */
    QString identity;              /* PUSH: dedupe identity (empty: the route) */
    uint32_t source = 0;           /* ng_request.source */
    bool animated = true;
    uint64_t fromScreen = 0;       /* ng_request.from_screen: the screen the
                                      request was issued from (0: none); it is
                                      dropped as stale (NG_REASON_STALE) when
                                      that screen is no longer the top */
    uint32_t screenFlags = 0;      /* PUSH: ng_request.screen_flags
                                      (NG_SCREENF_CONFIRM_LEAVE) */
};

class Navigator : public QObject, public QQmlParserStatus {
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    /* The StackView (QtQuick.Controls) this navigator drives. */
    Q_PROPERTY(QQuickItem *stackView READ stackView WRITE setStackView NOTIFY stackViewChanged)
    /* Route name -> Component or URL of its page. */
    Q_PROPERTY(QVariantMap routes READ routes WRITE setRoutes NOTIFY routesChanged)
    /* The root screen, set when the component completes (or on create()). */
    Q_PROPERTY(QString initialRoute READ initialRoute WRITE setInitialRoute NOTIFY initialRouteChanged)
    Q_PROPERTY(QVariantMap initialProperties READ initialProperties WRITE setInitialProperties NOTIFY initialRouteChanged)
    /* Before creation: true (default) loads the default guard chain, false an
     * empty chain; chainConfig (JSON, as ng_chain_configure) overrides it. */
    Q_PROPERTY(bool guarded READ guarded WRITE setGuarded NOTIFY configChanged)
    Q_PROPERTY(QString chainConfig READ chainConfig WRITE setChainConfig NOTIFY configChanged)
    /* Before creation: record the whole session (ng_record_start) to this file. */
    Q_PROPERTY(QString recordPath READ recordPath WRITE setRecordPath NOTIFY configChanged)
    /* Width of the strip along the StackView's left edge (not the window's)
     * a swipe back starts from, by a finger or a mouse drag (0: no swipe
     * back). */
    Q_PROPERTY(qreal edgeWidth READ edgeWidth WRITE setEdgeWidth NOTIFY edgeWidthChanged)
    /* Milliseconds a released swipe takes to settle over the full width. */
    Q_PROPERTY(int settleDuration READ settleDuration WRITE setSettleDuration NOTIFY settleDurationChanged)
    /* Keys that send a guarded Back (Qt key codes; default [Qt.Key_Escape,
     * Qt.Key_Back, Qt.Key_Backspace]; [] for none). The Navigator's filter
     * on the window takes them before Qt delivers them to the focus item,
     * so they work whatever has focus (a header button that was tapped, a
     * list): a press with no modifier (keypad aside) sends back({ source:
     * <the key code> }) (one throttle source per key) and is consumed with
     * its auto-repeats and its release; the page never sees it. Backspace is
     * a Back key only while no text field (an item that accepts input
     * method, e.g. TextField, TextInput, TextEdit) has active focus; then it
     * edits the text. A QML Shortcut on one of these keys matches before the
     * window sees the key, and wins (see "Shortcuts" above). While the
     * active focus is in a Popup (a Dialog, a Menu; give it focus: true)
     * the keys are the popup's: Escape closes one whose closePolicy has
     * CloseOnEscape, no Back. A key NavGuard dropped (an input hold) sends
     * nothing. At the root the Back is refused and the key still consumed. */
    Q_PROPERTY(QVariantList backKeys READ backKeys WRITE setBackKeys NOTIFY backKeysChanged)
    Q_PROPERTY(bool ready READ ready NOTIFY readyChanged)
    Q_PROPERTY(int depth READ depth NOTIFY stackChanged)
    Q_PROPERTY(QString currentRoute READ currentRoute NOTIFY stackChanged)
    Q_PROPERTY(double currentScreen READ currentScreen NOTIFY stackChanged)
    Q_PROPERTY(QStringList routeStack READ routeStack NOTIFY stackChanged)
    /* A screen transition is in flight (NavGuard's view, swipes included). */
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    Q_PROPERTY(bool swiping READ swiping NOTIFY swipingChanged)
public:
    explicit Navigator(QObject *parent = nullptr);
    ~Navigator() override;

    /* --- QML API (GUI thread) --- */
    /* Each request returns its id (a number below 2^53; 0 when it could not
     * be submitted: `error` says why). Its outcome follows as a signal.
     * options: source (int: ng_request.source, what the throttle guard keys
     * on), animated (bool, default true), identity (string: what dedupe
     * compares; default the route), fromScreen (a screen id) or scoped (true:
     * the current top) for ng_request.from_screen, confirmLeave (push: ask
     * before the pushed screen is left, NG_SCREENF_CONFIRM_LEAVE). */
    Q_INVOKABLE double push(const QString &route, const QVariantMap &properties = {},
                            const QVariantMap &options = {});
    Q_INVOKABLE double back(const QVariantMap &options = {});
    Q_INVOKABLE double pop(const QVariantMap &options = {});
    Q_INVOKABLE double popTo(double screenId, const QVariantMap &options = {});
    Q_INVOKABLE double popToRoot(const QVariantMap &options = {});
    /* screens: [{route, properties, identity}], bottom first. */
    Q_INVOKABLE double replaceStack(const QVariantList &screens, const QVariantMap &options = {});
    /* Answer the open question (a leave confirmation): true yes, false no.
     * False when it is no longer open (it timed out, or was withdrawn). */
    Q_INVOKABLE bool answer(double questionId, bool yes);
    /* Ask before any request removes this stacked screen, or stop asking
     * (NG_SCREENF_CONFIRM_LEAVE through ng_screen_set_flags). */
    Q_INVOKABLE bool setConfirmLeave(double screenId, bool on);
    Q_INVOKABLE QString routeOf(double screenId) const;
    Q_INVOKABLE QString error() const { return m_error; }

    /* --- C++ API --- */
    /* [owner] The Navigator created by QML in `engine` (nullptr: in any
     * engine, or made in C++) whose objectName is `objectName`; with objectName empty, the engine's
     * only Navigator (nullptr when it has several: give them objectNames).
     * Call it after the QML loaded (e.g. after QQmlApplicationEngine::load);
     * nullptr when there is none. The pointer is the QML object's: it lives
     * as long as its QML parent (usually the window); keep a QPointer if it
     * may go. Typical use: find it on the GUI thread, hand it to a worker
     * that calls post(). */
    static Navigator *find(QQmlEngine *engine, const QString &objectName = QString());
    /* [owner] The top screen's id (0 before create()): what a request asked
     * from the current screen passes as PostRequest::fromScreen. */
    uint64_t currentScreenId() const;
    /* [owner] Create the context now (QML does it when the component
     * completes): options from the properties, the chain, the root screen.
     * Returns NG_OK or the failing status (error() says why). */
    ng_status create();
    /* [any-thread] Post a request (ng_request_post) and wake the GUI loop;
     * `out_id` (may be NULL) gets its id. The Navigator must outlive every
     * thread that may post. Returns ng_request_post's statuses, NG_E_STATE
     * before create(), NG_E_RANGE for a fromScreen above kMaxScreenId. */
    ng_status post(const PostRequest &request, uint64_t *out_id = nullptr);
    /* [owner] The context, for calls the Navigator does not wrap (holds,
     * views, recording); NULL before create(). Do not replace its delegate. */
    ng_context *context() const { return m_ctx; }
    InputFilter *inputFilter() const { return m_filter; }
    /* [owner] Submit a request as is (a PUSH's screen must name a route of
     * `routes`; its id 0 takes the next screen id). Screen ids (screen,
     * screens, target_id, from_screen) above kMaxScreenId are refused: 0 is
     * returned and error() says why. */
    double submit(ng_request request, const QVariantMap &properties = {});

    QQuickItem *stackView() const { return m_stack.view(); }
    void setStackView(QQuickItem *view);
    QVariantMap routes() const { return m_routes; }
    void setRoutes(const QVariantMap &routes);
    QString initialRoute() const { return m_initialRoute; }
    void setInitialRoute(const QString &route);
    QVariantMap initialProperties() const { return m_initialProperties; }
    void setInitialProperties(const QVariantMap &properties);
    bool guarded() const { return m_guarded; }
    void setGuarded(bool on);
    QString chainConfig() const { return m_chainConfig; }
    void setChainConfig(const QString &json);
    QString recordPath() const { return m_recordPath; }
    void setRecordPath(const QString &path);
    qreal edgeWidth() const { return m_swipe.edgeWidth(); }
    void setEdgeWidth(qreal width);
    int settleDuration() const { return m_swipe.settleDuration(); }
    void setSettleDuration(int ms);
    QVariantList backKeys() const;
    void setBackKeys(const QVariantList &keys);
    bool ready() const { return m_ctx != nullptr; }
    int depth() const;
    QString currentRoute() const;
    double currentScreen() const;
    QStringList routeStack() const;
    bool busy() const { return m_busy; }
    bool swiping() const { return m_swipe.active(); }

    void classBegin() override {}
    void componentComplete() override;

public Q_SLOTS:
    /* [owner] ng_tick (the deadline timer and the wake-up call it). */
    void tick();

Q_SIGNALS:
    void stackViewChanged();
    void routesChanged();
    void initialRouteChanged();
    void configChanged();
    void edgeWidthChanged();
    void settleDurationChanged();
    void backKeysChanged();
    void readyChanged();
    void stackChanged();
    void busyChanged();
    void swipingChanged();
    /* The signals' reference. Each map has every key listed for it, every
     * time (null where a value has none); ids and numbers are JavaScript
     * numbers (request, screen, question and hold ids are below 2^53, exact);
     * names are the header's lowercase names (navguard.h's *_MAP tables).
     * Keys and values are stable: new keys may be added, none removed or
     * changed. All are emitted on the GUI thread.
     *
     * outcome: a request's final outcome, exactly once per request id (a
     * request method that returned 0 made no request, and gets none): the
     * one signal for hosts that want every request's end in one place.
     * Keys:
     *   id (number): the request id push(), back()... returned (posted
     *     ones from 2^52);
     *   kind (string): "push", "pop", "pop-to", "pop-to-root",
     *     "replace-stack", "back", "interactive-back";
     *   outcome (string): "applied", "refused" or "dropped";
     *   reason (string): "none" when applied; else why: "busy",
     *     "duplicate", "throttled", "at-root", "not-found", "invalid",
     *     "superseded", "queue-full", "destroyed", "policy", "stale",
     *     "declined", ...;
     *   guard (string or null): the guard that refused or dropped it; null
     *     for the core's own rules;
     *   source (number): the request's `source` option;
     *   message (string or null): the guard's text, if it gave one.
     * Stale replies (a request with fromScreen or scoped whose screen is no
     * longer the top) end with reason "stale", through one of two outcomes:
     * "refused" when judged at once (submitted, or a posted one when the
     * loop takes it), "dropped" when it had waited first (a guard deferred
     * it, a swipe or a leave question was in flight). Test reason ===
     * "stale" in outcome to catch both. */
    void outcome(const QVariantMap &outcome);
    /* applied: emitted right after outcome when the request was applied,
     * with the same map (same keys as `outcome`). */
    void applied(const QVariantMap &outcome);
    /* refused: emitted right after outcome when a guard or a rule refused
     * the request as it was judged (same keys as `outcome`). */
    void refused(const QVariantMap &outcome);
    /* dropped: emitted right after outcome when a request that had waited
     * ended unapplied (same keys as `outcome`). */
    void dropped(const QVariantMap &outcome);
    /* deferred: the request waits (a guard deferred it, or it was made
     * inside a callback or posted); its outcome follows. Emitted right after
     * submitted, with the same map (same keys as `submitted`). */
    void deferred(const QVariantMap &result);
    /* submitted: every request as ng_request_submit answered it at once.
     * Keys:
     *   id (number): the request id;
     *   kind (string): as in outcome;
     *   status (string): "applied", "refused", "deferred" or "queued";
     *   reason (string): as in outcome ("none" when applied or queued);
     *   guard (string or null): the guard that refused or deferred it;
     *   source (number): the request's `source` option. */
    void submitted(const QVariantMap &result);
    /* transition: a screen transition's phases (StackView's changes follow
     * them). Only the screen track is emitted: NavGuard's other track (the
     * navigation bar of UIKit) means nothing in Qt.
     * Keys:
     *   track (string): always "screen";
     *   phase (string): "will" (it starts), "did" (it ended, the stack is
     *     the new one) or "cancelled" (a swipe back rolled back);
     *   kind (string): the request's kind, as in outcome;
     *   id (number): the request id;
     *   from (number): the screen id shown before (0: none);
     *   to (number): the screen id shown after (0: none);
     *   fromRoute (string or null): from's route;
     *   toRoute (string or null): to's route;
     *   flags (list of strings): any of "animated", "interactive" (a swipe
     *     back), "interrupted", "forced", "touch-driven". */
    void transition(const QVariantMap &event);
    /* question: a guard asks the host (a screen pushed with confirmLeave is
     * about to be left); answer with answer(id, yes). The request waits
     * until then; questionEnded follows, once.
     * Keys:
     *   id (number): the question id, for answer();
     *   topic (string or null): what it is about
     *     ("org.navguard.confirm-leave");
     *   text (string or null): the guard's text for a dialog;
     *   guard (string or null): the asking guard;
     *   requestId (number): the request it holds;
     *   kind (string): that request's kind, as in outcome;
     *   source (number): that request's `source` option;
     *   screenId (number): the screen it is about (0: none);
     *   route (string or null): that screen's route;
     *   timeoutMs (number or null): how long it stays open; null: until
     *     answered. */
    void question(const QVariantMap &question);
    /* questionEnded: the question is over (same keys as `question`);
     * `answer` is "yes", "no", "timeout" or "withdrawn" (the request it held
     * ended another way). */
    void questionEnded(const QVariantMap &question, const QString &answer);
    /* report: a guard's report (the watchdog's, for one): the guard's id and
     * its text. */
    void report(const QString &guard, const QString &text);
    /* logMessage: a log line of NavGuard or a guard: severity 0 debug, 1
     * info, 2 warn, 3 error; the guard's id ("" for the core); the text. */
    void logMessage(int severity, const QString &guard, const QString &message);
    /* holdEnded: a hold (an input block) ended.
     * Keys:
     *   token (number): the hold's token;
     *   label (string or null): its label;
     *   mask (number): the NG_MASK_* bits it blocked;
     *   reason (string): "ended" (ng_hold_end), "expired" (its limit
     *     passed) or "released" (by a guard, or at destroy);
     *   ms (number): how long it lasted, in milliseconds. */
    void holdEnded(const QVariantMap &hold);
    /* touchCancelled: NavGuard cancelled a touch Qt had (its grab was taken
     * away: the item forgets the press, no click follows).
     * Keys:
     *   touch (number): its touch id (exact for fingers; the mouse's,
     *     NG_MOUSE_TOUCH_ID, does not fit a double);
     *   mouse (bool): true for the mouse;
     *   view (number): the NavGuard view it was bound to (0: none);
     *   routed (bool): the input filter found it and cancelled it in Qt. */
    void touchCancelled(const QVariantMap &touch);
    /* swipe: the swipe back from the left edge, one map for each of its
     * steps, every key in every step.
     * Keys:
     *   event (string): "begin" (the finger left the edge and the request
     *     was made), "release" (the finger let go) or "complete" (the page
     *     settled, the swipe is over);
     *   request (number): the interactive-back request id (0 when begin
     *     made none);
     *   ok (bool): the step's call returned NG_OK;
     *   status (string): that call's status by its C name: "NG_OK",
     *     "NG_E_NOT_FOUND" (the swipe had already ended: the watchdog), ...;
     *   error (string): the call's error text ("" when ok);
     *   outcome (string): begin: the request's immediate status, "applied"
     *     (the swipe runs), "refused" or "deferred" (a question was asked);
     *     "" in the other steps;
     *   reason (string): begin: as in outcome ("none" when applied); "" in
     *     the other steps;
     *   guard (string or null): begin: the refusing or deferring guard;
     *   touch (number): the driving touch's id; mouse (bool): it is the
     *     mouse (a mouse drag from the edge swipes too);
     *   progress (number): 0..1, the share of the StackView's width the page
     *     had moved (release, complete; 0 at begin);
     *   velocity (number): the finger's speed at release, px/s to the right
     *     (0 in the other steps);
     *   finish (bool): release, complete: the page pops (false: it springs
     *     back); false at begin;
     *   touchCancelled (bool): release: the finger was cancelled (the
     *     swipe springs back). */
    void swipe(const QVariantMap &event);
    /* backKeyPressed: a key of backKeys was pressed and sends a guarded Back
     * (not for its auto-repeats or its release, nor for a key left to a
     * text field or a Popup, nor for one NavGuard dropped). Emitted just
     * before that back({ source: key }) is submitted, so its submitted and
     * outcome signals follow, with `source` the key.
     * Argument: key (number): the Qt key code (Qt.Key_Escape, ...). */
    void backKeyPressed(int key);

private Q_SLOTS:
    /* StackView's busyChanged and the swipe edge's signals: QML's, so
     * connected by name, and handed to the parts. */
    void onStackBusy();
    void edgeBegan(int pointId, double pressX, double x);
    void edgeMoved(double x);
    void edgeEnded(double x);

private:
    /* The delegate (GUI thread, but cbWake: any thread). */
    static void cbOutcome(void *user, ng_context *ctx, const ng_outcome *o);
    static void cbTransition(void *user, ng_context *ctx, const ng_transition_event *e);
    static void cbHoldEnd(void *user, ng_context *ctx, const ng_hold_info *h);
    static void cbReport(void *user, ng_context *ctx, const char *guard, const char *text);
    static void cbLog(void *user, ng_context *ctx, int32_t severity, const char *guard, const char *message);
    static void cbTouchCancel(void *user, ng_context *ctx, const ng_touch_info *t);
    static void cbQuestion(void *user, ng_context *ctx, const ng_question *q);
    static void cbQuestionEnd(void *user, ng_context *ctx, const ng_question *q, ng_answer answer);
    static void cbWake(void *user, ng_context *ctx);
    static void cbDeadline(void *user, ng_context *ctx, int64_t deadline);

    void onTransition(const ng_transition_event *e);
    double request(ng_request rq, const QVariantMap &options, const QVariantMap &properties = {});
    bool submitRequest(const ng_request &rq, ng_request_result *res);
    bool applyOptions(ng_request &rq, const QVariantMap &options);
    bool setError(ng_status st, const char *call);
    void updateState();
    void ensureEdge();
    bool backKey(QKeyEvent *event);

    /* The façade's own state: the context, the filter, what QML set. The
     * jobs are the parts' (navguard_qt6_*.h), declared in this order
     * because each refers to the ones above it. */
    ng_context *m_ctx = nullptr;
    InputFilter *m_filter = nullptr;
    QVariantMap m_routes;
    QString m_initialRoute;
    QVariantMap m_initialProperties;
    bool m_guarded = true;
    QString m_chainConfig;
    QString m_recordPath;
    detail::BackKeys m_backKeys;
    QString m_error;
    ng_status m_lastStatus = NG_OK;   /* of the last ng_request_submit */
    bool m_destroying = false;
    bool m_busy = false;
    QVector<uint64_t> m_lastStack;    /* NavGuard's stack at the last stackChanged */

    detail::ScreenRegistry m_screens; /* screen id -> route, page properties */
    detail::PostQueue m_posts;        /* wake-ups and the deadline timer */
    detail::StackBinding m_stack;     /* the StackView, one turn after will-show */
    detail::SwipeDriver m_swipe;      /* the edge's drag as an interactive back */
};

/* [GUI thread] Register the QML types: `import NavGuard` gives Navigator.
 * Call before loading QML that uses it. `uri` may name another module. */
void registerQmlTypes(const char *uri = "NavGuard");

} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_H */
