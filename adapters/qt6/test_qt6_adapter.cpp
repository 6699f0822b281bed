// SPDX-License-Identifier: Apache-2.0
/*
 * test_qt6_adapter — the Qt 6 adapter (navguard_qt6.cpp) against its header,
 * in-process, with QTest on the offscreen platform:
 *  - InputFilter: every conversion (mouse, hover, keys with auto-repeat,
 *    wheel), verdicts applied (a dropped event never reaches an item), a
 *    double click following its press, focus loss / hide / deactivation
 *    ending every live touch, a two-point QTouchEvent where one point is
 *    dropped (the item gets an event with only the delivered point), a
 *    platform TouchCancel;
 *  - cancel routing: NavGuard cancels one finger while another stays down
 *    (its Button stops being pressed and never clicks, the other clicks),
 *    a TapHandler holding only a passive grab, the mouse;
 *  - Navigator on a real StackView: outcomes as signals, StackView changed at
 *    will-show and NavGuard finished when StackView's transition ends, a
 *    Back during a push refused, pushes from inside StackView's own signals
 *    and from a page's construction (no StackView warning), posts from
 *    another thread waking the loop, the swipe-back from the left edge
 *    (finished and cancelled), a host's hold expiring on time through the
 *    deadline timer alone, a stale reply dropped and a scoped one applied,
 *    the leave confirmation (Back answered no, a swipe answered yes,
 *    popToRoot, setConfirmLeave), the same app unguarded;
 *  - the swipe's page below posed from StackView's popEnter (a full slide
 *    and a host's 30 % slide with a fade) mid-swipe, while settling, after a
 *    cancel and after the pop;
 *  - backKeys: Start -> Menu -> Latte, the header's Back (it takes the
 *    focus), then Escape pops; one Back per held key; Backspace in a text
 *    field edits it; a Shortcut and a focused Dialog take Escape first;
 *    backKeys [] gives keys back to the page;
 *  - Navigator::find and currentScreenId from C++ (a worker's scoped post),
 *    screen ids up to 2^53 exact in QML, anything else refused.
 * Every check runs; failures are counted and listed (QTest's QCOMPARE stops a
 * test function at the first one, so checks use CHECK instead).
 */
#include "navguard_qt6.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QMap>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>
#include <QtCore/QPointer>
#include <QtCore/QThread>
#include <QtGui/QGuiApplication>
#include <QtGui/QPointingDevice>
#include <QtQml/QQmlApplicationEngine>
#include <QtQml/QQmlComponent>
#include <QtQml/QQmlContext>
#include <QtQml/QQmlExpression>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>

#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

using navguard::qt6::InputFilter;
using navguard::qt6::kMouseTouchId;
using navguard::qt6::Navigator;

static int g_failures = 0;
static int g_checks = 0;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        g_checks++;                                                               \
        if (!(cond)) {                                                            \
            g_failures++;                                                         \
            std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
            std::fprintf(stderr, __VA_ARGS__);                                    \
            std::fprintf(stderr, "\n");                                           \
        }                                                                         \
    } while (0)

/* Waits up to `ms` for `cond`, processing events. */
#define WAIT_FOR(cond, ms) QTest::qWaitFor([&] { return (cond); }, (ms))

/* --------------------------------------------------------------------------- */
/* An item that records what Qt delivers to it                                  */
/* --------------------------------------------------------------------------- */

struct Delivered {
    QEvent::Type type;
    QList<int> ids;                       /* point ids (touch) */
    QList<QEventPoint::State> states;
};

class Recorder : public QQuickItem {
    Q_OBJECT
public:
    explicit Recorder(QQuickItem *parent = nullptr) : QQuickItem(parent) {
        setAcceptedMouseButtons(Qt::LeftButton);
        setAcceptTouchEvents(true);
        setFlag(ItemIsFocusScope);
        setFocus(true);
    }
    std::vector<Delivered> got;
    int ungrabs = 0;
    void clear() { got.clear(); ungrabs = 0; }
    int count(QEvent::Type t) const {
        int n = 0;
        for (const Delivered &d : got) n += d.type == t;
        return n;
    }

protected:
    void record(QEvent *e) {
        Delivered d{ e->type(), {}, {} };
        if (auto *p = dynamic_cast<QPointerEvent *>(e))
            for (const QEventPoint &pt : p->points()) {
                d.ids << pt.id();
                d.states << pt.state();
            }
        got.push_back(d);
        e->accept();
    }
    void mousePressEvent(QMouseEvent *e) override { record(e); }
    void mouseMoveEvent(QMouseEvent *e) override { record(e); }
    void mouseReleaseEvent(QMouseEvent *e) override { record(e); }
    void mouseDoubleClickEvent(QMouseEvent *e) override { record(e); }
    void touchEvent(QTouchEvent *e) override { record(e); }
    void keyPressEvent(QKeyEvent *e) override { record(e); }
    void keyReleaseEvent(QKeyEvent *e) override { record(e); }
    void wheelEvent(QWheelEvent *e) override { record(e); }
    void mouseUngrabEvent() override { ungrabs++; }
    void touchUngrabEvent() override { ungrabs++; }
};

/* --------------------------------------------------------------------------- */
/* A context with the default chain, a window with a Recorder, the filter        */
/* --------------------------------------------------------------------------- */

struct Seen {
    ng_event e;
    ng_event_result r;
};

struct Rig {
    ng_context *ctx = nullptr;
    QQuickWindow *win = nullptr;
    Recorder *rec = nullptr;
    InputFilter *filter = nullptr;
    std::vector<Seen> seen;
    std::vector<uint64_t> cancelled;   /* on_touch_cancel */

    static void onTouchCancel(void *user, ng_context *, const ng_touch_info *t) {
        Rig *r = static_cast<Rig *>(user);
        r->cancelled.push_back(t->touch_id);
        r->filter->routeTouchCancel(t);
    }

    explicit Rig(bool defaultChain = true) {
        ng_options o = NG_OPTIONS_INIT;
        o.delegate.user = this;
        o.delegate.on_touch_cancel = &Rig::onTouchCancel;
        if (ng_context_create(&o, &ctx) != NG_OK) qFatal("ng_context_create");
        if (defaultChain && ng_chain_configure(ctx, nullptr) != NG_OK)
            qFatal("default chain: %s (plugin dir %s)", ng_errmsg(ctx), ng_plugin_dir());
        ng_screen home = { 1, "home", nullptr };
        ng_stack_set_root(ctx, &home);
        win = new QQuickWindow;
        win->resize(400, 300);
        rec = new Recorder(win->contentItem());
        rec->setSize(QSizeF(400, 300));
        filter = new InputFilter(ctx);
        filter->attach(win);
        filter->setObserver([this](const ng_event &e, const ng_event_result &r) { seen.push_back({ e, r }); });
        win->show();
        if (!QTest::qWaitForWindowExposed(win)) qFatal("window not exposed");
    }
    ~Rig() {
        delete filter;
        delete win;
        ng_context_destroy(ctx);
    }
    void clear() {
        seen.clear();
        rec->clear();
        cancelled.clear();
    }
    size_t touches() const {
        size_t n = 0;
        ng_touch_count(ctx, &n);
        return n;
    }
    /* The last submitted event of `type`. */
    const Seen *last(ng_event_type type) const {
        for (auto it = seen.rbegin(); it != seen.rend(); ++it)
            if (it->e.type == type) return &*it;
        return nullptr;
    }
};

static bool isTouch(const Seen *s, int32_t phase, uint64_t id) {
    return s && s->e.type == NG_EVENT_TOUCH && s->e.phase == phase && s->e.touch_id == id;
}

/* --------------------------------------------------------------------------- */
/* InputFilter                                                                   */
/* --------------------------------------------------------------------------- */

static void test_mouse() {
    Rig rig;
    QTest::mouseMove(rig.win, QPoint(40, 50));
    rig.clear();
    QTest::mousePress(rig.win, Qt::LeftButton, {}, QPoint(40, 50));
    CHECK(rig.seen.size() == 1, "%zu events submitted for a press", rig.seen.size());
    const Seen *s = rig.last(NG_EVENT_TOUCH);
    CHECK(isTouch(s, NG_TOUCH_BEGAN, kMouseTouchId), "press -> began of the mouse touch");
    CHECK(s && s->e.x == 40 && s->e.y == 50, "press at (%g,%g)", s ? s->e.x : -1, s ? s->e.y : -1);
    CHECK(s && s->e.timestamp_ns == 0, "timestamp %lld: Qt's clock is not NavGuard's",
          s ? (long long)s->e.timestamp_ns : -1);
    CHECK(s && s->r.verdict == NG_VERDICT_DELIVER, "the press was dropped");
    CHECK(rig.rec->count(QEvent::MouseButtonPress) == 1, "the item did not get the press");
    QTest::mouseMove(rig.win, QPoint(60, 55));
    s = rig.last(NG_EVENT_TOUCH);
    CHECK(isTouch(s, NG_TOUCH_MOVED, kMouseTouchId) && s->e.x == 60, "a move with the button down -> moved");
    CHECK(rig.rec->count(QEvent::MouseMove) == 1, "the item did not get the move");
    QTest::mouseRelease(rig.win, Qt::LeftButton, {}, QPoint(60, 55));
    s = rig.last(NG_EVENT_TOUCH);
    CHECK(isTouch(s, NG_TOUCH_ENDED, kMouseTouchId), "release -> ended");
    CHECK(rig.touches() == 0, "%zu touches live after the release", rig.touches());

    /* Motion with no button: hover. */
    rig.clear();
    QTest::mouseMove(rig.win, QPoint(100, 120));
    s = rig.last(NG_EVENT_HOVER);
    CHECK(s && s->e.x == 100 && s->e.y == 120, "a move with no button -> hover");
    rig.filter->setHoverEnabled(false);
    rig.clear();
    QTest::mouseMove(rig.win, QPoint(110, 120));
    CHECK(rig.seen.empty(), "hover off: %zu events submitted", rig.seen.size());
    rig.filter->setHoverEnabled(true);

    /* The right button is not NavGuard input: passed as is. */
    rig.clear();
    QTest::mousePress(rig.win, Qt::RightButton, {}, QPoint(40, 50));
    QTest::mouseRelease(rig.win, Qt::RightButton, {}, QPoint(40, 50));
    CHECK(rig.last(NG_EVENT_TOUCH) == nullptr, "the right button was submitted as a touch");

    /* A hold over touches: the press is dropped and never reaches the item;
     * so are its move and release. */
    uint64_t hold = 0;
    ng_hold_begin(rig.ctx, "test", NG_MASK_TOUCH, 0, &hold);
    rig.clear();
    QTest::mousePress(rig.win, Qt::LeftButton, {}, QPoint(40, 50));
    QTest::mouseMove(rig.win, QPoint(45, 50));
    QTest::mouseRelease(rig.win, Qt::LeftButton, {}, QPoint(45, 50));
    s = rig.seen.empty() ? nullptr : &rig.seen.front();
    CHECK(isTouch(s, NG_TOUCH_BEGAN, kMouseTouchId) && s->r.verdict == NG_VERDICT_DROP &&
              s->r.reason == NG_REASON_IGNORING,
          "the press under a hold was not dropped (ignoring)");
    CHECK(rig.rec->got.empty(), "the item got %zu events while input was held", rig.rec->got.size());
    ng_hold_end(rig.ctx, hold);
    CHECK(rig.touches() == 0, "%zu touches live", rig.touches());
}

