// SPDX-License-Identifier: Apache-2.0
/*
 * qt-kiosk — the SDL kiosk's screens as a Qt Quick application guarded by
 * NavGuard through the Qt 6 adapter: Home -> Menu (a ListView) -> Item ->
 * Checkout in a StackView, a header bar with the title and Back, a network
 * reply posted from a worker thread, swipe-back from the left edge, a leave
 * dialog on Checkout, Escape or Backspace as a hardware Back.
 *
 * The adapter does the NavGuard work (Main.qml: NavGuard.Navigator); this
 * file parses the options, logs what happens as JSON lines (the SDL kiosk's
 * format and writer, examples/sdl-kiosk/log.c), runs the network worker and
 * takes screenshots.
 *
 * Usage: qt-kiosk [--unguarded] [--stack home,menu] [--anim-ms N]
 *                 [--network-delay-ms N] [--network-unscoped] [--log FILE]
 *                 [--record FILE] [--screenshot FILE.png|.bmp] [--idle-ms N]
 *                 [--journal] [--metrics FILE]
 * --journal writes to $NAVGUARD_JOURNAL_SOCKET when it is set (a test's
 * socket), else to the system journal.
 * --idle-ms N: after N ms with no input the kiosk returns to Home (0, the
 * default: never): the built-in guard org.navguard.idle-return added to the
 * default chain with after_ms N (README, "kiosk"). On Checkout NavGuard asks
 * first; nobody answering within confirm-leave's unattended timeout (10 s)
 * goes Home all the same, and it does not ask again until someone came.
 * The network reply is scoped to the screen it was asked from (from_screen):
 * NavGuard drops it as stale once the user has left that screen, guarded or
 * not (a core rule). --network-unscoped leaves it unscoped, to show what a
 * reply does to a push in flight with and without the guards.
 * Keys: Escape / Backspace hardware Back, F12 screenshot (to --screenshot,
 * else ./qt-kiosk.png), Ctrl+Q quit. SIGUSR1 is F12; SIGTERM/SIGINT quit
 * (the --screenshot is written at exit).
 */
#include "navguard_qt6.h"
#include "navguard_journald.h"
#include "navguard_metrics.h"

extern "C" {
#include "log.h"
}

#include <QtCore/QCommandLineParser>
#include <QtCore/QSocketNotifier>
#include <QtGui/QGuiApplication>
#include <QtGui/QImage>
#include <QtQml/QQmlApplicationEngine>
#include <QtQml/QQmlContext>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unistd.h>

using navguard::qt6::Navigator;

namespace {

/* Request sources (ng_request.source), as in the SDL kiosk: buttons use their
 * own numbers, these are the others. The throttle guard keys on them. */
constexpr uint32_t kSrcNetworkReply = 901;

QByteArray utf8(const QVariant &v) { return v.toString().toUtf8(); }

/* Ids are numbers below 2^53 in the adapter's maps; logged as integers. */
void logId(const char *key, const QVariant &v) { klog_uint(key, static_cast<uint64_t>(v.toDouble())); }

void logStr(const char *key, const QVariant &v) {
    if (v.isNull()) klog_null(key);
    else klog_str(key, utf8(v).constData());
}

/* --- Unix signals, turned into Qt events (the self-pipe) -------------------- */

int g_sigpipe[2] = { -1, -1 };

void onSignal(int sig) {
    char c = static_cast<char>(sig);
    ssize_t r = write(g_sigpipe[1], &c, 1);
    (void)r;
}

} // namespace

/* The kiosk's C++ side, seen from QML as `kiosk`. */
class Kiosk : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool unguarded MEMBER m_unguarded CONSTANT)
    Q_PROPERTY(QString recordPath MEMBER m_recordPath CONSTANT)
    Q_PROPERTY(int animMs MEMBER m_animMs CONSTANT)
    Q_PROPERTY(QStringList initialStack MEMBER m_stack CONSTANT)
    Q_PROPERTY(QString chainConfig READ chainConfig CONSTANT)
