// SPDX-License-Identifier: Apache-2.0
#include <navguard_qt6.h>

#include <QGuiApplication>
#include <QQmlApplicationEngine>

int main(int argc, char **argv) {
    QGuiApplication app(argc, argv);
    navguard::qt6::registerQmlTypes();   // import NavGuard
    QQmlApplicationEngine engine(QUrl(QStringLiteral("qrc:/Main.qml")));
    return app.exec();
}