static void sendMouse(QWindow *w, QEvent::Type type, QPointF p, Qt::MouseButton b, Qt::MouseButtons bs) {
    QMouseEvent e(type, p, p, w->mapToGlobal(p), b, bs, Qt::NoModifier);
    QCoreApplication::sendEvent(w, &e);
}

static void test_double_click() {
    Rig rig;
    QPointF p(30, 30);
    /* A double click follows a delivered press. */
    rig.clear();
    sendMouse(rig.win, QEvent::MouseButtonPress, p, Qt::LeftButton, Qt::LeftButton);
    sendMouse(rig.win, QEvent::MouseButtonDblClick, p, Qt::LeftButton, Qt::LeftButton);
    sendMouse(rig.win, QEvent::MouseButtonRelease, p, Qt::LeftButton, Qt::NoButton);
    CHECK(rig.rec->count(QEvent::MouseButtonDblClick) == 1, "the double click after a delivered press was dropped");
    CHECK(rig.seen.size() == 2, "%zu events submitted (the double click has no NavGuard phase)", rig.seen.size());

    /* ... and is dropped with a dropped press. */
    uint64_t hold = 0;
    ng_hold_begin(rig.ctx, "test", NG_MASK_TOUCH, 0, &hold);
    rig.clear();
    sendMouse(rig.win, QEvent::MouseButtonPress, p, Qt::LeftButton, Qt::LeftButton);
    sendMouse(rig.win, QEvent::MouseButtonDblClick, p, Qt::LeftButton, Qt::LeftButton);
    sendMouse(rig.win, QEvent::MouseButtonRelease, p, Qt::LeftButton, Qt::NoButton);
    CHECK(rig.rec->got.empty(), "the item got %zu events (the double click of a dropped press?)", rig.rec->got.size());
    ng_hold_end(rig.ctx, hold);

    /* ... and after NavGuard cancelled its press (a hold beginning cancels
     * the touches in progress). */
    rig.clear();
    sendMouse(rig.win, QEvent::MouseButtonPress, p, Qt::LeftButton, Qt::LeftButton);
    ng_hold_begin(rig.ctx, "test", NG_MASK_TOUCH, 0, &hold);
    CHECK(rig.cancelled.size() == 1 && rig.cancelled[0] == kMouseTouchId, "the press was not cancelled by the hold");
    CHECK(rig.rec->ungrabs == 1, "the item got %d ungrab events, expected 1", rig.rec->ungrabs);
    sendMouse(rig.win, QEvent::MouseButtonDblClick, p, Qt::LeftButton, Qt::LeftButton);
    sendMouse(rig.win, QEvent::MouseButtonRelease, p, Qt::LeftButton, Qt::NoButton);
    CHECK(rig.rec->count(QEvent::MouseButtonDblClick) == 0, "a double click of a cancelled press was delivered");
    CHECK(rig.rec->count(QEvent::MouseButtonRelease) == 0, "the release of a cancelled press was delivered");
    ng_hold_end(rig.ctx, hold);
    CHECK(rig.touches() == 0, "%zu touches live", rig.touches());
}

static void sendKey(QWindow *w, QEvent::Type type, int key, bool autoRepeat) {
    QKeyEvent e(type, key, Qt::NoModifier, QString(), autoRepeat);
    QCoreApplication::sendEvent(w, &e);
}

static void test_keys_wheel() {
    Rig rig;
    rig.clear();
    sendKey(rig.win, QEvent::KeyPress, Qt::Key_Escape, false);
    const Seen *s = rig.last(NG_EVENT_KEY);
    CHECK(s && s->e.phase == 0 && s->e.code == Qt::Key_Escape && s->r.verdict == NG_VERDICT_DELIVER,
          "key press -> key down, code Qt::Key_Escape");
    sendKey(rig.win, QEvent::KeyRelease, Qt::Key_Escape, true);
    CHECK(rig.seen.size() == 1, "an auto-repeat release was submitted");
    sendKey(rig.win, QEvent::KeyPress, Qt::Key_Escape, true);
    s = rig.last(NG_EVENT_KEY);
    CHECK(s && s->e.phase == 2, "auto-repeat press -> repeat (phase %d)", s ? s->e.phase : -1);
    sendKey(rig.win, QEvent::KeyRelease, Qt::Key_Escape, false);
    s = rig.last(NG_EVENT_KEY);
    CHECK(s && s->e.phase == 1, "release -> up (phase %d)", s ? s->e.phase : -1);
    CHECK(rig.rec->count(QEvent::KeyPress) == 2 && rig.rec->count(QEvent::KeyRelease) == 2,
          "the item got %d presses and %d releases, expected 2 and 2", rig.rec->count(QEvent::KeyPress),
          rig.rec->count(QEvent::KeyRelease));

    /* Keys held: dropped, the auto-repeat release with them. */
    uint64_t hold = 0;
    ng_hold_begin(rig.ctx, "keys", NG_MASK_KEY, 0, &hold);
    rig.clear();
    sendKey(rig.win, QEvent::KeyPress, Qt::Key_Backspace, false);
    sendKey(rig.win, QEvent::KeyRelease, Qt::Key_Backspace, true);
    sendKey(rig.win, QEvent::KeyPress, Qt::Key_Backspace, true);
    sendKey(rig.win, QEvent::KeyRelease, Qt::Key_Backspace, false);
    CHECK(rig.rec->got.empty(), "the item got %zu key events under a key hold", rig.rec->got.size());
    CHECK(rig.seen.size() == 3, "%zu key events submitted, expected 3 (down, repeat, up)", rig.seen.size());
    ng_hold_end(rig.ctx, hold);

    rig.clear();
    QPointF p(50, 50);
    QWheelEvent w(p, rig.win->mapToGlobal(p), QPoint(), QPoint(0, -240), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(rig.win, &w);
    s = rig.last(NG_EVENT_SCROLL);
    CHECK(s && s->e.x == 0 && s->e.y == -2, "wheel of -240 -> scroll (0,-2) notches, got (%g,%g)",
          s ? s->e.x : 0, s ? s->e.y : 0);
    CHECK(rig.rec->count(QEvent::Wheel) == 1, "the item did not get the wheel");
}

static void test_focus_loss() {
    Rig rig;
    std::unique_ptr<QPointingDevice> device(QTest::createTouchDevice());
    QPointingDevice *dev = device.get();
    for (QEvent::Type type : { QEvent::FocusOut, QEvent::Hide, QEvent::WindowDeactivate }) {
        rig.clear();
        QTest::mousePress(rig.win, Qt::LeftButton, {}, QPoint(20, 20));
        QTest::touchEvent(rig.win, dev).press(3, QPoint(200, 100), rig.win);
        CHECK(rig.touches() == 2, "%zu touches live before the event", rig.touches());
        QEvent e(type);
        if (type == QEvent::FocusOut) {
            QFocusEvent f(QEvent::FocusOut, Qt::ActiveWindowFocusReason);
            QCoreApplication::sendEvent(rig.win, &f);
        } else {
            QCoreApplication::sendEvent(rig.win, &e);
        }
        int cancels = 0;
        for (const Seen &s : rig.seen) cancels += s.e.type == NG_EVENT_TOUCH && s.e.phase == NG_TOUCH_CANCELLED;
        CHECK(cancels == 2, "event %d: %d touches ended as cancelled, expected 2 (mouse and finger)", (int)type,
              cancels);
        CHECK(rig.touches() == 0, "event %d: %zu touches still live", (int)type, rig.touches());
        /* Qt's own ends of those touches come later: dropped, nothing breaks. */
        QTest::mouseRelease(rig.win, Qt::LeftButton, {}, QPoint(20, 20));
        QTest::touchEvent(rig.win, dev).release(3, QPoint(200, 100), rig.win);
        CHECK(rig.touches() == 0, "event %d: %zu touches live after Qt's releases", (int)type, rig.touches());
    }
    CHECK(rig.filter->endTouches() == 0, "endTouches with nothing live ended something");
}

static void test_touch_points() {
    Rig rig;
    std::unique_ptr<QPointingDevice> device(QTest::createTouchDevice());
    QPointingDevice *dev = device.get();
    /* NavGuard views: an exclusive-touch view on the left, another on the
     * right. A finger on the exclusive view makes a second finger elsewhere
     * dropped (exclusive-touch guard). */
    ng_view left = NG_VIEW_INIT, right = NG_VIEW_INIT;
    left.id = 1;
    left.frame = ng_rect{ 0, 0, 200, 300 };
    left.flags = NG_VIEWF_EXCLUSIVE_TOUCH;
    right.id = 2;
    right.frame = ng_rect{ 200, 0, 200, 300 };
    ng_view_set(rig.ctx, &left);
    ng_view_set(rig.ctx, &right);
    rig.clear();
    QTest::touchEvent(rig.win, dev).press(0, QPoint(50, 50), rig.win);
    CHECK(rig.rec->count(QEvent::TouchBegin) == 1, "the first finger's press did not reach the item");
    uint64_t id0 = rig.filter->touchIdOf(0, dev);
    CHECK(id0 != 0 && id0 != kMouseTouchId && id0 < (UINT64_C(1) << 53), "finger id %llu", (unsigned long long)id0);
    QTest::touchEvent(rig.win, dev).move(0, QPoint(60, 50), rig.win).press(1, QPoint(300, 50), rig.win);
    const Seen *s = rig.last(NG_EVENT_TOUCH);
    uint64_t id1 = rig.filter->touchIdOf(1, dev);
    CHECK(isTouch(s, NG_TOUCH_BEGAN, id1) && s->r.verdict == NG_VERDICT_DROP && s->r.reason == NG_REASON_EXCLUSIVE,
          "the second finger was not dropped as exclusive");
    /* Qt Quick delivers touch updates at the next frame (touch compression). */
    CHECK(WAIT_FOR(rig.rec->got.size() >= 2, 1000), "the update never reached the item");
    if (rig.rec->got.size() >= 2) {
        const Delivered &d = rig.rec->got.back();
        CHECK(d.type == QEvent::TouchUpdate && d.ids == QList<int>{ 0 } &&
                  d.states == QList<QEventPoint::State>{ QEventPoint::State::Updated },
              "the item got type %d with %d points (expected a TouchUpdate with point 0 moved only)", (int)d.type,
              (int)d.ids.size());
    }
    /* A move of both: the dropped finger stays out. */
    QTest::touchEvent(rig.win, dev).move(0, QPoint(70, 50), rig.win).move(1, QPoint(310, 50), rig.win);
    CHECK(WAIT_FOR(rig.rec->got.size() >= 3, 1000), "the second update never reached the item");
    const Delivered &d2 = rig.rec->got.back();
    CHECK(d2.ids == QList<int>{ 0 }, "a move of both reached the item with %d points", (int)d2.ids.size());
    /* The dropped finger lifts, the other moves: point 0 only, still an update. */
    QTest::touchEvent(rig.win, dev).move(0, QPoint(80, 50), rig.win).release(1, QPoint(310, 50), rig.win);
    CHECK(WAIT_FOR(rig.rec->got.size() >= 4, 1000), "the third update never reached the item");
    const Delivered &d3 = rig.rec->got.back();
    CHECK(d3.type == QEvent::TouchUpdate && d3.ids == QList<int>{ 0 }, "after the dropped finger lifted: type %d, %d points",
          (int)d3.type, (int)d3.ids.size());
    QTest::touchEvent(rig.win, dev).release(0, QPoint(80, 50), rig.win);
    CHECK(rig.rec->count(QEvent::TouchEnd) == 1, "the item got %d TouchEnd", rig.rec->count(QEvent::TouchEnd));
    CHECK(rig.touches() == 0, "%zu touches live", rig.touches());

    /* A platform TouchCancel: Qt cancels the points itself, NavGuard ends them. */
    rig.clear();
    QTest::touchEvent(rig.win, dev).press(5, QPoint(50, 50), rig.win);
    CHECK(rig.touches() == 1, "%zu touches live", rig.touches());
    QTouchEvent cancel(QEvent::TouchCancel, dev);
    QCoreApplication::sendEvent(rig.win, &cancel);
    CHECK(rig.touches() == 0, "%zu touches live after TouchCancel", rig.touches());
    s = rig.last(NG_EVENT_TOUCH);
    CHECK(s && s->e.phase == NG_TOUCH_CANCELLED, "TouchCancel did not end the NavGuard touch");
}

/* Two Buttons (QtQuick.Controls) and a TapHandler, for the cancel routing. */
static const char kButtonsQml[] = R"QML(
import QtQuick
import QtQuick.Controls
Window {
    width: 400; height: 300; visible: true
    property int leftClicks: 0
    property int rightClicks: 0
    property int taps: 0
    property int tapCancels: 0
    property alias leftPressed: left.pressed
    property alias rightPressed: right.pressed
    property alias tapPressed: tap.pressed
    Button { id: left; x: 0; y: 0; width: 150; height: 100; onClicked: leftClicks++ }
    Button { id: right; x: 200; y: 0; width: 150; height: 100; onClicked: rightClicks++ }
    Rectangle {
        x: 0; y: 150; width: 150; height: 100
        TapHandler { id: tap; onTapped: taps++; onCanceled: tapCancels++ }
    }
}
)QML";