public:
    bool m_unguarded = false;
    bool m_networkScoped = true;
    QString m_recordPath, m_screenshotPath;
    int m_animMs = 300, m_networkDelayMs = 2000, m_idleMs = 0;
    QStringList m_stack{ QStringLiteral("home") };
    QQuickWindow *m_window = nullptr;
    Navigator *m_nav = nullptr;
    QPointer<QQuickItem> m_stackView;
    bool m_ready = false;
    ngj_sink *m_journal = nullptr;     /* --journal */
    ngm_metrics *m_metrics = nullptr;  /* --metrics FILE */

    ~Kiosk() override {
        stopWorkers();
        ngj_destroy(m_journal);
        ngm_destroy(m_metrics);
    }

    /* --journal and --metrics: the Navigator owns the delegate, so its
     * signals (emitted inside the callbacks: the stack is the current one)
     * feed the sink and the counters. */
    void attachFleet(Navigator *nav) {
        if (!m_journal && !m_metrics) return;
        connect(nav, &Navigator::report, this, [this, nav](const QString &guard, const QString &text) {
            QByteArray g = guard.toUtf8(), t = text.toUtf8();
            ngj_report(m_journal, nav->context(), g.constData(), t.constData());
            ngm_report(m_metrics, nav->context(), g.constData(), t.constData());
            ngm_poll(m_metrics);
        });
        connect(nav, &Navigator::outcome, this, [this, nav](const QVariantMap &m) {
            ng_outcome o{};
            o.size = sizeof o;
            QString outcome = m.value(QStringLiteral("outcome")).toString();
            o.outcome = outcome == QLatin1String(ng_outcome_name(NG_OUTCOME_REFUSED)) ? NG_OUTCOME_REFUSED
                      : outcome == QLatin1String(ng_outcome_name(NG_OUTCOME_DROPPED)) ? NG_OUTCOME_DROPPED : NG_OUTCOME_APPLIED;
            if (o.outcome == NG_OUTCOME_APPLIED) return;
            o.request_id = static_cast<uint64_t>(m.value(QStringLiteral("id")).toDouble());
            QString reason = m.value(QStringLiteral("reason")).toString(), kind = m.value(QStringLiteral("kind")).toString();
            for (ng_reason r = 0; r < NG_REASON_COUNT; r++)
                if (reason == QLatin1String(ng_reason_name(r))) o.reason = r;
            for (ng_request_kind k = 0; k < NG_REQ_KIND_COUNT; k++)
                if (kind == QLatin1String(ng_request_kind_name(k))) o.kind = k;
            QByteArray guard = m.value(QStringLiteral("guard")).toString().toUtf8();
            QByteArray message = m.value(QStringLiteral("message")).toString().toUtf8();
            o.guard_id = m.value(QStringLiteral("guard")).isNull() ? nullptr : guard.constData();
            o.message = m.value(QStringLiteral("message")).isNull() ? nullptr : message.constData();
            ngj_outcome(m_journal, nav->context(), &o);
            ngm_outcome(m_metrics, nav->context(), &o);
            ngm_poll(m_metrics);
        });
        connect(nav, &Navigator::transition, this, [this, nav](const QVariantMap &m) {
            if (m.value(QStringLiteral("track")).toString() != QLatin1String(ng_track_name(NG_TRACK_SCREEN)) ||
                m.value(QStringLiteral("phase")).toString() == QLatin1String(ng_phase_name(NG_PHASE_WILL)) ||
                !m.value(QStringLiteral("flags")).toStringList().contains(QStringLiteral("forced")))
                return;
            ng_transition_event e{};
            e.size = sizeof e;
            e.track = NG_TRACK_SCREEN;
            e.phase = NG_PHASE_DID;
            e.flags = NG_TRANSF_FORCED;
            ngm_transition(m_metrics, nav->context(), &e);
            ngm_poll(m_metrics);
        });
        connect(nav, &Navigator::holdEnded, this, [this, nav](const QVariantMap &m) {
            ng_hold_info h{};
            h.size = sizeof h;
            QByteArray label = m.value(QStringLiteral("label")).toString().toUtf8();
            h.label = label.constData();
            QString reason = m.value(QStringLiteral("reason")).toString();
            h.reason = reason == QLatin1String(ng_hold_end_reason_name(NG_HOLD_RELEASED)) ? NG_HOLD_RELEASED : NG_HOLD_ENDED;
            h.ended_ns = static_cast<int64_t>(m.value(QStringLiteral("ms")).toDouble() * 1e6);
            ngm_hold_end(m_metrics, nav->context(), &h);
            ngm_poll(m_metrics);
        });
    }

    /* The Navigator's chain: "" (its default, or empty when unguarded), or
     * with --idle-ms the default chain and the idle return. */
    QString chainConfig() const {
        if (m_unguarded || m_idleMs <= 0) return QString();
        return QStringLiteral("{\"base\":\"default\",\"edits\":[{\"insert\":{\"id\":\"org.navguard.idle-return\","
                              "\"config\":{\"after_ms\":%1,\"source\":903}}}]}").arg(m_idleMs);
    }

    /* Log everything the navigator says, and every input verdict. */
    Q_INVOKABLE void attach(Navigator *nav, QQuickItem *stackView) {
        if (!nav->ready()) {
            /* No context as asked (e.g. the default chain's guards were not
             * found): no kiosk rather than an unguarded one. */
            std::fprintf(stderr, "qt-kiosk: %s\n  plugin dir: %s\n", qPrintable(nav->error()), ng_plugin_dir());
            klog_begin("error");
            klog_str("message", nav->error().toUtf8().constData());
            klog_end();
            QMetaObject::invokeMethod(qApp, [] { QCoreApplication::exit(1); }, Qt::QueuedConnection);
            return;
        }
        m_nav = nav;
        attachFleet(nav);
        m_stackView = stackView;
        /* The log's "back-key" action: a key of the Navigator's backKeys
         * (Escape, Backspace) sends a Back; logged on the screen it was
         * pressed on, just before that Back's request line. */
        connect(nav, &Navigator::backKeyPressed, this, [this](int) {
            action(QStringLiteral("back-key"), m_nav->currentRoute());
        });
        connect(nav, &Navigator::submitted, this, [](const QVariantMap &m) {
            klog_begin("request");
            logId("id", m.value("id"));
            logStr("kind", m.value("kind"));
            klog_uint("source", m.value("source").toUInt());
            logStr("status", m.value("status"));
            logStr("reason", m.value("reason"));
            logStr("guard", m.value("guard"));
            klog_end();
        });
        connect(nav, &Navigator::outcome, this, [](const QVariantMap &m) {
            klog_begin("outcome");
            logId("id", m.value("id"));
            logStr("kind", m.value("kind"));
            logStr("outcome", m.value("outcome"));
            logStr("reason", m.value("reason"));
            logStr("guard", m.value("guard"));
            klog_uint("source", m.value("source").toUInt());
            logStr("message", m.value("message"));
            klog_end();
        });
        connect(nav, &Navigator::transition, this, [this](const QVariantMap &m) {
            QByteArrayList flags;
            for (const QString &f : m.value("flags").toStringList()) flags << f.toUtf8();
            QVector<const char *> fl;
            for (const QByteArray &f : flags) fl << f.constData();
            klog_begin("transition");
            logStr("track", m.value("track"));
            logStr("phase", m.value("phase"));
            logStr("kind", m.value("kind"));
            logId("id", m.value("id"));
            logId("from", m.value("from"));
            logId("to", m.value("to"));
            logStr("from_route", m.value("fromRoute"));
            logStr("to_route", m.value("toRoute"));
            klog_strlist("flags", fl.data(), static_cast<size_t>(fl.size()));
            klog_end();
            if (m.value("track") == "screen" && m.value("phase") != "will") logStack();
        });
        connect(nav, &Navigator::touchCancelled, this, [](const QVariantMap &m) {
            klog_begin("touch_cancel");
            /* The mouse's id (NG_MOUSE_TOUCH_ID) does not fit a double. */
            if (m.value("mouse").toBool()) klog_uint("touch", NG_MOUSE_TOUCH_ID);
            else logId("touch", m.value("touch"));
            logId("view", m.value("view"));
            klog_bool("routed", m.value("routed").toBool());
            klog_end();
        });
        connect(nav, &Navigator::swipe, this, [](const QVariantMap &m) {
            klog_begin("swipe");
            logStr("event", m.value("event"));
            logId("request", m.value("request"));
            /* The log's lines are the SDL kiosk's (one harness reads both):
             * begin's status is the request's outcome. */
            logStr("status", m.value("event") == "begin" ? m.value("outcome") : m.value("status"));
            if (m.contains("progress")) klog_num("progress", m.value("progress").toDouble());
            if (m.contains("velocity")) klog_num("velocity", m.value("velocity").toDouble());
            if (m.contains("finish")) klog_bool("finish", m.value("finish").toBool());
            if (m.contains("touchCancelled")) klog_bool("touch_cancelled", m.value("touchCancelled").toBool());
            klog_end();
        });
        connect(nav, &Navigator::holdEnded, this, [](const QVariantMap &m) {
            klog_begin("hold_end");
            logId("token", m.value("token"));
            logStr("label", m.value("label"));
            logStr("reason", m.value("reason"));
            klog_num("ms", m.value("ms").toDouble());
            klog_end();
        });
        connect(nav, &Navigator::report, this, [](const QString &guard, const QString &text) {
            klog_begin("report");
            klog_str("guard", guard.toUtf8().constData());
            klog_str("text", text.toUtf8().constData());
            klog_end();
        });
        connect(nav, &Navigator::logMessage, this, [](int severity, const QString &guard, const QString &msg) {
            if (severity < NG_LOG_WARN) return;
            klog_begin("log");
            klog_int("severity", severity);
            klog_str("guard", guard.toUtf8().constData());
            klog_str("message", msg.toUtf8().constData());
            klog_end();
        });
        connect(nav, &Navigator::question, this, [](const QVariantMap &m) {
            klog_begin("question");
            logId("id", m.value("id"));
            logStr("topic", m.value("topic"));
            logStr("text", m.value("text"));
            logStr("guard", m.value("guard"));
            logId("request", m.value("requestId"));
            logStr("kind", m.value("kind"));
            logStr("route", m.value("route"));
            klog_uint("source", m.value("source").toUInt());
            if (!m.value("timeoutMs").isNull()) klog_num("timeout_ms", m.value("timeoutMs").toDouble());
            klog_end();
        });
        connect(nav, &Navigator::questionEnded, this, [](const QVariantMap &m, const QString &answer) {
            klog_begin("question_end");
            logId("id", m.value("id"));
            klog_str("answer", answer.toUtf8().constData());
            klog_end();
        });
        if (nav->inputFilter()) {
            nav->inputFilter()->setObserver([](const ng_event &e, const ng_event_result &r) {
                if (e.type != NG_EVENT_TOUCH && e.type != NG_EVENT_KEY) return;
                klog_begin("verdict");
                klog_str("event", ng_event_type_name(e.type));
                if (e.type == NG_EVENT_TOUCH) {
                    klog_str("phase", ng_touch_phase_name(e.phase));
                    klog_uint("touch", e.touch_id);
                    klog_num("x", e.x);
                    klog_num("y", e.y);
                } else {
                    klog_int("phase", e.phase);
                    klog_int("code", e.code);
                }
                klog_str("verdict", r.verdict == NG_VERDICT_DROP ? "drop" : "deliver");
                klog_str("reason", ng_reason_name(r.reason));
                klog_str("guard", r.guard_id);
                klog_end();
            });
        }
        /* StackView's own transitions, timed and counted in frames. */
        connect(stackView, SIGNAL(busyChanged()), this, SLOT(onStackBusy()));
        size_t guards = 0;
        ng_chain_count(nav->context(), &guards);
        std::fprintf(stderr, "qt-kiosk: NavGuard %s, Qt %s, %s (%zu guard%s)\n", ng_version_string(), qVersion(),
                     m_unguarded ? "UNGUARDED: empty chain" : "default chain", guards, guards == 1 ? "" : "s");
        klog_begin("start");
        klog_str("navguard", ng_version_string());
        klog_str("qt", qVersion());
        klog_bool("guarded", !m_unguarded);
        klog_uint("guards", guards);
        klog_int("anim_ms", m_animMs);
        klog_int("network_delay_ms", m_networkDelayMs);
        klog_end();
    }

    /* A button fired (logged like the SDL kiosk's "action" lines). */
    Q_INVOKABLE void action(const QString &button, const QString &screen) {
        klog_begin("action");
        klog_str("button", button.toUtf8().constData());
        klog_str("screen", screen.toUtf8().constData());
        klog_end();
    }

    /* The network button: a reply arrives from a worker thread after
     * --network-delay-ms and pushes today's special, scoped to the screen
     * it was asked from. */
    Q_INVOKABLE void network(double fromScreen) {
        int delay = m_networkDelayMs;
        {
            std::lock_guard<std::mutex> lock(m_mu);
            m_live++;
        }
        klog_begin("network");
        klog_int("delay_ms", delay);
        klog_uint("from_screen", m_networkScoped ? static_cast<uint64_t>(fromScreen) : 0);
        klog_end();
        std::thread([this, delay, fromScreen] {
            std::unique_lock<std::mutex> lock(m_mu);
            bool quit = m_cv.wait_for(lock, std::chrono::milliseconds(delay), [this] { return m_quit; });
            lock.unlock();
            if (!quit) {
                navguard::qt6::PostRequest p;
                p.route = QStringLiteral("item");
                p.identity = QStringLiteral("item:special");
                p.properties = { { QStringLiteral("name"), QStringLiteral("Today's special") } };
                p.source = kSrcNetworkReply;
                p.fromScreen = m_networkScoped ? static_cast<uint64_t>(fromScreen) : 0;
                ng_status st = m_nav->post(p);
                if (st != NG_OK) std::fprintf(stderr, "qt-kiosk: post: %s\n", ng_strstatus(st));
            }
            lock.lock();
            m_live--;
            m_cv.notify_all();
        }).detach();
    }

    /* Quit (Ctrl+Q, SIGTERM, SIGINT): the --screenshot first, while the
     * window still renders. */
    Q_INVOKABLE void quit() {
        if (!m_screenshotPath.isEmpty()) saveScreenshot(m_screenshotPath);
        QGuiApplication::quit();
    }

    Q_INVOKABLE void screenshot() {
        QString path = m_screenshotPath.isEmpty() ? QStringLiteral("qt-kiosk.png") : m_screenshotPath;
        if (!saveScreenshot(path)) return;
        std::fprintf(stderr, "qt-kiosk: screenshot %s\n", qPrintable(path));
        klog_begin("screenshot");
        klog_str("path", path.toUtf8().constData());
        klog_end();
    }

    bool saveScreenshot(const QString &path) {
        if (!m_window) return false;
        QImage image = m_window->grabWindow();
        if (image.isNull() || !image.save(path)) {
            std::fprintf(stderr, "qt-kiosk: cannot write the screenshot %s\n", qPrintable(path));
            return false;
        }
        return true;
    }

    void logStack() {
        if (!m_nav) return;
        QByteArrayList routes;
        for (const QString &r : m_nav->routeStack()) routes << r.toUtf8();
        QVector<const char *> rs;
        for (const QByteArray &r : routes) rs << r.constData();
        klog_begin("stack");
        klog_strlist("routes", rs.data(), static_cast<size_t>(rs.size()));
        klog_end();
    }

    /* The quit line names the screen transition still in flight: the
     * context's destruction ends it (NG_TRANSF_DESTROYED) after the log has
     * closed, and the navigator passes nothing on while it is destroyed, so
     * without this a push cut short by quitting would read as one whose
     * end was merely not logged. */
    void logQuit() {
        klog_begin("quit");
        ng_track_info ti = NG_TRACK_INFO_INIT;
        if (m_nav && m_nav->context() && ng_track_get(m_nav->context(), NG_TRACK_SCREEN, &ti) == NG_OK) {
            klog_uint("cut_short", ti.request_id);
            klog_str("cut_short_kind", ng_request_kind_name(ti.kind));
        }
        klog_end();
    }

    /* Worker threads post to the navigator: stop them before it goes. */
    void stopWorkers() {
        std::unique_lock<std::mutex> lock(m_mu);
        m_quit = true;
        m_cv.notify_all();
        m_cv.wait(lock, [this] { return m_live == 0; });
    }

