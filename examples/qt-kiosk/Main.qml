// SPDX-License-Identifier: Apache-2.0
// The Qt kiosk: Home -> Menu -> Item -> Checkout in a StackView driven by
// NavGuard's Navigator. Every request goes through `nav`; every input event
// goes through NavGuard's filter on this window before Qt delivers it.
import QtQuick
import QtQuick.Controls
import NavGuard

Window {
    id: win
    x: 0; y: 0                       // no window manager under Xvfb: screen = window coordinates
    width: 800; height: 600
    visible: true
    title: "NavGuard Qt kiosk"
    color: "#f4f4f5"

    readonly property var titles: ({ home: "Home", menu: "Menu", item: "Item", checkout: "Checkout" })
    readonly property var bands: ({ home: "#2563eb", menu: "#16a34a", item: "#ea760c", checkout: "#8b3ec8" })

    Navigator {
        id: nav
        stackView: stack
        initialRoute: kiosk.initialStack[0]
        guarded: !kiosk.unguarded
        chainConfig: kiosk.chainConfig
        recordPath: kiosk.recordPath
        settleDuration: kiosk.animMs
        routes: ({ home: homePage, menu: menuPage, item: itemPage, checkout: checkoutPage })
        onQuestion: (q) => leave.ask(q)
        onQuestionEnded: (q, answer) => leave.close(q)
    }

    Component.onCompleted: {
        kiosk.attach(nav, stack)
        // --stack home,menu,...: the rest of the stack, at once.
        const rest = kiosk.initialStack
        if (rest.length > 1)
            nav.replaceStack(rest.map(r => ({ route: r, properties: r === "item" ? { name: "Espresso" } : {},
                                               identity: r === "item" ? "item:Espresso" : r })),
                             { animated: false, source: 1 })
        if (nav.currentRoute === "checkout")
            nav.setConfirmLeave(nav.currentScreen, true)   // as its push would (confirmLeave)
    }

    // Escape and Backspace are the Navigator's backKeys (its default): each
    // sends a guarded Back whatever has focus, with the key's code as its
    // source, so the kiosk writes no key handling of its own.
    Item {
        id: root
        anchors.fill: parent
        focus: true
        // The header bar: Back and the title.
        Rectangle {
            id: header
            width: parent.width; height: 60
            color: "#18181b"
            z: 2
            Button {
                id: back
                objectName: "back"
                x: 8; y: 10; width: 96; height: 40
                text: "\u2039 Back"
                font.pixelSize: 18
                visible: nav.depth > 1
                focusPolicy: Qt.NoFocus
                onClicked: { kiosk.action("back", nav.currentRoute); nav.back({ source: 10 }) }
            }
            Text {
                anchors.centerIn: parent
                text: win.titles[nav.currentRoute] || ""
                color: "white"
                font.pixelSize: 24
                font.bold: true
            }
        }

        StackView {
            id: stack
            y: 60
            width: parent.width; height: parent.height - 60
            clip: true
            pushEnter: Transition { XAnimator { from: stack.width; to: 0; duration: kiosk.animMs; easing.type: Easing.OutCubic } }
            pushExit: Transition { XAnimator { from: 0; to: -stack.width / 3; duration: kiosk.animMs; easing.type: Easing.OutCubic } }
            popEnter: Transition { XAnimator { from: -stack.width / 3; to: 0; duration: kiosk.animMs; easing.type: Easing.OutCubic } }
            popExit: Transition { XAnimator { from: 0; to: stack.width; duration: kiosk.animMs; easing.type: Easing.OutCubic } }
            replaceEnter: Transition { XAnimator { from: stack.width; to: 0; duration: kiosk.animMs; easing.type: Easing.OutCubic } }
            replaceExit: Transition { XAnimator { from: 0; to: -stack.width / 3; duration: kiosk.animMs; easing.type: Easing.OutCubic } }
        }

        // Checkout's leave dialog: a question from NavGuard's confirm-leave guard.
        Rectangle {
            id: leave
            property var question: null
            function ask(q) { question = q }
            function close(q) { if (question && question.id === q.id) question = null }
            anchors.fill: parent
            visible: question !== null
            color: "#80000000"
            z: 10
            MouseArea { anchors.fill: parent }          // the page below waits for the answer
            Rectangle {
                x: 200; y: 200; width: 400; height: 200
                radius: 12
                color: "white"
                Text {
                    x: 24; y: 28
                    text: (leave.question && leave.question.text) || "Leave checkout?"
                    font.pixelSize: 24; font.bold: true
                }
                Text { x: 24; y: 70; text: "Your cart will be emptied."; font.pixelSize: 16; color: "#52525b" }
                Button {
                    objectName: "leave-no"
                    x: 20; y: 130; width: 170; height: 50
                    text: "No, stay"
                    font.pixelSize: 18
                    focusPolicy: Qt.NoFocus
                    onClicked: { kiosk.action("leave-no", "checkout"); nav.answer(leave.question.id, false) }
                }
                Button {
                    objectName: "leave-yes"
                    x: 210; y: 130; width: 170; height: 50
                    text: "Yes, leave"
                    font.pixelSize: 18
                    focusPolicy: Qt.NoFocus
                    onClicked: { kiosk.action("leave-yes", "checkout"); nav.answer(leave.question.id, true) }
                }
            }
        }
    }

    // --- Pages (540 px tall: the colour band on top, then the content) -------

    component Band: Rectangle {
        property string route
        width: 800; height: 140
        color: win.bands[route]
        Text {
            x: 32; y: 40
            text: win.titles[parent.route]
            color: "white"
            font.pixelSize: 40; font.bold: true
        }
    }

    component Big: Button {
        width: 210; height: 64
        font.pixelSize: 20
        focusPolicy: Qt.NoFocus
    }

    Component {
        id: homePage
        Rectangle {
            color: "#f4f4f5"
            Band { route: "home" }
            Text { x: 40; y: 180; text: "Welcome. Tap Next, or try to break it."; font.pixelSize: 20 }
            Big {
                x: 560; y: 440
                text: "Next: Menu \u203a"
                onClicked: { kiosk.action("next", "home"); nav.push("menu", {}, { source: 101 }) }
            }
        }
    }

    Component {
        id: menuPage
        Rectangle {
            color: "#f4f4f5"
            Band { route: "menu" }
            ListView {
                id: list
                objectName: "menu-list"
                x: 40; y: 160; width: 720; height: 248
                interactive: false
                model: ["Espresso", "Cappuccino", "Flat white", "Tea"]
                delegate: ItemDelegate {
                    width: list.width; height: 62
                    text: modelData
                    font.pixelSize: 20
                    focusPolicy: Qt.NoFocus
                    onClicked: {
                        kiosk.action("item", "menu")
                        nav.push("item", { name: modelData }, { source: 201, identity: "item:" + modelData })
                    }
                }
            }
            Big {
                x: 40; y: 440; width: 220
                text: "Network"
                onClicked: { kiosk.action("network", "menu"); kiosk.network(nav.currentScreen) }
            }
            RoundButton {
                x: 292; y: 432; width: 80; height: 80
                text: "Home"
                focusPolicy: Qt.NoFocus
                onClicked: { kiosk.action("home", "menu"); nav.popToRoot({ source: 203 }) }
            }
        }
    }

    Component {
        id: itemPage
        Rectangle {
            property string name: ""
            property int quantity: 1
            color: "#f4f4f5"
            Band { route: "item" }
            Text { x: 40; y: 180; text: name; font.pixelSize: 28; font.bold: true }
            Text { x: 130; y: 456; text: "quantity " + quantity; font.pixelSize: 20 }
            Button {
                x: 70; y: 454; width: 44; height: 28
                text: "+1"
                focusPolicy: Qt.NoFocus
                onClicked: { kiosk.action("add", "item"); quantity++ }
            }
            Big {
                x: 560; y: 440
                text: "Next: Checkout \u203a"
                onClicked: { kiosk.action("next", "item"); nav.push("checkout", {}, { source: 301, confirmLeave: true }) }
            }
        }
    }

    Component {
        id: checkoutPage
        Rectangle {
            color: "#f4f4f5"
            Band { route: "checkout" }
            Text { x: 40; y: 180; text: "Your order is ready to pay."; font.pixelSize: 20 }
            Big {
                x: 560; y: 440
                text: "Done \u2713"
                onClicked: { kiosk.action("done", "checkout"); nav.popToRoot({ source: 401 }) }
            }
        }
    }

    Shortcut { sequence: "F12"; onActivated: kiosk.screenshot() }          // developer keys: not kiosk UI,
    Shortcut { sequence: "Ctrl+Q"; onActivated: kiosk.quit() }               // so not guarded
}