static void test_cancel_routing() {
    QQmlApplicationEngine engine;
    engine.loadData(kButtonsQml);
    auto *win = qobject_cast<QQuickWindow *>(engine.rootObjects().value(0));
    CHECK(win != nullptr, "the QML window did not load");
    if (!win) return;
    CHECK(QTest::qWaitForWindowExposed(win), "the window was not exposed");
    ng_context *ctx = nullptr;
    struct Router {
        InputFilter *filter = nullptr;
        int cancels = 0;
    } router;
    ng_options o = NG_OPTIONS_INIT;
    o.delegate.user = &router;
    o.delegate.on_touch_cancel = [](void *user, ng_context *, const ng_touch_info *t) {
        auto *r = static_cast<Router *>(user);
        r->cancels++;
        r->filter->routeTouchCancel(t);
    };
    ng_context_create(&o, &ctx);
    ng_chain_configure(ctx, nullptr);
    ng_screen home = { 1, "home", nullptr };
    ng_stack_set_root(ctx, &home);
    /* NavGuard views where the buttons are: removing one cancels the touch on it. */
    ng_view lv = NG_VIEW_INIT, rv = NG_VIEW_INIT, tv = NG_VIEW_INIT;
    lv.id = 1;
    lv.frame = ng_rect{ 0, 0, 150, 100 };
    rv.id = 2;
    rv.frame = ng_rect{ 200, 0, 150, 100 };
    tv.id = 3;
    tv.frame = ng_rect{ 0, 150, 150, 100 };
    lv.flags = rv.flags = tv.flags = NG_VIEWF_MULTI_TOUCH;
    ng_view_set(ctx, &lv);
    ng_view_set(ctx, &rv);
    ng_view_set(ctx, &tv);
    InputFilter filter(ctx);
    router.filter = &filter;
    filter.attach(win);
    std::unique_ptr<QPointingDevice> device(QTest::createTouchDevice());
    QPointingDevice *dev = device.get();

    /* One finger on each button; NavGuard cancels the left one (its view is
     * removed) while the right one stays down. */
    QTest::touchEvent(win, dev).press(0, QPoint(50, 50), win).press(1, QPoint(250, 50), win);
    CHECK(win->property("leftPressed").toBool() && win->property("rightPressed").toBool(),
          "both buttons should be pressed");
    ng_view_remove(ctx, 1);
    CHECK(router.cancels == 1, "%d touch cancels, expected 1", router.cancels);
    CHECK(!win->property("leftPressed").toBool(), "the left button is still pressed after its touch was cancelled");
    CHECK(win->property("rightPressed").toBool(), "the right button lost its press");
    QTest::touchEvent(win, dev).move(0, QPoint(55, 50), win).move(1, QPoint(255, 50), win);
    QTest::touchEvent(win, dev).release(0, QPoint(55, 50), win).release(1, QPoint(255, 50), win);
    CHECK(win->property("leftClicks").toInt() == 0, "the cancelled button clicked");
    CHECK(win->property("rightClicks").toInt() == 1, "the other button did not click (%d)",
          win->property("rightClicks").toInt());
    ng_view_set(ctx, &lv);

    /* A TapHandler holds only a passive grab: cancelled all the same. */
    QTest::touchEvent(win, dev).press(2, QPoint(50, 200), win);
    CHECK(win->property("tapPressed").toBool(), "the TapHandler is not pressed");
    ng_view_remove(ctx, 3);
    CHECK(!win->property("tapPressed").toBool(), "the TapHandler is still pressed after its touch was cancelled");
    /* (TapHandler emits canceled twice on one cancelled grab, as when a
     * Flickable steals it: once as a pointer handler, once from setPressed.) */
    CHECK(win->property("tapCancels").toInt() >= 1, "the TapHandler emitted %d canceled",
          win->property("tapCancels").toInt());
    QTest::touchEvent(win, dev).release(2, QPoint(50, 200), win);
    CHECK(win->property("taps").toInt() == 0, "the cancelled TapHandler tapped");
    ng_view_set(ctx, &tv);
    /* It still works afterwards. */
    QTest::touchEvent(win, dev).press(4, QPoint(50, 200), win);
    QTest::touchEvent(win, dev).release(4, QPoint(50, 200), win);
    CHECK(win->property("taps").toInt() == 1, "the TapHandler did not tap after a cancel (%d)",
          win->property("taps").toInt());

    /* The mouse: its grab is taken away the same way. */
    QTest::mousePress(win, Qt::LeftButton, {}, QPoint(250, 50));
    CHECK(win->property("rightPressed").toBool(), "the mouse did not press the right button");
    ng_view_remove(ctx, 2);
    CHECK(!win->property("rightPressed").toBool(), "the right button is still pressed after the mouse was cancelled");
    QTest::mouseRelease(win, Qt::LeftButton, {}, QPoint(250, 50));
    CHECK(win->property("rightClicks").toInt() == 1, "the cancelled mouse press clicked");
    size_t live = 0;
    ng_touch_count(ctx, &live);
    CHECK(live == 0, "%zu touches live", live);
    filter.attach(nullptr);
    ng_context_destroy(ctx);
}

/* --------------------------------------------------------------------------- */
/* Navigator                                                                    */
/* --------------------------------------------------------------------------- */

static const char kNavQml[] = R"QML(
import QtQuick
import QtQuick.Controls
import NavGuard
Window {
    id: win
    width: 400; height: 300; visible: true
    property alias nav: nav
    property alias stack: stack
    property var outcomes: []
    property int stackWarnings: 0
    property bool pushOnIdle: false
    property bool guarded: true
    property real slide: 1          /* how far the page below moves: 1 full width, 0.3 a 30 % slide */
    property real popFade: 1        /* the page below's opacity when a pop starts */
    StackView {
        id: stack
        anchors.fill: parent
        onBusyChanged: if (!busy && win.pushOnIdle) { win.pushOnIdle = false; nav.push("c") }
        pushEnter: Transition { XAnimator { from: 400; to: 0; duration: 200 } }
        pushExit: Transition { XAnimator { from: 0; to: -400 * win.slide; duration: 200 } }
        popEnter: Transition {
            XAnimator { from: -400 * win.slide; to: 0; duration: 200 }
            NumberAnimation { property: "opacity"; from: win.popFade; to: 1; duration: 200 }
        }
        popExit: Transition { XAnimator { from: 0; to: 400; duration: 200 } }
    }
    Navigator {
        id: nav
        objectName: "nav"
        stackView: stack
        initialRoute: "a"
        guarded: win.guarded
        routes: ({ a: pageA, b: pageB, c: pageC, d: pageD })
        onOutcome: (o) => win.outcomes = win.outcomes.concat([o])
    }
    Component { id: pageA; Rectangle { color: "red"; property string name: "a" } }
    Component { id: pageB; Rectangle { color: "green"; property string name: "b"; property string label: "" } }
    Component { id: pageC; Rectangle { color: "blue"; property string name: "c" } }
    Component { id: pageD; Rectangle { color: "yellow"; property string name: "d"
        Component.onCompleted: nav.push("c") } }
}
)QML";

static QStringList g_warnings;
/* Every warning of the run: the adapter must run without one (a Qt warning
 * is how Qt says a call did nothing, as a refused connection did). */
static QStringList g_allWarnings;
static QtMessageHandler g_previousHandler;
static void captureWarnings(QtMsgType type, const QMessageLogContext &c, const QString &msg) {
    if (type == QtWarningMsg || type == QtCriticalMsg) {
        g_warnings << msg;
        g_allWarnings << msg;
    }
    g_previousHandler(type, c, msg);
}

/* The keys every Navigator signal carried during the run, by signal: the
 * signal reference (signal_reference) must document each. */
static QMap<QString, QSet<QString>> g_signalKeys;
static void noteKeys(const char *signal, const QVariantMap &m) {
    for (auto it = m.cbegin(); it != m.cend(); ++it) g_signalKeys[QString::fromLatin1(signal)].insert(it.key());
}
static void recordSignalKeys(Navigator *nav) {
#define NOTE(sig) QObject::connect(nav, &Navigator::sig, nav, [](const QVariantMap &m) { noteKeys(#sig, m); })
    NOTE(outcome);
    NOTE(applied);
    NOTE(refused);
    NOTE(dropped);
    NOTE(deferred);
    NOTE(submitted);
    NOTE(transition);
    NOTE(question);
    NOTE(holdEnded);
    NOTE(touchCancelled);
    NOTE(swipe);
#undef NOTE
    QObject::connect(nav, &Navigator::questionEnded, nav,
                     [](const QVariantMap &m, const QString &) { noteKeys("questionEnded", m); });
}

