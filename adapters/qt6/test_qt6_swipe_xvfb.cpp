// SPDX-License-Identifier: Apache-2.0
/*
 * test_qt6_swipe_xvfb — the swipe back seen on screen: a Qt Quick window in
 * a real X server (Xvfb, the xcb platform), the mouse driven with xdotool as
 * a person would, screenshots taken mid-swipe (QQuickWindow::grabWindow) and
 * their pixels checked. Two hosts:
 *  - README's Qt example (example/Main.qml, StackView's default transitions):
 *    tap Open, drag from the left edge and hold;
 *  - the same with a host's own 30 % slide (popEnter from -30 % of the width)
 *    and a page below with a horizontal gradient, so that any shift shows.
 * Mid-swipe, at 55 % and at 65 % of the width, the part of the StackView left
 * of the finger must be the page below as it rests (a screenshot taken before
 * Open) shifted to where StackView's pop puts it at that progress; released
 * past half way, the page below must end exactly where it rested (no jump).
 * Any Qt warning fails the run. The mid-swipe screenshots are written next to
 * the binary (swipe-mid-*.png) and their paths printed.
 *
 * Run under Xvfb: xvfb-run -a -s "-screen 0 1024x768x24" test_qt6_swipe_xvfb
 */
#include "navguard_qt6.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QProcess>
#include <QtGui/QGuiApplication>
#include <QtGui/QImage>
#include <QtQml/QQmlApplicationEngine>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>
#include <QtTest/QTest>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using navguard::qt6::Navigator;

static int g_failures = 0;
#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            g_failures++;                                                        \
            std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                                   \
            std::fprintf(stderr, "\n");                                          \
        }                                                                        \
    } while (0)

static QStringList g_warnings;
static QtMessageHandler g_previous;
static void onMessage(QtMsgType type, const QMessageLogContext &c, const QString &msg) {
    /* Qt's own note about the environment, not about the adapter. */
    if ((type == QtWarningMsg || type == QtCriticalMsg) && !msg.startsWith(QLatin1String("QStandardPaths:")))
        g_warnings << msg;
    g_previous(type, c, msg);
}

/* A host's own transitions: the page below slides 30 % of the width. */
static const char kSlideQml[] = R"QML(
import QtQuick
import QtQuick.Controls
import NavGuard
ApplicationWindow {
    width: 800; height: 600; visible: true; title: "swipe-slide30"
    header: ToolBar { Label { anchors.centerIn: parent; text: nav.currentRoute } }
    StackView { id: stack; anchors.fill: parent
        pushEnter: Transition { XAnimator { from: stack.width; to: 0; duration: 250 } }
        pushExit: Transition { XAnimator { from: 0; to: -0.3 * stack.width; duration: 250 } }
        popEnter: Transition { XAnimator { from: -0.3 * stack.width; to: 0; duration: 250 } }
        popExit: Transition { XAnimator { from: 0; to: stack.width; duration: 250 } } }
    Navigator { id: nav; stackView: stack; initialRoute: "home"; routes: ({ home: home, detail: detail }) }
    Component { id: home; Rectangle {
        gradient: Gradient { orientation: Gradient.Horizontal
            GradientStop { position: 0; color: "#102080" } GradientStop { position: 1; color: "#f0c020" } }
        Button { text: "Open"; anchors.centerIn: parent; onClicked: nav.push("detail") } } }
    Component { id: detail; Rectangle { color: "#20a040" } }
}
)QML";

static QQuickItem *findByText(QQuickItem *item, const QString &text) {
    if (!item || !item->isVisible()) return nullptr;
    if (item->property("text").toString() == text) return item;
    for (QQuickItem *child : item->childItems())
        if (QQuickItem *found = findByText(child, text)) return found;
    return nullptr;
}

static void xdo(const QStringList &args) {
    int rc = QProcess::execute(QStringLiteral("xdotool"), args);
    if (rc != 0) qFatal("xdotool %s: exit %d", qPrintable(args.join(' ')), rc);
    QTest::qWait(30); /* Qt reads what the X server sent */
}

static bool same(QRgb a, QRgb b) {
    return std::abs(qRed(a) - qRed(b)) <= 8 && std::abs(qGreen(a) - qGreen(b)) <= 8 &&
           std::abs(qBlue(a) - qBlue(b)) <= 8;
}

/* The StackView's columns [0, upTo) of `shot` against `ref` (the page below
 * at rest) shifted by `belowX`: the share of the pixels showing content (not
 * the page's background, in either image) that differ; -1 when none of the
 * page would be on screen. `content` gets how many reference pixels of
 * content were compared (a blank part could not fail the check). */
static double mismatch(const QImage &shot, const QImage &ref, QRect view, int upTo, int belowX, int *content) {
    long relevant = 0, differ = 0, varied = 0, compared = 0;
    QRgb blank = ref.pixel(view.x() + 1, view.y() + 1);
    for (int x = 0; x < upTo; x++) {
        int rx = x - belowX;
        if (rx < 0 || rx >= view.width()) continue;
        for (int y = 0; y < view.height(); y++) {
            QRgb s = shot.pixel(view.x() + x, view.y() + y), r = ref.pixel(view.x() + rx, view.y() + y);
            compared++;
            bool refContent = !same(r, blank);
            if (!refContent && same(s, blank)) continue;
            relevant++;
            varied += refContent;
            differ += !same(s, r);
        }
    }
    if (content) *content = static_cast<int>(varied);
    if (!compared) return -1.0;
    return relevant ? static_cast<double>(differ) / relevant : 0.0;
}