public Q_SLOTS:
    void onFrame() {
        m_frames++;
        /* Ready once StackView shows the initial stack. */
        if (!m_ready && m_nav && m_stackView && !m_stackView->property("busy").toBool() &&
            m_stackView->property("depth").toInt() == m_nav->depth()) {
            m_ready = true;
            logStack();
            klog_begin("ready");
            klog_end();
        }
    }
    void onStackBusy() {
        bool busy = m_stackView && m_stackView->property("busy").toBool();
        double now = klog_now_ms();
        int depth = m_stackView ? m_stackView->property("depth").toInt() : 0;
        if (busy) {
            m_animStart = now;
            m_animFrames = m_frames;
            m_animDepth = depth;
            return;
        }
        double ms = now - m_animStart;
        int frames = m_frames - m_animFrames;
        klog_begin("frames");
        klog_str("anim", depth > m_animDepth ? "push" : depth < m_animDepth ? "pop" : "replace");
        klog_int("frames", frames);
        klog_num("ms", ms);
        klog_num("fps", ms > 0 ? frames * 1000.0 / ms : 0.0);
        klog_end();
    }
    void onUnixSignal() {
        char c = 0;
        if (read(g_sigpipe[0], &c, 1) != 1) return;
        if (c == SIGUSR1) screenshot();
        else quit();
    }