struct NavRig {
    QQmlApplicationEngine engine;
    QQuickWindow *win = nullptr;
    Navigator *nav = nullptr;
    QQuickItem *stack = nullptr;
    explicit NavRig(bool guarded = true) {
        engine.setInitialProperties({ { QStringLiteral("guarded"), guarded } });
        engine.loadData(kNavQml);
        win = qobject_cast<QQuickWindow *>(engine.rootObjects().value(0));
        if (!win) qFatal("the Navigator QML did not load");
        nav = win->property("nav").value<Navigator *>();
        stack = win->property("stack").value<QQuickItem *>();
        if (!nav || !stack) qFatal("no navigator or stack");
        recordSignalKeys(nav);
        if (!QTest::qWaitForWindowExposed(win)) qFatal("the window was not exposed");
    }
    QString top() const {
        auto *item = stack->property("currentItem").value<QQuickItem *>();
        return item ? item->property("name").toString() : QString();
    }
    int depth() const { return stack->property("depth").toInt(); }
    bool busy() const { return stack->property("busy").toBool(); }
    bool navBusy() const {
        bool b = true;
        ng_transition_in_flight(nav->context(), NG_TRACK_SCREEN, &b, nullptr);
        return b;
    }
    bool idle(int ms = 3000) { return WAIT_FOR(!busy() && !navBusy(), ms); }
    QVariantMap outcome(double id) const {
        for (const QVariant &v : win->property("outcomes").toList())
            if (v.toMap().value(QStringLiteral("id")).toDouble() == id) return v.toMap();
        return {};
    }
};

static void test_navigator_push_back() {
    NavRig r;
    CHECK(r.nav->ready(), "no context: %s", qPrintable(r.nav->error()));
    CHECK(r.depth() == 1 && r.top() == "a", "initial StackView: depth %d, top '%s'", r.depth(), qPrintable(r.top()));
    size_t guards = 0;
    ng_chain_count(r.nav->context(), &guards);
    CHECK(guards >= 7, "the default chain has %zu guards", guards);
    QSignalSpy transitions(r.nav, &Navigator::transition);
    double id = r.nav->push(QStringLiteral("b"), { { QStringLiteral("label"), QStringLiteral("hello") } });
    CHECK(id > 0, "push returned %g (%s)", id, qPrintable(r.nav->error()));
    CHECK(r.outcome(id).value(QStringLiteral("outcome")) == QStringLiteral("applied"), "push: no applied outcome");
    CHECK(r.navBusy(), "NavGuard has no transition in flight after an animated push");
    /* StackView follows one event-loop turn later, animated. */
    CHECK(WAIT_FOR(r.depth() == 2, 1000), "StackView did not push (depth %d)", r.depth());
    CHECK(r.busy(), "StackView's push is not animated");
    auto *page = r.stack->property("currentItem").value<QQuickItem *>();
    CHECK(page && page->property("label").toString() == QStringLiteral("hello"), "the page's properties were not set");
    /* Back during the push: refused busy, StackView untouched. */
    double b = r.nav->back();
    QVariantMap bo = r.outcome(b);
    CHECK(bo.value(QStringLiteral("outcome")) == QStringLiteral("refused") &&
              bo.value(QStringLiteral("reason")) == QStringLiteral("busy"),
          "back during a push: %s %s", qPrintable(bo.value(QStringLiteral("outcome")).toString()),
          qPrintable(bo.value(QStringLiteral("reason")).toString()));
    /* StackView's transition ends: NavGuard's did-show. */
    CHECK(r.idle(), "the push never settled (StackView busy %d, NavGuard busy %d)", r.busy(), r.navBusy());
    CHECK(r.depth() == 2 && r.top() == "b", "after the push: depth %d top '%s'", r.depth(), qPrintable(r.top()));
    bool sawDid = false;
    for (const QList<QVariant> &args : transitions) {
        QVariantMap t = args.value(0).toMap();
        sawDid |= t.value(QStringLiteral("phase")) == QStringLiteral("did") && t.value(QStringLiteral("id")).toDouble() == id &&
                  t.value(QStringLiteral("toRoute")) == QStringLiteral("b");
    }
    CHECK(sawDid, "no did-show for the push");
    CHECK(r.nav->routeStack() == (QStringList{ "a", "b" }), "routeStack %s", qPrintable(r.nav->routeStack().join(',')));
    /* Back now: applied, StackView pops; the popped screen's record goes. */
    double bScreen = r.nav->currentScreen();
    CHECK(r.nav->routeOf(bScreen) == "b", "routeOf the top: '%s'", qPrintable(r.nav->routeOf(bScreen)));
    b = r.nav->back();
    CHECK(r.outcome(b).value(QStringLiteral("outcome")) == QStringLiteral("applied"), "back when idle was not applied");
    CHECK(r.idle() && r.depth() == 1 && r.top() == "a", "after back: depth %d top '%s'", r.depth(), qPrintable(r.top()));
    CHECK(r.nav->routeOf(bScreen).isEmpty(), "the popped screen's record is kept");
    /* A refused push keeps nothing either; the stack's screens keep theirs. */
    r.nav->push(QStringLiteral("a"));   /* a duplicate of the top: refused by dedupe */
    CHECK(r.nav->routeStack() == (QStringList{ "a" }), "routeStack %s", qPrintable(r.nav->routeStack().join(',')));
    /* A push of an unknown route: no request. */
    CHECK(r.nav->push(QStringLiteral("nowhere")) == 0 && r.nav->error().contains("nowhere"), "unknown route accepted");
    /* The one warning this run expects: the Navigator's own, for a QML author. */
    CHECK(g_allWarnings.removeAll(QStringLiteral("NavGuard: Navigator.push: no route 'nowhere' in routes")) == 1,
          "no warning for an unknown route");
}

static void test_navigator_reentrancy() {
    NavRig r;
    g_warnings.clear();
    /* A page that pushes from its own construction (inside StackView.push). */
    r.nav->push(QStringLiteral("d"));
    CHECK(WAIT_FOR(r.depth() == 3 && !r.busy() && !r.navBusy(), 4000), "depth %d top '%s' (expected d then c)",
          r.depth(), qPrintable(r.top()));
    CHECK(r.top() == "c", "top '%s'", qPrintable(r.top()));
    CHECK(r.nav->routeStack() == (QStringList{ "a", "d", "c" }), "NavGuard's stack %s",
          qPrintable(r.nav->routeStack().join(',')));
    /* A push from StackView's own busyChanged handler. */
    r.nav->popToRoot();
    CHECK(r.idle(), "pop to root did not settle");
    r.win->setProperty("pushOnIdle", true);
    r.nav->push(QStringLiteral("b"));
    CHECK(WAIT_FOR(r.depth() == 3 && !r.busy() && !r.navBusy(), 4000), "depth %d (expected a,b,c)", r.depth());
    CHECK(r.nav->routeStack() == (QStringList{ "a", "b", "c" }), "NavGuard's stack %s",
          qPrintable(r.nav->routeStack().join(',')));
    int stackWarnings = 0;
    for (const QString &w : g_warnings) stackWarnings += w.contains(QStringLiteral("StackView"));
    CHECK(stackWarnings == 0, "StackView warned: %s", qPrintable(g_warnings.join('\n')));
}

static void test_navigator_post() {
    NavRig r;
    QSignalSpy applied(r.nav, &Navigator::applied);
    uint64_t ids[3] = { 0, 0, 0 };
    ng_status st[3] = { NG_E_STATE, NG_E_STATE, NG_E_STATE };
    std::thread worker([&] {
        navguard::qt6::PostRequest p;
        p.route = QStringLiteral("b");
        p.properties = { { QStringLiteral("label"), QStringLiteral("from a thread") } };
        p.source = 901;
        st[0] = r.nav->post(p, &ids[0]);
    });
    worker.join();
    CHECK(st[0] == NG_OK, "post: %s", ng_strstatus(st[0]));
    CHECK(ids[0] >= (UINT64_C(1) << 52) || ids[0] > 0, "posted id %llu", (unsigned long long)ids[0]);
    /* Nothing else happens: the wake-up alone makes the GUI loop tick. */
    CHECK(WAIT_FOR(r.depth() == 2, 2000), "the posted push never reached StackView (depth %d)", r.depth());
    auto *page = r.stack->property("currentItem").value<QQuickItem *>();
    CHECK(page && page->property("label").toString() == QStringLiteral("from a thread"),
          "the posted page's properties were not set");
    CHECK(r.idle(), "the posted push did not settle");
    CHECK(applied.size() == 1 && applied.at(0).value(0).toMap().value(QStringLiteral("source")).toUInt() == 901,
          "%d applied outcomes", (int)applied.size());
}

/* A drag from the left edge with the mouse, released at `fraction`. */
static void edgeDrag(QQuickWindow *win, double fraction, int holdMs) {
    QPoint p(4, 150);
    QTest::mousePress(win, Qt::LeftButton, {}, p);
    int to = static_cast<int>(4 + fraction * 400);
    for (int i = 1; i <= 20; i++) {
        QTest::mouseMove(win, QPoint(4 + (to - 4) * i / 20, 150), 15);
    }
    QTest::qWait(holdMs);
    QTest::mouseRelease(win, Qt::LeftButton, {}, QPoint(to, 150));
}

/* The first item below `item` whose `name` property is `name`. */
static QQuickItem *pageNamed(QQuickItem *item, const QString &name) {
    if (!item) return nullptr;
    for (QQuickItem *child : item->childItems()) {
        if (child->property("name").toString() == name) return child;
        if (QQuickItem *found = pageNamed(child, name)) return found;
    }
    return nullptr;
}

/* Mid-swipe, the page below sits where StackView's popEnter puts it at the
 * finger's progress, and follows the finger; released short it goes back,
 * released past half way it ends where the pop leaves it (no jump). */