/* One host: tap Open, swipe back and hold at 40 % and 60 %, release. */
static void run(const char *name, QQmlApplicationEngine &engine, double slide) {
    auto *win = qobject_cast<QQuickWindow *>(engine.rootObjects().value(0));
    if (!win || !QTest::qWaitForWindowExposed(win)) qFatal("%s: the window did not show", name);
    Navigator *nav = Navigator::find(&engine);
    if (!nav || !nav->ready()) qFatal("%s: no Navigator", name);
    QQuickItem *stack = nav->stackView();
    QTest::qWait(300);
    const QRect view = stack->mapRectToScene(QRectF(0, 0, stack->width(), stack->height())).toAlignedRect();
    const int W = view.width();
    const qreal dpr = win->devicePixelRatio();
    CHECK(dpr == 1, "%s: device pixel ratio %g", name, dpr);
    QImage ref = win->grabWindow();
    QQuickItem *open = findByText(win->contentItem(), QStringLiteral("Open"));
    if (!open) qFatal("%s: no Open button", name);
    QPointF at = open->mapToScene(QPointF(open->width() / 2, open->height() / 2));
    QPoint g = win->mapToGlobal(at.toPoint()); /* no window manager: the window is at (0, 0), but say so */
    xdo({ "mousemove", QString::number(g.x()), QString::number(g.y()), "click", "1" });
    CHECK(QTest::qWaitFor([&] { return nav->depth() == 2 && !nav->busy() && !stack->property("busy").toBool(); }, 5000),
          "%s: Open did not push (depth %d)", name, nav->depth());
    QTest::qWait(100);

    const QPoint start = win->mapToGlobal(QPoint(view.x() + 4, view.y() + view.height() / 2));
    const int y = start.y(), x0 = start.x();
    xdo({ "mousemove", QString::number(x0), QString::number(y), "mousedown", "1" });
    int d = 0;
    for (double p : { 0.55, 0.65 }) {
        int target = static_cast<int>(p * W);
        while (d < target) {
            d = std::min(target, d + 20);
            xdo({ "mousemove", QString::number(x0 + d), QString::number(y) });
        }
        QTest::qWait(150);
        CHECK(nav->swiping(), "%s: no swipe at %d px", name, d);
        QImage shot = win->grabWindow();
        QString path = QDir(QCoreApplication::applicationDirPath())
                           .filePath(QStringLiteral("swipe-mid-%1-%2.png").arg(QLatin1String(name)).arg(int(p * 100)));
        shot.save(path);
        std::printf("%s at %d %%: screenshot %s\n", name, int(p * 100), qPrintable(path));
        /* StackView's pop puts the page below at -slide * W * (1 - p). */
        int belowX = static_cast<int>(std::lround(-slide * W * (1.0 - static_cast<double>(d) / W)));
        int content = 0;
        double m = mismatch(shot, ref, view, d, belowX, &content);
        std::printf("%s at %d %%: %.2f %% of the page below's content pixels differ from the page at rest shifted to x %d "
                    "(%d pixels of content compared)\n", name, int(p * 100), m * 100, belowX, content);
        CHECK(content > 500, "%s at %d %%: premise: the compared part of the page has %d pixels of content", name,
              int(p * 100), content);
        CHECK(m >= 0 && m < 0.01, "%s at %d %%: the page below is not where StackView's pop puts it (%.1f %% of pixels differ)",
              name, int(p * 100), m * 100);
        /* Where the page below was before the swipe began (the bug). */
        int staleX = static_cast<int>(std::lround(-slide * W));
        double stale = mismatch(shot, ref, view, d, staleX, nullptr);
        if (stale < 0) std::printf("%s at %d %%: the page left at x %d would be off-screen\n", name, int(p * 100), staleX);
        else std::printf("%s at %d %%: %.2f %% differ from the page left at x %d\n", name, int(p * 100), stale * 100, staleX);
    }
    QTest::qWait(200); /* held still: no fling; released at 65 %, it completes */
    xdo({ "mouseup", "1" });
    CHECK(QTest::qWaitFor([&] { return nav->depth() == 1 && !nav->busy() && !stack->property("busy").toBool(); }, 5000),
          "%s: the swipe did not pop (depth %d)", name, nav->depth());
    QTest::qWait(200);
    QImage end = win->grabWindow();
    double m = mismatch(end, ref, view, W, 0, nullptr);
    std::printf("%s after the pop: %.2f %% of pixels differ from the page at rest\n", name, m * 100);
    CHECK(m >= 0 && m < 0.01, "%s: the page below is not back in place after the pop (%.1f %% differ)", name, m * 100);
}

int main(int argc, char **argv) {
    qputenv("QSG_RENDER_LOOP", "basic");
    QGuiApplication app(argc, argv);
    if (QGuiApplication::platformName() != QLatin1String("xcb")) {
        std::printf("test_qt6_swipe_xvfb: needs an X server (xvfb-run -a ...), platform is %s\n",
                    qPrintable(QGuiApplication::platformName()));
        return 1;
    }
    g_previous = qInstallMessageHandler(onMessage);
    navguard::qt6::registerQmlTypes();
    {
        QQmlApplicationEngine engine;
        engine.load(QUrl::fromLocalFile(QStringLiteral(NAVGUARD_QT6_EXAMPLE_QML)));
        run("readme", engine, 1.0);
    }
    {
        QQmlApplicationEngine engine;
        engine.loadData(kSlideQml);
        run("slide30", engine, 0.3);
    }
    CHECK(g_warnings.isEmpty(), "Qt warned %d time(s):\n%s", int(g_warnings.size()), qPrintable(g_warnings.join('\n')));
    std::printf("test_qt6_swipe_xvfb: %d failures\n", g_failures);
    return g_failures ? 1 : 0;
}
