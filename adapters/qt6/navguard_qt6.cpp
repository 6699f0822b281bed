// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6.cpp — NavGuard's Qt 6 adapter (see navguard_qt6.h): the
 * Navigator, the QML-facing façade that owns the context and wires the
 * adapter's parts: the input filter (navguard_qt6_input.cpp), the screen
 * registry (navguard_qt6_screens), posts and the deadline timer
 * (navguard_qt6_posts), the StackView binding (navguard_qt6_stack), the
 * swipe back (navguard_qt6_swipedriver, navguard_qt6_swipe), the Back keys
 * (navguard_qt6_backkeys), the leave questions (navguard_qt6_questions) and
 * the signals' maps (navguard_qt6_signals). What it keeps itself: the
 * requests (QML's push(), back()... and submit), the delegate, and the
 * properties QML binds.
 *
 * Compile it with the adapter's other sources; it uses only navguard.h and
 * Qt's public API (Core, Gui, Qml, Quick).
 */
#include "navguard_qt6.h"
#include "navguard_qt6_questions.h"
#include "navguard_qt6_signals.h"

#include <QtCore/QMetaObject>
#include <QtGui/QKeyEvent>
#include <QtQml/QQmlEngine>
#include <QtQml/qqml.h>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>

namespace navguard {
namespace qt6 {

using detail::idFromJs;

static_assert(kMouseTouchId == NG_MOUSE_TOUCH_ID, "one mouse id for every adapter");

namespace {

/* Every Navigator alive (GUI thread), for Navigator::find. */
QVector<Navigator *> &navigators() {
    static QVector<Navigator *> all;
    return all;
}

} // namespace

Navigator::Navigator(QObject *parent)
    : QObject(parent),
      m_posts(this, [this] { tick(); }),
      m_stack(this, m_screens, m_routes, [this] { updateState(); }),
      m_swipe(this, m_stack,
              detail::SwipeDriver::Hooks{
                  [this](const ng_request &rq, ng_request_result *res) {
                      return submitRequest(rq, res) ? NG_OK : m_lastStatus;
                  },
                  [this](const QVariantMap &m) { Q_EMIT swipe(m); },
                  [this] { Q_EMIT swipingChanged(); },
                  [this] { updateState(); } }) {
    navigators().append(this);
}

Navigator::~Navigator() {
    navigators().removeOne(this);
    m_destroying = true;
    m_swipe.stop();
    m_posts.stop();
    if (m_filter) m_filter->attach(nullptr);
    if (m_ctx) ng_context_destroy(m_ctx);
    m_ctx = nullptr;
    m_stack.setContext(nullptr);
    m_swipe.setContext(nullptr);
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
    QQuickItem *old = m_stack.view();
    if (old == view) return;
    if (old) disconnect(old, nullptr, this, nullptr);
    m_stack.setView(view);
    if (view) {
        /* busyChanged() is StackView's: connected by name (its class is private). */
        connect(view, SIGNAL(busyChanged()), this, SLOT(onStackBusy()));
        connect(view, &QQuickItem::windowChanged, this, [this](QQuickWindow *w) {
            if (m_filter) m_filter->attach(w);
        });
        connect(view, &QQuickItem::heightChanged, this, [this] {
            if (m_stack.view()) m_swipe.setEdgeHeight(m_stack.view()->height());
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
    m_swipe.setEdgeWidth(width);
    updateState();
    Q_EMIT edgeWidthChanged();
}
void Navigator::setSettleDuration(int ms) {
    m_swipe.setSettleDuration(ms);
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

    uint64_t id = m_screens.newId();
    m_screens.remember(id, m_initialRoute, m_initialProperties);
    QByteArray route = m_initialRoute.toUtf8();
    ng_screen root = { id, route.constData(), route.constData() };
    st = ng_stack_set_root(m_ctx, &root);
    if (st != NG_OK) return fail(st, "ng_stack_set_root");

    m_stack.setContext(m_ctx);
    m_swipe.setContext(m_ctx);
    m_filter = new InputFilter(m_ctx, this);
    m_filter->setKeyHook([this](QKeyEvent *e) { return backKey(e); });
    m_swipe.setFilter(m_filter);
    if (m_stack.view()) m_filter->attach(m_stack.view()->window());
    m_stack.reconcile(false);
    ensureEdge();
    Q_EMIT readyChanged();
    updateState();
    return NG_OK;
}

/* --- requests ------------------------------------------------------------------- */

QString Navigator::routeOf(double screenId) const {
    uint64_t id = idFromJs(screenId);
    return id ? m_screens.route(id) : QString();
}

bool Navigator::applyOptions(ng_request &rq, const QVariantMap &options) {
    rq.flags = options.value(QStringLiteral("animated"), true).toBool() ? NG_REQF_ANIMATED : 0u;
    rq.source = options.value(QStringLiteral("source"), 0).toUInt();
    if (options.value(QStringLiteral("scoped")).toBool()) {
        rq.from_screen = currentScreenId();
    } else if (options.contains(QStringLiteral("fromScreen"))) {
        QVariant v = options.value(QStringLiteral("fromScreen"));
        rq.from_screen = idFromJs(v.toDouble());
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
        if (rq.screen.id == 0) rq.screen.id = m_screens.newId();
        m_screens.remember(rq.screen.id, QString::fromUtf8(rq.screen.route ? rq.screen.route : ""), properties);
    }
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    QVector<uint64_t> screens;
    if (!submitRequest(rq, &res)) {
        if (rq.kind == NG_REQ_PUSH) m_screens.forget(rq.screen.id);
        for (size_t i = 0; rq.kind == NG_REQ_REPLACE_STACK && i < rq.screen_count; i++)
            m_screens.forget(rq.screens[i].id);
        return 0;
    }
    if (rq.kind == NG_REQ_PUSH) m_screens.trackPush(res.request_id, { rq.screen.id });
    if (rq.kind == NG_REQ_REPLACE_STACK)
        for (size_t i = 0; i < rq.screen_count; i++) screens.append(rq.screens[i].id);
    if (!screens.isEmpty()) m_screens.trackPush(res.request_id, screens);
    return static_cast<double>(res.request_id);
}

bool Navigator::submitRequest(const ng_request &rq, ng_request_result *res) {
    ng_status st = ng_request_submit(m_ctx, &rq, res);
    m_lastStatus = st;
    if (setError(st, "ng_request_submit")) return false;
    QVariantMap d = detail::submittedMap(rq, *res);
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
    rq.target_id = idFromJs(screenId);
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
        uint64_t id = m_screens.newId();
        m_screens.remember(id, route, s.value(QStringLiteral("properties")).toMap());
        list.append(ng_screen{ id, r, strings.last().constData() });
    }
    rq.screens = list.constData();
    rq.screen_count = static_cast<size_t>(list.size());
    return submit(rq);
}

ng_status Navigator::post(const PostRequest &p, uint64_t *out_id) {
    /* The context's on_wake wakes the GUI loop (cbWake). */
    return detail::PostQueue::post(m_ctx, m_screens, p, out_id);
}

/* --- questions ------------------------------------------------------------------- */

bool Navigator::answer(double questionId, bool yes) {
    if (!m_ctx) return false;
    /* Question ids are below 2^53 like request ids; anything else is none. */
    ng_status st = detail::Questions::answer(m_ctx, idFromJs(questionId), yes);
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
    uint64_t id = idFromJs(screenId);
    if (!id) {
        m_error = QStringLiteral("Navigator.setConfirmLeave: %1 is not a screen id (an integer in 1..2^53)").arg(screenId);
        return false;
    }
    return !setError(detail::Questions::setConfirmLeave(m_ctx, id, on), "ng_screen_set_flags");
}

/* --- the loop: ticks and the deadline timer ---------------------------------------- */

void Navigator::tick() {
    m_posts.ticking();
    if (!m_ctx || m_destroying) return;
    ng_tick(m_ctx);
    updateState();
}

/* --- delegate --------------------------------------------------------------------- */

void Navigator::cbOutcome(void *user, ng_context *, const ng_outcome *o) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    QVariantMap m = detail::outcomeMap(o);
    if (o->kind == NG_REQ_PUSH || o->kind == NG_REQ_REPLACE_STACK)
        self->m_screens.pushDecided(o->request_id, o->outcome == NG_OUTCOME_APPLIED);
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
    Q_EMIT self->holdEnded(detail::holdMap(h));
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
    if (!self->m_destroying) self->m_swipe.touchCancelled(t->touch_id);
    bool routed = self->m_filter && self->m_filter->routeTouchCancel(t);
    if (self->m_destroying) return;
    Q_EMIT self->touchCancelled(detail::touchCancelMap(t, routed));
}

/* [any-thread] A post left work for the GUI thread: tick there, soon. */
void Navigator::cbWake(void *user, ng_context *) { static_cast<Navigator *>(user)->m_posts.wake(); }

void Navigator::cbDeadline(void *user, ng_context *, int64_t deadline) {
    auto *self = static_cast<Navigator *>(user);
    if (!self->m_ctx || self->m_destroying) return;
    self->m_posts.armDeadline(self->m_ctx, deadline);
}

void Navigator::cbQuestion(void *user, ng_context *, const ng_question *q) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    Q_EMIT self->question(detail::questionMap(q, self->m_screens.route(q->screen_id)));
}

void Navigator::cbQuestionEnd(void *user, ng_context *, const ng_question *q, ng_answer answer) {
    auto *self = static_cast<Navigator *>(user);
    if (self->m_destroying) return;
    Q_EMIT self->questionEnded(detail::questionMap(q, self->m_screens.route(q->screen_id)),
                               QString::fromUtf8(ng_answer_name(answer)));
}

void Navigator::onTransition(const ng_transition_event *e) {
    /* Only the screen track means something in Qt (StackView); the bar
     * track is UIKit's navigation bar, which a Qt window does not have. */
    if (e->track != NG_TRACK_SCREEN) {
        updateState();
        return;
    }
    bool interactive = (e->flags & NG_TRANSF_INTERACTIVE) != 0;
    if (e->phase == NG_PHASE_WILL) {
        if (interactive) m_swipe.will(e);
        else m_stack.schedule(e->request_id, (e->flags & NG_TRANSF_ANIMATED) != 0);
    } else if (interactive) {
        /* The page was moved by the finger: StackView pops at once. */
        m_swipe.ended(e->phase == NG_PHASE_DID);
        if (e->phase == NG_PHASE_DID) m_stack.schedule(e->request_id, false);
    }
    Q_EMIT transition(detail::transitionMap(e, m_screens.route(e->from_id), m_screens.route(e->to_id)));
    /* After a transition: the records of screens that left both stacks go. */
    if (e->phase != NG_PHASE_WILL) m_screens.prune(detail::screenStack(m_ctx), m_stack.mirror());
    updateState();
}

/* --- state -------------------------------------------------------------------------- */

int Navigator::depth() const { return detail::screenStack(m_ctx).size(); }

uint64_t Navigator::currentScreenId() const {
    QVector<uint64_t> s = detail::screenStack(m_ctx);
    return s.isEmpty() ? 0 : s.last();
}

double Navigator::currentScreen() const { return static_cast<double>(currentScreenId()); }

QString Navigator::currentRoute() const { return m_screens.route(currentScreenId()); }

QStringList Navigator::routeStack() const {
    QStringList routes;
    for (uint64_t id : detail::screenStack(m_ctx)) routes << m_screens.route(id);
    return routes;
}

void Navigator::updateState() {
    if (!m_ctx || m_destroying) return;
    bool busy = false;
    ng_transition_in_flight(m_ctx, NG_TRACK_SCREEN, &busy, nullptr);
    if (busy != m_busy) {
        m_busy = busy;
        Q_EMIT busyChanged();
    }
    QVector<uint64_t> s = detail::screenStack(m_ctx);
    m_swipe.updateEdge(s.size());
    if (s != m_lastStack) {
        m_lastStack = s;
        Q_EMIT stackChanged();
    }
}

/* --- wiring: StackView's busy, the swipe edge ------------------------------------ */

void Navigator::onStackBusy() { m_stack.busyChanged(); }

void Navigator::ensureEdge() {
    QQuickItem *edge = m_swipe.ensureEdge(m_stack.view());
    if (!edge) return;
    /* The edge's signals are QML's: connected by name. */
    connect(edge, SIGNAL(began(int, double, double)), this, SLOT(edgeBegan(int, double, double)));
    connect(edge, SIGNAL(moved(double)), this, SLOT(edgeMoved(double)));
    connect(edge, SIGNAL(ended(double)), this, SLOT(edgeEnded(double)));
    updateState();
}

void Navigator::edgeBegan(int pointId, double pressX, double x) { m_swipe.begin(pointId, pressX, x); }
void Navigator::edgeMoved(double x) { m_swipe.move(x); }
void Navigator::edgeEnded(double x) { m_swipe.end(x); }

/* --- Back keys ------------------------------------------------------------------------ */

/* [GUI thread] From the filter, for a key NavGuard delivered, before Qt's
 * focus delivery: a key of backKeys sends a guarded Back. */
bool Navigator::backKey(QKeyEvent *ke) {
    if (!m_backKeys.takes(ke, m_filter ? m_filter->window() : nullptr)) return false;
    /* One Back per press; its repeats and release are consumed with it. */
    if (ke->type() == QEvent::KeyPress && !ke->isAutoRepeat()) {
        Q_EMIT backKeyPressed(ke->key());
        back({ { QStringLiteral("source"), ke->key() } });
    }
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