static void test_navigator_swipe_below() {
    for (double slide : { 1.0, 0.3 }) {
        NavRig r;
        r.win->setProperty("slide", slide);
        r.win->setProperty("popFade", 0.2);
        r.nav->push(QStringLiteral("b"));
        CHECK(r.idle(), "push did not settle");
        QQuickItem *a = pageNamed(r.stack, QStringLiteral("a"));
        QQuickItem *b = pageNamed(r.stack, QStringLiteral("b"));
        CHECK(a && b, "pages a and b not found");
        if (!a || !b) return;
        const double restX = a->x();
        CHECK(restX == -400 * slide, "slide %g: page a rests at x %g after the push", slide, restX);
        for (int round = 0; round < 2; round++) {
            bool finish = round == 1;
            QTest::mousePress(r.win, Qt::LeftButton, {}, QPoint(4, 150));
            for (int dx : { 20, 60, 100 }) QTest::mouseMove(r.win, QPoint(4 + dx, 150), 15);
            CHECK(r.nav->swiping(), "slide %g: no swipe", slide);
            /* At 25 % (100 px) and at 50 % (200 px) of the 400 px view. */
            for (int dx : { 100, 200 }) {
                QTest::mouseMove(r.win, QPoint(4 + dx, 150), 15);
                double p = dx / 400.0;
                CHECK(b->x() == dx, "slide %g: the top page at x %g, the finger moved %d", slide, b->x(), dx);
                CHECK(a->isVisible(), "slide %g: the page below is hidden mid-swipe", slide);
                CHECK(std::abs(a->x() - (-400 * slide * (1 - p))) < 0.01,
                      "slide %g at %d %%: the page below at x %g, StackView's pop puts it at %g", slide,
                      int(p * 100), a->x(), -400 * slide * (1 - p));
                CHECK(std::abs(a->opacity() - (0.2 + 0.8 * p)) < 0.01, "slide %g at %d %%: opacity %g, expected %g",
                      slide, int(p * 100), a->opacity(), 0.2 + 0.8 * p);
                CHECK(a->z() < b->z() || a->parentItem() != b->parentItem() ||
                          a->parentItem()->childItems().indexOf(a) < a->parentItem()->childItems().indexOf(b),
                      "slide %g: the page below is drawn over the top page", slide);
            }
            if (!finish) {
                QTest::qWait(200); /* held still: no fling */
                QTest::mouseRelease(r.win, Qt::LeftButton, {}, QPoint(204, 150));
                CHECK(r.idle(), "slide %g: the cancelled swipe did not settle", slide);
                CHECK(r.depth() == 2 && b->x() == 0, "slide %g: after cancel depth %d, top at %g", slide, r.depth(),
                      b->x());
                CHECK(a->x() == restX && a->opacity() == 1 && !a->isVisible(),
                      "slide %g: after cancel the page below at x %g opacity %g visible %d (was %g, 1, hidden)", slide,
                      a->x(), a->opacity(), a->isVisible(), restX);
            } else {
                /* Past half way, then released: it settles and pops. */
                QTest::mouseMove(r.win, QPoint(4 + 300, 150), 15);
                CHECK(std::abs(a->x() - (-400 * slide * 0.25)) < 0.01, "slide %g at 75 %%: x %g", slide, a->x());
                QTest::qWait(200);
                QTest::mouseRelease(r.win, Qt::LeftButton, {}, QPoint(304, 150));
                /* While it settles, the page below keeps following the top. */
                bool followed = true;
                QElapsedTimer t;
                t.start();
                while (r.nav->swiping() && t.elapsed() < 2000) {
                    QTest::qWait(5);
                    if (!r.nav->swiping() || !b) break;
                    double p = b->x() / 400.0;
                    followed &= std::abs(a->x() - (-400 * slide * (1 - p))) < 0.01;
                }
                CHECK(followed, "slide %g: the page below did not follow the settling page", slide);
                CHECK(WAIT_FOR(r.depth() == 1 && !r.navBusy() && !r.busy(), 3000), "slide %g: did not pop", slide);
                CHECK(a->x() == 0 && a->opacity() == 1 && a->isVisible(),
                      "slide %g: after the pop the page at x %g opacity %g visible %d", slide, a->x(), a->opacity(),
                      a->isVisible());
            }
        }
    }
}

static void test_navigator_swipe() {
    NavRig r;
    QSignalSpy swipes(r.nav, &Navigator::swipe);
    r.nav->push(QStringLiteral("b"));
    CHECK(r.idle(), "push did not settle");
    /* Released at 30 %, slowly: springs back. */
    edgeDrag(r.win, 0.30, 300);
    CHECK(r.idle(), "the cancelled swipe did not settle");
    CHECK(r.depth() == 2 && r.top() == "b", "after a swipe released at 30 %%: depth %d top '%s'", r.depth(),
          qPrintable(r.top()));
    auto *page = r.stack->property("currentItem").value<QQuickItem *>();
    CHECK(page && page->x() == 0, "the page did not spring back (x %g)", page ? page->x() : -1);
    bool began = false, released = false;
    for (const QList<QVariant> &a : swipes) {
        QVariantMap m = a.value(0).toMap();
        began |= m.value("event") == "begin" && m.value("outcome") == "applied" && m.value("status") == "NG_OK";
        released |= m.value("event") == "release" && !m.value("finish").toBool();
    }
    CHECK(began && released, "swipe events: began %d released-to-cancel %d", began, released);
    /* Released at 70 %: pops. */
    swipes.clear();
    edgeDrag(r.win, 0.70, 300);
    CHECK(WAIT_FOR(r.depth() == 1 && !r.navBusy(), 3000), "after a swipe released at 70 %%: depth %d", r.depth());
    CHECK(r.nav->routeStack() == (QStringList{ "a" }), "NavGuard's stack %s", qPrintable(r.nav->routeStack().join(',')));
    bool finished = false;
    for (const QList<QVariant> &a : swipes) {
        QVariantMap m = a.value(0).toMap();
        finished |= m.value("event") == "complete" && m.value("finish").toBool() && m.value("ok").toBool();
    }
    CHECK(finished, "no completed swipe");
    /* At the root, the edge does nothing. */
    swipes.clear();
    edgeDrag(r.win, 0.70, 0);
    CHECK(r.idle() && r.depth() == 1, "a swipe at the root changed the stack");
}

static void test_navigator_deadline() {
    NavRig r;
    QSignalSpy holds(r.nav, &Navigator::holdEnded);
    /* A hold begun on the context directly, with a 80 ms limit: NavGuard
     * pushes its deadline (on_deadline), the Navigator's timer ticks. */
    uint64_t token = 0;
    QElapsedTimer t;
    t.start();
    CHECK(ng_hold_begin(r.nav->context(), "loading", NG_MASK_TOUCH, 80 * 1000000LL, &token) == NG_OK,
          "ng_hold_begin failed");
    CHECK(WAIT_FOR(holds.size() == 1, 2000), "the hold never expired (no tick at its deadline)");
    qint64 ms = t.elapsed();
    CHECK(ms >= 75, "the hold ended after %lld ms, before its 80 ms limit", (long long)ms);
    if (holds.size() == 1)
        CHECK(holds.at(0).value(0).toMap().value("reason") == "expired", "the hold ended %s",
              qPrintable(holds.at(0).value(0).toMap().value("reason").toString()));
}

static void test_navigator_stale() {
    NavRig r;
    r.nav->push(QStringLiteral("b"));
    CHECK(r.idle(), "push did not settle");
    double b = r.nav->currentScreen();
    QSignalSpy outcomes(r.nav, &Navigator::outcome);
    /* The user goes back; a reply asked from b arrives during the pop. */
    r.nav->back();
    ng_status st = NG_E_STATE;
    std::thread([&] {
        navguard::qt6::PostRequest p;
        p.route = QStringLiteral("c");
        p.fromScreen = static_cast<uint64_t>(b);
        p.source = 901;
        st = r.nav->post(p);
    }).join();
    CHECK(st == NG_OK, "post: %s", ng_strstatus(st));
    auto reply = [&] {
        for (const QList<QVariant> &a : outcomes)
            if (a.value(0).toMap().value("source").toUInt() == 901) return a.value(0).toMap();
        return QVariantMap();
    };
    CHECK(WAIT_FOR(!reply().isEmpty(), 3000), "the stale reply got no outcome");
    /* Refused when it is evaluated (the pop already left b), or dropped if
     * a guard queued it first: stale either way, never applied. */
    CHECK(reply().value("reason") == "stale" && reply().value("outcome") != "applied", "the reply was %s %s",
          qPrintable(reply().value("outcome").toString()), qPrintable(reply().value("reason").toString()));
    CHECK(r.idle() && r.depth() == 1 && r.top() == "a", "after the stale reply: depth %d top '%s'", r.depth(),
          qPrintable(r.top()));
    /* Scoped to the screen still on top: applied. */
    r.nav->post([&] {
        navguard::qt6::PostRequest p;
        p.route = QStringLiteral("c");
        p.fromScreen = static_cast<uint64_t>(r.nav->currentScreen());
        return p;
    }());
    CHECK(WAIT_FOR(r.depth() == 2 && !r.busy() && !r.navBusy(), 3000), "a reply for the top screen was not applied");
}

static void test_navigator_question() {
    NavRig r;
    QSignalSpy questions(r.nav, &Navigator::question);
    QSignalSpy ended(r.nav, &Navigator::questionEnded);
    r.nav->push(QStringLiteral("b"), {}, { { QStringLiteral("confirmLeave"), true } });
    CHECK(r.idle(), "push did not settle");
    /* Back asks; no keeps the screen. */
    double back = r.nav->back({ { QStringLiteral("source"), 7 } });
    CHECK(questions.size() == 1, "%d questions after Back", (int)questions.size());
    /* The question says which request (and its source) it holds. */
    QVariantMap q = questions.value(0).value(0).toMap();
    CHECK(q.value("route") == "b" && q.value("kind") == "back" && q.value("requestId").toDouble() == back &&
              q.value("source").toUInt() == 7,
          "the question: route %s kind %s", qPrintable(q.value("route").toString()), qPrintable(q.value("kind").toString()));
    CHECK(r.nav->answer(q.value("id").toDouble(), false), "answer(no): %s", qPrintable(r.nav->error()));
    CHECK(ended.size() == 1 && ended.at(0).value(1) == "no", "questionEnded: %d", (int)ended.size());
    QVariantMap bo = r.outcome(back);
    /* It was held (deferred) while asking: a held request ends dropped. */
    CHECK(bo.value("outcome") == "dropped" && bo.value("reason") == "declined", "Back answered no: %s %s",
          qPrintable(bo.value("outcome").toString()), qPrintable(bo.value("reason").toString()));
    CHECK(r.idle() && r.depth() == 2, "depth %d after no", r.depth());
    /* A swipe on it does not start: it asks, and yes is a Back. */
    questions.clear();
    edgeDrag(r.win, 0.70, 0);
    CHECK(WAIT_FOR(questions.size() == 1, 1000), "a swipe on a confirm-leave screen did not ask");
    CHECK(r.depth() == 2, "the swipe moved the stack before the answer");
    q = questions.value(0).value(0).toMap();
    CHECK(r.nav->answer(q.value("id").toDouble(), true), "answer(yes): %s", qPrintable(r.nav->error()));
    CHECK(WAIT_FOR(r.depth() == 1 && !r.busy() && !r.navBusy(), 3000), "yes did not leave (depth %d)", r.depth());
    /* setConfirmLeave on a stacked screen, and off again. */
    r.nav->push(QStringLiteral("c"));
    CHECK(r.idle(), "push did not settle");
    CHECK(r.nav->setConfirmLeave(r.nav->currentScreen(), true), "setConfirmLeave: %s", qPrintable(r.nav->error()));
    questions.clear();
    double pop = r.nav->popToRoot();
    CHECK(questions.size() == 1, "popToRoot of a confirm-leave screen did not ask");
    CHECK(r.outcome(pop).isEmpty(), "popToRoot was decided before the answer");
    CHECK(r.nav->answer(questions.value(0).value(0).toMap().value("id").toDouble(), false), "answer(no)");
    CHECK(r.nav->setConfirmLeave(r.nav->currentScreen(), false), "setConfirmLeave(off): %s", qPrintable(r.nav->error()));
    questions.clear();
    r.nav->popToRoot();
    CHECK(questions.isEmpty() && r.idle() && r.depth() == 1, "after confirm-leave off: %d questions, depth %d",
          (int)questions.size(), r.depth());
    CHECK(!r.nav->answer(12345, true), "answering a question that is not open succeeded");
}

