// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import NavGuard

ApplicationWindow {
    width: 800; height: 600; visible: true
    header: ToolBar {
        ToolButton { text: "\u2039 Back"; visible: nav.depth > 1; onClicked: nav.back({ source: 1 }) }
        Label { anchors.centerIn: parent; text: nav.currentRoute }
    }
    StackView { id: stack; anchors.fill: parent }                 // Escape, Back, Backspace: nav.backKeys
    Navigator {
        id: nav
        stackView: stack                                              // NavGuard drives it
        initialRoute: "home"
        routes: ({ home: home, detail: detail })
        onRefused: (o) => console.log(o.kind, "refused:", o.reason, "by", o.guard)
    }
    Component { id: home; Page {
        Button { text: "Open"; anchors.centerIn: parent
            onClicked: nav.push("detail", { title: "Detail" }, { source: 3 }) } } }
    Component { id: detail; Page { Label { anchors.centerIn: parent; text: title } } }
}