private:
    std::mutex m_mu;
    std::condition_variable m_cv;
    int m_live = 0;
    bool m_quit = false;
    int m_frames = 0, m_animFrames = 0, m_animDepth = 0;
    double m_animStart = 0;
};

int main(int argc, char **argv) {
    QGuiApplication app(argc, argv);
    QGuiApplication::setApplicationName(QStringLiteral("qt-kiosk"));
    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("NavGuard's Qt Quick kiosk"));
    cli.addHelpOption();
    QCommandLineOption unguarded(QStringLiteral("unguarded"), QStringLiteral("the same app with no guards"));
    QCommandLineOption stack(QStringLiteral("stack"), QStringLiteral("initial stack, e.g. home,menu"),
                             QStringLiteral("routes"));
    QCommandLineOption animMs(QStringLiteral("anim-ms"), QStringLiteral("StackView transition length"),
                              QStringLiteral("ms"), QStringLiteral("300"));
    QCommandLineOption netMs(QStringLiteral("network-delay-ms"), QStringLiteral("network reply delay"),
                             QStringLiteral("ms"), QStringLiteral("2000"));
    QCommandLineOption unscoped(QStringLiteral("network-unscoped"),
                                QStringLiteral("the network reply names no screen it was asked from"));
    QCommandLineOption logOpt(QStringLiteral("log"), QStringLiteral("JSON lines log"), QStringLiteral("file"));
    QCommandLineOption recordOpt(QStringLiteral("record"), QStringLiteral("flight-recorder trace of the session"),
                                 QStringLiteral("file"));
    QCommandLineOption shotOpt(QStringLiteral("screenshot"), QStringLiteral("screenshot file (F12, SIGUSR1, exit)"),
                               QStringLiteral("file"));
    QCommandLineOption idleMs(QStringLiteral("idle-ms"), QStringLiteral("return to Home after this long with no input (0: never)"),
                              QStringLiteral("ms"), QStringLiteral("0"));
    QCommandLineOption journalOpt(QStringLiteral("journal"),
                                  QStringLiteral("reports, watchdog actions and refusals to the systemd journal "
                                                 "(its socket: $NAVGUARD_JOURNAL_SOCKET, else /run/systemd/journal/socket)"));
    QCommandLineOption metricsOpt(QStringLiteral("metrics"), QStringLiteral("a Prometheus textfile (node_exporter), kept current"),
                                  QStringLiteral("file"));
    cli.addOptions({ unguarded, stack, animMs, netMs, unscoped, logOpt, recordOpt, shotOpt, idleMs, journalOpt, metricsOpt });
    cli.process(app);

    Kiosk kiosk;
    kiosk.m_unguarded = cli.isSet(unguarded);
    kiosk.m_networkScoped = !cli.isSet(unscoped);
    bool ok1 = false, ok2 = false, ok3 = false;
    kiosk.m_animMs = cli.value(animMs).toInt(&ok1);
    kiosk.m_networkDelayMs = cli.value(netMs).toInt(&ok2);
    kiosk.m_idleMs = cli.value(idleMs).toInt(&ok3);
    if (!ok1 || !ok2 || !ok3 || kiosk.m_animMs < 0 || kiosk.m_networkDelayMs < 0 || kiosk.m_idleMs < 0 ||
        kiosk.m_idleMs > 86400000) {
        std::fprintf(stderr, "qt-kiosk: --anim-ms, --network-delay-ms and --idle-ms take a number of milliseconds\n");
        return 2;
    }
    if (cli.isSet(stack)) kiosk.m_stack = cli.value(stack).split(',');
    static const QStringList kRoutes{ "home", "menu", "item", "checkout" };
    for (const QString &r : kiosk.m_stack)
        if (!kRoutes.contains(r)) {
            std::fprintf(stderr, "qt-kiosk: --stack: unknown route '%s' (home, menu, item, checkout)\n", qPrintable(r));
            return 2;
        }
    kiosk.m_recordPath = cli.value(recordOpt);
    kiosk.m_screenshotPath = cli.value(shotOpt);
    if (cli.isSet(journalOpt)) {
        ngj_options jo = NGJ_OPTIONS_INIT;
        jo.flags = NGJ_REFUSALS;
        jo.identifier = "qt-kiosk";
        /* NAVGUARD_JOURNAL_SOCKET: another journal socket (a test's). */
        const char *journalSocket = std::getenv("NAVGUARD_JOURNAL_SOCKET");
        jo.socket_path = journalSocket && journalSocket[0] ? journalSocket : nullptr;
        jo.on_unavailable = [](void *, int, const char *message) { std::fprintf(stderr, "qt-kiosk: %s\n", message); };
        kiosk.m_journal = ngj_create(&jo);
        if (!kiosk.m_journal) {
            std::perror("qt-kiosk: --journal");
            return 1;
        }
    }
    if (cli.isSet(metricsOpt)) {
        QByteArray path = cli.value(metricsOpt).toUtf8();
        kiosk.m_metrics = ngm_create(path.constData(), 0);
        int err = kiosk.m_metrics ? ngm_write(kiosk.m_metrics) : ENOMEM;
        if (err) {
            std::fprintf(stderr, "qt-kiosk: --metrics %s: %s\n", path.constData(), std::strerror(err));
            return 1;
        }
    }
    klog_clock_start();
    QByteArray logPath = cli.value(logOpt).toUtf8();
    if (!klog_open(logPath.isEmpty() ? nullptr : logPath.constData())) {
        std::fprintf(stderr, "qt-kiosk: cannot write the log '%s'\n", logPath.constData());
        return 1;
    }

    if (pipe(g_sigpipe) == 0) {
        auto *notifier = new QSocketNotifier(g_sigpipe[0], QSocketNotifier::Read, &app);
        QObject::connect(notifier, &QSocketNotifier::activated, &kiosk, &Kiosk::onUnixSignal);
        std::signal(SIGTERM, onSignal);
        std::signal(SIGINT, onSignal);
        std::signal(SIGUSR1, onSignal);
    }

    navguard::qt6::registerQmlTypes();
    QQmlApplicationEngine engine;
    engine.rootContext()->setContextProperty(QStringLiteral("kiosk"), &kiosk);
    engine.load(QUrl(QStringLiteral("qrc:/qt-kiosk/Main.qml")));
    if (engine.rootObjects().isEmpty()) return 1;
    kiosk.m_window = qobject_cast<QQuickWindow *>(engine.rootObjects().first());
    if (!kiosk.m_window) return 1;
    QObject::connect(kiosk.m_window, &QQuickWindow::frameSwapped, &kiosk, &Kiosk::onFrame);

    int rc = app.exec();

    kiosk.stopWorkers();
    kiosk.logQuit();
    /* The log closes here; the engine (and the Navigator's context with it)
     * goes when main returns, before `kiosk`. */
    klog_close();
    if (kiosk.m_metrics) ngm_write(kiosk.m_metrics);
    return rc;
}

#include "main.moc"