static const char kKeysQml[] = R"QML(
import QtQuick
import QtQuick.Controls
import NavGuard
ApplicationWindow {
    id: win
    width: 400; height: 300; visible: true
    property alias nav: nav
    property alias stack: stack
    property alias field: field
    property alias backButton: backButton
    property alias dialog: dialog
    property var outcomes: []
    property bool shortcutOn: false
    property int shortcutHits: 0
    property int keysHandler: 0
    header: ToolBar {
        ToolButton { id: backButton; text: "Back"; onClicked: nav.back({ source: 1 }) }
    }
    Shortcut { sequence: "Escape"; enabled: win.shortcutOn; onActivated: win.shortcutHits++ }
    /* README's way before backKeys: a Keys handler on the StackView. */
    StackView { id: stack; anchors.fill: parent; focus: true
        Keys.onEscapePressed: { win.keysHandler++; nav.back({ source: 2 }) } }
    Navigator {
        id: nav
        stackView: stack
        initialRoute: "start"
        routes: ({ start: page, menu: page, latte: page })
        onOutcome: (o) => win.outcomes = win.outcomes.concat([o])
    }
    Component { id: page; Page { } }
    TextField { id: field; x: 10; y: 200; width: 200 }
    Dialog { id: dialog; title: "Leave?"; closePolicy: Popup.CloseOnEscape; modal: true; focus: true }
}
)QML";

/* Back keys: caught before focus delivery, one guarded Back per press. */
static void test_navigator_back_keys() {
    QQmlApplicationEngine engine;
    engine.loadData(kKeysQml);
    auto *win = qobject_cast<QQuickWindow *>(engine.rootObjects().value(0));
    if (!win) qFatal("the keys QML did not load");
    auto *nav = win->property("nav").value<Navigator *>();
    auto *stack = win->property("stack").value<QQuickItem *>();
    auto *button = win->property("backButton").value<QQuickItem *>();
    auto *field = win->property("field").value<QQuickItem *>();
    win->requestActivate();
    if (!QTest::qWaitForWindowActive(win)) qFatal("the keys window was not activated");
    auto idle = [&] {
        return WAIT_FOR(!stack->property("busy").toBool() && !nav->busy(), 3000);
    };
    auto backs = [&] {
        int n = 0;
        for (const QVariant &v : win->property("outcomes").toList()) n += v.toMap().value("kind") == "back";
        return n;
    };
    CHECK(nav->backKeys() == (QVariantList{ int(Qt::Key_Escape), int(Qt::Key_Back), int(Qt::Key_Backspace) }),
          "default backKeys: %d keys", int(nav->backKeys().size()));
    /* backKeyPressed: once per press that sends a Back, just before the
     * Back's submitted signal. */
    QStringList sent;
    QObject::connect(nav, &Navigator::backKeyPressed, nav, [&sent](int key) { sent << QStringLiteral("key %1").arg(key); });
    QObject::connect(nav, &Navigator::submitted, nav, [&sent](const QVariantMap &m) {
        if (m.value("kind") == "back") sent << QStringLiteral("back %1").arg(m.value("source").toInt());
    });
    /* Start -> Menu -> Latte, the header's Back (it takes the focus), Escape. */
    nav->push(QStringLiteral("menu"));
    CHECK(idle(), "push menu did not settle");
    nav->push(QStringLiteral("latte"));
    CHECK(idle(), "push latte did not settle");
    QTest::mouseClick(win, Qt::LeftButton, {},
                      button->mapToScene(QPointF(button->width() / 2, button->height() / 2)).toPoint());
    CHECK(idle() && nav->depth() == 2, "the header's Back: depth %d", nav->depth());
    CHECK(win->activeFocusItem() == button, "premise: the header's Back button has the focus (%s)",
          win->activeFocusItem() ? win->activeFocusItem()->metaObject()->className() : "none");
    QTest::qWait(350); /* past the throttle's 300 ms */
    int before = backs();
    sent.clear(); /* the header's Back button's own Back */
    QTest::keyClick(win, Qt::Key_Escape);
    CHECK(idle() && nav->depth() == 1, "Escape with the header's Back focused: depth %d", nav->depth());
    CHECK(backs() == before + 1, "Escape sent %d Backs", backs() - before);
    QVariantMap last = win->property("outcomes").toList().value(win->property("outcomes").toList().size() - 1).toMap();
    CHECK(last.value("source").toInt() == Qt::Key_Escape && last.value("outcome") == "applied",
          "Escape's Back: source %d outcome %s", last.value("source").toInt(), qPrintable(last.value("outcome").toString()));
    CHECK(win->property("keysHandler").toInt() == 0, "the StackView's Keys handler also saw Escape");
    CHECK(sent == (QStringList{ QStringLiteral("key %1").arg(int(Qt::Key_Escape)), QStringLiteral("back %1").arg(int(Qt::Key_Escape)) }),
          "Escape's backKeyPressed and Back: %s", qPrintable(sent.join(", ")));
    sent.clear();

    /* Auto-repeat: one Back per press. */
    nav->push(QStringLiteral("menu"));
    CHECK(idle(), "push did not settle");
    nav->push(QStringLiteral("latte"));
    CHECK(idle(), "push did not settle");
    QTest::qWait(350);
    before = backs();
    QTest::keyPress(win, Qt::Key_Escape);
    for (int i = 0; i < 3; i++) {
        QKeyEvent repeat(QEvent::KeyPress, Qt::Key_Escape, Qt::NoModifier, QString(), true);
        QCoreApplication::sendEvent(win, &repeat);
    }
    QTest::keyRelease(win, Qt::Key_Escape);
    CHECK(idle() && nav->depth() == 2 && backs() == before + 1, "a held Escape: depth %d, %d Backs", nav->depth(),
          backs() - before);
    CHECK(sent.size() == 2 && sent.value(0) == QStringLiteral("key %1").arg(int(Qt::Key_Escape)),
          "a held Escape: backKeyPressed and Back %s", qPrintable(sent.join(", ")));
    sent.clear();

    /* Backspace edits a focused text field, and is a Back otherwise. */
    field->forceActiveFocus();
    QTest::keyClick(win, Qt::Key_A);
    QTest::keyClick(win, Qt::Key_B);
    QTest::qWait(350);
    before = backs();
    QTest::keyClick(win, Qt::Key_Backspace);
    CHECK(field->property("text").toString() == QStringLiteral("a") && nav->depth() == 2 && backs() == before,
          "Backspace in a text field: text '%s', depth %d, %d Backs", qPrintable(field->property("text").toString()),
          nav->depth(), backs() - before);
    CHECK(sent.isEmpty(), "Backspace in a text field: backKeyPressed %s", qPrintable(sent.join(", ")));
    stack->forceActiveFocus();
    QTest::keyClick(win, Qt::Key_Backspace);
    CHECK(idle() && nav->depth() == 1, "Backspace with no text field focused: depth %d", nav->depth());
    CHECK(sent.value(0) == QStringLiteral("key %1").arg(int(Qt::Key_Backspace)),
          "Backspace with no text field focused: backKeyPressed %s", qPrintable(sent.join(", ")));

    /* A Shortcut on Escape matches first: no Back. An open Dialog closing on
     * Escape takes it the same way. */
    nav->push(QStringLiteral("menu"));
    CHECK(idle(), "push did not settle");
    QTest::qWait(350);
    before = backs();
    sent.clear();
    win->setProperty("shortcutOn", true);
    QTest::keyClick(win, Qt::Key_Escape);
    CHECK(win->property("shortcutHits").toInt() == 1 && backs() == before && nav->depth() == 2,
          "a Shortcut on Escape: %d hits, %d Backs, depth %d", win->property("shortcutHits").toInt(), backs() - before,
          nav->depth());
    win->setProperty("shortcutOn", false);
    QObject *dialog = win->property("dialog").value<QObject *>();
    QMetaObject::invokeMethod(dialog, "open");
    CHECK(WAIT_FOR(dialog->property("opened").toBool(), 2000), "the dialog did not open");
    QTest::keyClick(win, Qt::Key_Escape);
    CHECK(WAIT_FOR(!dialog->property("visible").toBool(), 2000) && backs() == before && nav->depth() == 2,
          "Escape with a dialog open: dialog visible %d, %d Backs, depth %d", dialog->property("visible").toBool(),
          backs() - before, nav->depth());
    /* backKeys: [] turns them off (README's Keys handler gets Escape again). */
    stack->forceActiveFocus();
    nav->setBackKeys({});
    QTest::keyClick(win, Qt::Key_Escape);
    CHECK(win->property("keysHandler").toInt() == 1 && idle() && nav->depth() == 1,
          "with backKeys [] the page's handler: %d calls, depth %d", win->property("keysHandler").toInt(), nav->depth());
    /* Only the Keys handler's own Back (source 2). */
    CHECK(sent == QStringList{ QStringLiteral("back 2") }, "a Shortcut, a dialog, backKeys []: backKeyPressed %s",
          qPrintable(sent.join(", ")));
}

/* C++ reaches a QML-made Navigator (Navigator::find), and screen ids are
 * exact in JavaScript: at most 2^53, anything else refused. */
