// SPDX-License-Identifier: Apache-2.0
/*
 * qt_host_check — README's Qt host (Main.qml, as qt_host loads it) run
 * headless (offscreen platform) and checked: "Open" tapped twice fast pushes
 * once (the second tap is dropped while the pages slide), the header's Back
 * tapped during that push does nothing, Escape during it is refused busy;
 * once the push has settled, Escape goes back. Prints "qt_host: ok" and
 * exits 0 when NavGuard did all that.
 */
#include <navguard_qt6.h>

#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QTest>

#include <cstdio>

static int failures = 0;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            std::printf("FAIL line %d: %s: ", __LINE__, #cond);            \
            std::printf(__VA_ARGS__);                                      \
            std::printf("\n");                                             \
        }                                                                  \
    } while (0)

/* A visible item showing `text`, anywhere in the scene below `item`. */
static QQuickItem *findByText(QQuickItem *item, const QString &text) {
    if (!item || !item->isVisible()) return nullptr;
    if (item->property("text").toString() == text) return item;
    for (QQuickItem *child : item->childItems())
        if (QQuickItem *found = findByText(child, text)) return found;
    return nullptr;
}

static QPoint center(QQuickItem *item) {
    return item->mapToScene(QPointF(item->width() / 2, item->height() / 2)).toPoint();
}

int main(int argc, char **argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    navguard::qt6::registerQmlTypes();
    QQmlApplicationEngine engine;
#ifdef QT_HOST_QML
    engine.load(QUrl::fromLocalFile(QStringLiteral(QT_HOST_QML)));
#else
    engine.load(QUrl(QStringLiteral("qrc:/Main.qml")));
#endif
    auto *win = qobject_cast<QQuickWindow *>(engine.rootObjects().value(0));
    if (win) win->requestActivate();
    if (!win || !QTest::qWaitForWindowActive(win)) {
        std::printf("qt_host: Main.qml did not load\n");
        return 1;
    }
    auto *nav = win->findChild<navguard::qt6::Navigator *>();
    if (!nav || !nav->ready()) {
        std::printf("qt_host: no Navigator: %s\n", nav ? qPrintable(nav->error()) : "not found");
        return 1;
    }
    size_t guards = 0;
    ng_chain_count(nav->context(), &guards);
    std::printf("NavGuard %s, Qt %s, default chain of %zu guards from %s\n", ng_version_string(), qVersion(), guards,
                ng_plugin_dir());
    QSignalSpy applied(nav, &navguard::qt6::Navigator::applied);
    QSignalSpy refused(nav, &navguard::qt6::Navigator::refused);

    QQuickItem *scene = win->contentItem();   /* the whole scene, header included */
    QQuickItem *open = findByText(scene, QStringLiteral("Open"));
    CHECK(open, "no Open button");
    if (!open) return 1;
    QPoint at = center(open);
    QTest::mouseClick(win, Qt::LeftButton, {}, at);
    QTest::mouseClick(win, Qt::LeftButton, {}, at, 60);          /* a double tap */
    CHECK(nav->busy(), "the push is not animated");
    QQuickItem *back = findByText(scene, QStringLiteral("\u2039 Back"));
    CHECK(back, "no Back button in the header");
    if (back) QTest::mouseClick(win, Qt::LeftButton, {}, center(back), 30);   /* Back during the push */
    QTest::keyClick(win, Qt::Key_Escape);                                    /* Escape during the push */
    CHECK(QTest::qWaitFor([&] { return !nav->busy(); }, 5000), "the push never ended");
    QTest::qWait(100);
    CHECK(nav->routeStack() == (QStringList{ "home", "detail" }), "stack %s", qPrintable(nav->routeStack().join(',')));
    CHECK(applied.size() == 1, "%d requests applied, expected the one push", (int)applied.size());
    CHECK(refused.size() == 1 && refused.at(0).value(0).toMap().value("reason") == "busy",
          "%d requests refused, expected Escape's back refused busy", (int)refused.size());
    std::printf("double tap + Back + Escape during the push: %d applied, %d refused (%s)\n", (int)applied.size(),
                (int)refused.size(),
                refused.isEmpty() ? "-" : qPrintable(refused.at(0).value(0).toMap().value("reason").toString()));

    QTest::keyClick(win, Qt::Key_Escape);
    CHECK(QTest::qWaitFor([&] { return nav->depth() == 1 && !nav->busy(); }, 5000), "Escape did not go back");
    if (failures) {
        std::printf("qt_host: %d check(s) failed\n", failures);
        return 1;
    }
    std::printf("qt_host: ok\n");
    return 0;
}
