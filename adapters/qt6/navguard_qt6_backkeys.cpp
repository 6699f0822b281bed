// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_backkeys.cpp — the Qt 6 adapter's Back keys (see
 * navguard_qt6_backkeys.h).
 */
#include "navguard_qt6_backkeys.h"

#include <QtGui/QKeyEvent>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>

namespace navguard {
namespace qt6 {
namespace detail {

BackKeys::BackKeys() : m_keys{ Qt::Key_Escape, Qt::Key_Back, Qt::Key_Backspace } {}

QVariantList BackKeys::list() const {
    QVariantList keys;
    for (int k : m_keys) keys << k;
    return keys;
}

bool BackKeys::set(const QVariantList &keys) {
    QVector<int> list;
    for (const QVariant &v : keys) {
        bool ok = false;
        int k = v.toInt(&ok);
        if (ok && k != 0) list << k;
        else qWarning("NavGuard: Navigator.backKeys: %s is not a key code", qPrintable(v.toString()));
    }
    if (list == m_keys) return false;
    m_keys = list;
    return true;
}

bool BackKeys::takes(const QKeyEvent *event, const QQuickWindow *window) const {
    int key = event->key();
    if (!m_keys.contains(key)) return false;
    if ((event->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier) return false;
    QQuickItem *focus = window ? window->activeFocusItem() : nullptr;
    /* Backspace edits the focused text field, if there is one. */
    if (key == Qt::Key_Backspace && focus && (focus->flags() & QQuickItem::ItemAcceptsInputMethod)) return false;
    /* The focus is in a Popup (a Dialog, a Menu): the key is the popup's. */
    for (QQuickItem *i = focus; i; i = i->parentItem())
        if (i->inherits("QQuickPopupItem")) return false;
    return true;
}

} // namespace detail
} // namespace qt6
} // namespace navguard