static void test_navigator_find_ids() {
    NavRig r;
    CHECK(Navigator::find(&r.engine) == r.nav, "find(engine) did not find the only Navigator");
    CHECK(Navigator::find(&r.engine, QStringLiteral("nav")) == r.nav, "find(engine, \"nav\")");
    CHECK(Navigator::find(&r.engine, QStringLiteral("other")) == nullptr, "find by a name nobody has");
    CHECK(Navigator::find(nullptr) == r.nav, "find(any engine)");
    {
        NavRig r2;
        CHECK(Navigator::find(&r2.engine) == r2.nav && Navigator::find(&r.engine) == r.nav, "two engines mixed up");
        CHECK(Navigator::find(nullptr) == nullptr, "find(any engine) with two Navigators picked one");
        r2.nav->setObjectName(QStringLiteral("second"));
        CHECK(Navigator::find(nullptr, QStringLiteral("second")) == r2.nav, "find by name across engines");
    }
    CHECK(Navigator::find(nullptr) == r.nav, "a destroyed Navigator is still found");
    QQmlEngine empty;
    CHECK(Navigator::find(&empty) == nullptr, "found a Navigator in an engine with none");

    /* A worker thread posts a reply scoped to the screen it was asked from. */
    Navigator *nav = Navigator::find(&r.engine);
    uint64_t asked = nav ? nav->currentScreenId() : 0;
    CHECK(asked != 0 && static_cast<double>(asked) == r.nav->currentScreen(), "currentScreenId %llu",
          (unsigned long long)asked);
    ng_status st = NG_E_STATE;
    std::thread([&] {
        navguard::qt6::PostRequest p;
        p.route = QStringLiteral("b");
        p.fromScreen = asked;
        st = nav->post(p);
    }).join();
    CHECK(st == NG_OK && WAIT_FOR(r.depth() == 2, 2000) && r.idle(), "the scoped post: %s, depth %d",
          ng_strstatus(st), r.depth());

    /* Ids: 2^53 is a screen id; QML reads it exactly and hands it back. */
    const uint64_t max = UINT64_C(1) << 53;
    CHECK(navguard::qt6::kMaxScreenId == max, "kMaxScreenId");
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.flags = NG_REQF_ANIMATED;
    rq.screen.id = max;
    rq.screen.route = "c";
    rq.screen.identity = "c";
    double id = r.nav->submit(rq);
    CHECK(id > 0 && r.outcome(id).value("outcome") == "applied", "a push of screen 2^53: %s", qPrintable(r.nav->error()));
    CHECK(r.idle() && r.nav->currentScreenId() == max, "top %llu", (unsigned long long)r.nav->currentScreenId());
    QQmlExpression js(qmlContext(r.win), r.win,
                      QStringLiteral("nav.currentScreen === 9007199254740992 && nav.routeOf(nav.currentScreen) === 'c' "
                                     "&& nav.setConfirmLeave(nav.currentScreen, false)"));
    QVariant ok = js.evaluate();
    CHECK(ok.toBool() && !js.hasError(), "QML read screen 2^53 wrong: %s", qPrintable(js.error().toString()));
    /* Above 2^53, or not an integer: refused before NavGuard, with a reason. */
    QSignalSpy submitted(r.nav, &Navigator::submitted);
    rq.screen.id = max + 2;
    CHECK(r.nav->submit(rq) == 0 && r.nav->error().contains("2^53"), "a push of screen 2^53+2 was submitted");
    rq = NG_REQUEST_INIT(NG_REQ_BACK);
    rq.from_screen = max + 1;
    CHECK(r.nav->submit(rq) == 0, "a request from screen 2^53+1 was submitted");
    CHECK(r.nav->popTo(-1) == 0 && r.nav->popTo(2.5) == 0 && r.nav->popTo(std::nan("")) == 0 &&
              r.nav->popTo(18446744073709551616.0) == 0,
          "popTo of a number that is no screen id was submitted");
    CHECK(r.nav->back({ { QStringLiteral("fromScreen"), -7 } }) == 0, "fromScreen -7 was submitted");
    CHECK(submitted.isEmpty(), "%d bad ids reached NavGuard", int(submitted.size()));
    CHECK(r.nav->routeOf(-1).isEmpty() && r.nav->routeOf(std::nan("")).isEmpty(), "routeOf a non-id");
    CHECK(!r.nav->setConfirmLeave(-1, true) && !r.nav->answer(std::nan(""), true), "setConfirmLeave/answer of a non-id");
    navguard::qt6::PostRequest p;
    p.kind = NG_REQ_BACK;
    p.fromScreen = max + 1;
    CHECK(r.nav->post(p) == NG_E_RANGE, "a post from screen 2^53+1");
    CHECK(r.depth() == 3, "depth %d", r.depth());
    int expected = 0;
    for (const char *w : { "NavGuard: Navigator.submit: a screen id above 2^53 (QML could not read it exactly)",
                           "NavGuard: Navigator.popTo: -1 is not a screen id (an integer in 1..2^53)",
                           "NavGuard: Navigator.popTo: 2.5 is not a screen id (an integer in 1..2^53)",
                           "NavGuard: Navigator.popTo: nan is not a screen id (an integer in 1..2^53)",
                           "NavGuard: Navigator.popTo: 1.84467e+19 is not a screen id (an integer in 1..2^53)",
                           "NavGuard: Navigator: fromScreen -7 is not a screen id (an integer in 1..2^53)" })
        expected += g_allWarnings.removeAll(QString::fromUtf8(w)) >= 1;
    CHECK(expected == 6, "%d of the 6 expected warnings", expected);
    g_allWarnings.removeAll(QStringLiteral("NavGuard: Navigator.submit: a screen id above 2^53 (QML could not read it exactly)"));
}

static void test_navigator_unguarded() {
    NavRig r(false);
    size_t guards = 99;
    ng_chain_count(r.nav->context(), &guards);
    CHECK(guards == 0, "guarded: false has %zu guards", guards);
    r.nav->push(QStringLiteral("b"));
    CHECK(WAIT_FOR(r.busy(), 1000), "StackView did not animate the push");
    double b = r.nav->back();
    CHECK(r.outcome(b).value(QStringLiteral("outcome")) == QStringLiteral("applied"),
          "unguarded back during a push was not applied");
    CHECK(r.idle(), "did not settle");
    CHECK(r.depth() == 1 && r.top() == "a", "unguarded: depth %d top '%s'", r.depth(), qPrintable(r.top()));
    /* Changes made in one turn reach StackView as one: a pop and a push
     * replace the top. */
    r.nav->push(QStringLiteral("b"));
    CHECK(r.idle(), "push did not settle");
    r.nav->back();
    r.nav->push(QStringLiteral("c"));
    CHECK(r.idle(), "back + push did not settle");
    CHECK(r.depth() == 2 && r.top() == "c" && r.nav->routeStack() == (QStringList{ "a", "c" }),
          "after back + push in one turn: StackView depth %d top '%s', NavGuard %s", r.depth(), qPrintable(r.top()),
          qPrintable(r.nav->routeStack().join(',')));
    /* A replace-stack. */
    r.nav->replaceStack({ QVariantMap{ { "route", "a" } }, QVariantMap{ { "route", "d" } } });
    CHECK(WAIT_FOR(r.depth() == 3 && !r.busy() && !r.navBusy(), 3000), "replace-stack [a, d] (d pushes c): depth %d",
          r.depth());
    CHECK(r.nav->routeStack() == (QStringList{ "a", "d", "c" }), "NavGuard %s", qPrintable(r.nav->routeStack().join(',')));
}

/* --------------------------------------------------------------------------- */
/* One rule for every adapter; every outcome in one place; the signals' keys     */
/* --------------------------------------------------------------------------- */

/* navguard.h's adapter rules: the mouse is NG_MOUSE_TOUCH_ID; an event
 * ng_event_submit answers with a status fails closed (Qt never gets it), and
 * a press Qt already had is ended in Qt when its release cannot be
 * submitted; the failure is said once. */
static void test_adapter_rules() {
    static_assert(kMouseTouchId == NG_MOUSE_TOUCH_ID, "the Qt mouse id is not NG_MOUSE_TOUCH_ID");
    Rig rig;
    rig.clear();
    QTest::mousePress(rig.win, Qt::LeftButton, {}, QPoint(40, 50));
    const Seen *s = rig.last(NG_EVENT_TOUCH);
    CHECK(isTouch(s, NG_TOUCH_BEGAN, NG_MOUSE_TOUCH_ID), "the mouse's touch id is not NG_MOUSE_TOUCH_ID");
    CHECK(rig.rec->count(QEvent::MouseButtonPress) == 1, "the press did not reach the item");
    /* The context is given up (ng_context_detach: every submit gets
     * NG_E_THREAD) while Qt holds the press: the release cannot be
     * submitted; Qt does not get it, and the item's grab is cancelled. */
    g_allWarnings.clear();
    rig.clear();
    CHECK(ng_context_detach(rig.ctx) == NG_OK, "ng_context_detach");
    QTest::mouseRelease(rig.win, Qt::LeftButton, {}, QPoint(40, 50));
    s = rig.last(NG_EVENT_TOUCH);
    CHECK(isTouch(s, NG_TOUCH_ENDED, NG_MOUSE_TOUCH_ID) && s->r.verdict == NG_VERDICT_DROP &&
              s->r.reason == NG_REASON_INVALID,
          "a release the context refused: the observer saw %s", s ? "a delivery" : "nothing");
    CHECK(rig.rec->count(QEvent::MouseButtonRelease) == 0, "the release was passed to Qt (fail open)");
    CHECK(rig.rec->ungrabs == 1, "the item holding the press was not ungrabbed (%d): it stays pressed",
          rig.rec->ungrabs);
    rig.clear();
    QTest::mousePress(rig.win, Qt::LeftButton, {}, QPoint(60, 50));
    QTest::mouseRelease(rig.win, Qt::LeftButton, {}, QPoint(60, 50));
    sendKey(rig.win, QEvent::KeyPress, Qt::Key_A, false);
    CHECK(rig.rec->got.empty(), "with the context given up, Qt got %zu events (fail open)", rig.rec->got.size());
    int said = 0;
    for (const QString &w : g_allWarnings) said += w.startsWith(QStringLiteral("NavGuard: ng_event_submit: NG_E_THREAD"));
    CHECK(said == 1 && g_allWarnings.size() == 1, "the failure was said %d time(s): %s", said,
          qPrintable(g_allWarnings.join('\n')));
    CHECK(ng_context_attach(rig.ctx) == NG_OK, "ng_context_attach");
    /* A destroyed context: the same (the filter outlived it: a host's bug). */
    ng_context_destroy(rig.ctx);
    rig.ctx = nullptr;
    rig.clear();
    QTest::mousePress(rig.win, Qt::LeftButton, {}, QPoint(60, 50));
    QTest::mouseRelease(rig.win, Qt::LeftButton, {}, QPoint(60, 50));
    CHECK(rig.rec->got.empty(), "with the context destroyed, Qt got %zu events (fail open)", rig.rec->got.size());
    g_allWarnings.clear();
}

/* Every request id gets exactly one `outcome`, and the one of applied /
 * refused / dropped its value names; a stale reply is refused when judged
 * at once and dropped when it had waited (a swipe in flight), reason
 * "stale" both times; no transition but the screen track's; every swipe
 * map has the same keys, its status one format. */
static void test_navigator_signals() {
    NavRig r;
    QSignalSpy outcomes(r.nav, &Navigator::outcome);
    QSignalSpy refused(r.nav, &Navigator::refused);
    QSignalSpy dropped(r.nav, &Navigator::dropped);
    QSignalSpy applied(r.nav, &Navigator::applied);
    QSignalSpy transitions(r.nav, &Navigator::transition);
    QSignalSpy swipes(r.nav, &Navigator::swipe);
    QVector<double> ids;
    double a = r.nav->currentScreen();
    ids << r.nav->push(QStringLiteral("b"));
    ids << r.nav->back();   /* during the push: refused busy */
    CHECK(r.idle(), "push did not settle");
    /* A reply scoped to a screen the user left: refused at once. */
    double stale = r.nav->push(QStringLiteral("c"), {}, { { QStringLiteral("fromScreen"), a } });
    ids << stale;
    QVariantMap so = r.outcome(stale);
    CHECK(so.value("outcome") == "refused" && so.value("reason") == "stale", "a stale reply judged at once: %s %s",
          qPrintable(so.value("outcome").toString()), qPrintable(so.value("reason").toString()));
    /* One asked from the page a swipe is taking away: it waits, then is
     * dropped when the swipe pops that page. */
    double b = r.nav->currentScreen();
    QTest::mousePress(r.win, Qt::LeftButton, {}, QPoint(4, 150));
    for (int i = 1; i <= 20; i++) QTest::mouseMove(r.win, QPoint(4 + 280 * i / 20, 150), 15);
    CHECK(r.nav->swiping(), "the drag from the edge did not start a swipe");
    double waited = r.nav->push(QStringLiteral("c"), {}, { { QStringLiteral("fromScreen"), b } });
    ids << waited;
    CHECK(r.outcome(waited).isEmpty(), "the reply asked from the swiped page was decided during the swipe");
    QTest::mouseRelease(r.win, Qt::LeftButton, {}, QPoint(284, 150));
    CHECK(WAIT_FOR(r.depth() == 1 && !r.navBusy() && !r.nav->swiping(), 3000), "the swipe did not pop (depth %d)",
          r.depth());
    QVariantMap wo = r.outcome(waited);
    CHECK(wo.value("outcome") == "dropped" && wo.value("reason") == "stale", "a stale reply that waited: %s %s",
          qPrintable(wo.value("outcome").toString()), qPrintable(wo.value("reason").toString()));
    for (const QList<QVariant> &sw : swipes) {
        QVariantMap m = sw.value(0).toMap();
        if (m.value("event") == "begin") ids << m.value("request").toDouble();
    }
    /* Exactly one outcome per id, and the matching one of the three. */
    for (double id : ids) {
        int n = 0, each = 0;
        for (const QList<QVariant> &o : outcomes) n += o.value(0).toMap().value("id").toDouble() == id;
        for (QSignalSpy *spy : { &applied, &refused, &dropped })
            for (const QList<QVariant> &o : *spy) each += o.value(0).toMap().value("id").toDouble() == id;
        CHECK(id > 0 && n == 1 && each == 1, "request %g: %d outcome signals, %d of applied/refused/dropped", id, n, each);
    }
    CHECK(outcomes.size() == ids.size(), "%d outcomes for %d requests", int(outcomes.size()), int(ids.size()));
    /* Transitions: the screen track only. */
    int other = 0;
    for (const QList<QVariant> &t : transitions) other += t.value(0).toMap().value("track") != "screen";
    CHECK(!transitions.isEmpty() && other == 0, "%d of %d transitions were not the screen track's", other,
          int(transitions.size()));
    /* Swipe maps: one set of keys, status a C status name. */
    QStringList keys;
    QRegularExpression statusName(QStringLiteral("^NG_(OK|E_[A-Z_]+)$"));
    for (const QList<QVariant> &sw : swipes) {
        QVariantMap m = sw.value(0).toMap();
        if (keys.isEmpty()) keys = m.keys();
        CHECK(m.keys() == keys, "swipe %s: keys %s, the first had %s", qPrintable(m.value("event").toString()),
              qPrintable(m.keys().join(',')), qPrintable(keys.join(',')));
        CHECK(statusName.match(m.value("status").toString()).hasMatch() && m.value("ok").toBool() ==
                  (m.value("status") == "NG_OK"),
              "swipe %s: status '%s'", qPrintable(m.value("event").toString()), qPrintable(m.value("status").toString()));
        CHECK(m.value("mouse").toBool(), "a mouse drag's swipe does not say mouse");
    }
    CHECK(swipes.size() == 3, "%d swipe signals for one swipe (begin, release, complete)", int(swipes.size()));
}

/* The guide's leave dialog (adapters/qt6/README.md, "Back keys and a leave
 * dialog"), as written there: answered no, it closes and gives focus back,
 * and Escape (one of backKeys) asks again. */
static const char kLeaveQml[] = R"QML(
import QtQuick
import QtQuick.Controls
import NavGuard
ApplicationWindow {
    id: win
    width: 400; height: 300; visible: true
    property alias nav: nav
    property alias stack: stack
    property alias leave: leave
    property int backs: 0
    StackView { id: stack; anchors.fill: parent; focus: true }
    Dialog {
        id: leave
        property var question: null
        modal: true
        anchors.centerIn: parent
        closePolicy: Popup.NoAutoClose             // answered with its buttons only
        title: question ? question.text : ""
        standardButtons: Dialog.Yes | Dialog.No
        onAccepted: nav.answer(question.id, true)
        onRejected: nav.answer(question.id, false)
        onClosed: stack.forceActiveFocus()         // the Back keys work again
    }
    Navigator {
        id: nav
        stackView: stack
        initialRoute: "a"
        routes: ({ a: pageA, b: pageB })
        onQuestion: (q) => { if (q.kind === "back" && q.source === Qt.Key_Escape) win.backs++
                             leave.question = q; leave.open() }
        onQuestionEnded: (q, answer) => { if (leave.question && leave.question.id === q.id) leave.close() }
    }
    Component { id: pageA; Rectangle { color: "red" } }
    Component { id: pageB; Rectangle { color: "green" } }
}
)QML";

static void test_leave_dialog() {
    QQmlApplicationEngine engine;
    engine.loadData(kLeaveQml);
    auto *win = qobject_cast<QQuickWindow *>(engine.rootObjects().value(0));
    CHECK(win && QTest::qWaitForWindowExposed(win), "the guide's dialog QML did not load");
    if (!win) return;
    auto *nav = win->property("nav").value<Navigator *>();
    auto *stack = win->property("stack").value<QQuickItem *>();
    QObject *leave = win->property("leave").value<QObject *>();
    nav->push(QStringLiteral("b"), {}, { { QStringLiteral("confirmLeave"), true } });
    CHECK(WAIT_FOR(stack->property("depth").toInt() == 2 && !stack->property("busy").toBool() && !nav->busy(), 3000),
          "push did not settle");
    win->requestActivate();
    stack->forceActiveFocus();
    for (int round = 1; round <= 2; round++) {
        QTest::keyClick(win, Qt::Key_Escape);
        CHECK(WAIT_FOR(win->property("backs").toInt() == round, 2000), "round %d: Escape sent no Back (%d backs)",
              round, win->property("backs").toInt());
        CHECK(WAIT_FOR(leave->property("opened").toBool(), 2000), "round %d: the dialog did not open", round);
        QMetaObject::invokeMethod(leave, "reject");   /* its No button */
        CHECK(WAIT_FOR(!leave->property("visible").toBool(), 2000), "round %d: the dialog did not close", round);
        CHECK(stack->hasActiveFocus(), "round %d: the StackView did not get focus back", round);
        CHECK(stack->property("depth").toInt() == 2, "round %d: No left the screen", round);
    }
}

/* The header's signal reference (navguard_qt6.h, Navigator's Q_SIGNALS)
 * names every key each signal carried during this run. */
static void test_signal_reference() {
    QFile f(QStringLiteral(NAVGUARD_QT6_HEADER));
    CHECK(f.open(QIODevice::ReadOnly), "cannot read %s", NAVGUARD_QT6_HEADER);
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n');
    /* The comment above `void <signal>(`, past the declarations it shares. */
    auto docOf = [&](const QString &signal) {
        int k = 0;
        while (k < lines.size() && !lines[k].contains(QStringLiteral("    void %1(").arg(signal))) k++;
        if (k == lines.size()) return QString();
        int end = k - 1;
        while (end >= 0 && lines[end].trimmed().startsWith(QStringLiteral("void "))) end--;
        int begin = end;
        while (begin >= 0 && !lines[begin].contains(QStringLiteral("/*"))) begin--;
        return begin < 0 || !lines[end].contains(QStringLiteral("*/")) ? QString() : lines.mid(begin, end - begin + 1).join('\n');
    };
    CHECK(g_signalKeys.size() >= 10, "only %d signals were seen during the run", int(g_signalKeys.size()));
    for (auto it = g_signalKeys.cbegin(); it != g_signalKeys.cend(); ++it) {
        QString doc = docOf(it.key());
        QRegularExpressionMatch same = QRegularExpression(QStringLiteral("same (?:keys|map) as `?(\\w+)`?")).match(doc);
        if (same.hasMatch()) doc = docOf(same.captured(1));
        for (const QString &key : it.value())
            CHECK(doc.contains(QRegularExpression(QStringLiteral("[ *]%1 \\(").arg(key))),
                  "signal %s: key '%s' is not in the header's reference", qPrintable(it.key()), qPrintable(key));
    }
}

int main(int argc, char **argv) {
    QGuiApplication app(argc, argv);
    navguard::qt6::registerQmlTypes();
    g_previousHandler = qInstallMessageHandler(captureWarnings);
    std::printf("test_qt6_adapter: NavGuard %s, Qt %s, platform %s\n", ng_version_string(), qVersion(),
                qPrintable(QGuiApplication::platformName()));
    struct {
        const char *name;
        void (*fn)();
    } tests[] = {
        { "mouse", test_mouse },
        { "double_click", test_double_click },
        { "keys_wheel", test_keys_wheel },
        { "focus_loss", test_focus_loss },
        { "touch_points", test_touch_points },
        { "cancel_routing", test_cancel_routing },
        { "navigator_push_back", test_navigator_push_back },
        { "navigator_reentrancy", test_navigator_reentrancy },
        { "navigator_post", test_navigator_post },
        { "navigator_swipe", test_navigator_swipe },
        { "navigator_swipe_below", test_navigator_swipe_below },
        { "navigator_back_keys", test_navigator_back_keys },
        { "navigator_find_ids", test_navigator_find_ids },
        { "navigator_deadline", test_navigator_deadline },
        { "navigator_stale", test_navigator_stale },
        { "navigator_question", test_navigator_question },
        { "navigator_unguarded", test_navigator_unguarded },
        { "adapter_rules", test_adapter_rules },
        { "navigator_signals", test_navigator_signals },
        { "leave_dialog", test_leave_dialog },
        { "signal_reference", test_signal_reference },   /* last: the keys of the whole run */
    };
    for (auto &t : tests) {
        int before = g_failures;
        t.fn();
        std::printf("%s %s\n", g_failures == before ? "ok  " : "FAIL", t.name);
    }
    CHECK(g_allWarnings.isEmpty(), "Qt warned %d time(s) during the run:\n%s", int(g_allWarnings.size()),
          qPrintable(g_allWarnings.join('\n')));
    std::printf("test_qt6_adapter: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}

#include "test_qt6_adapter.moc"
