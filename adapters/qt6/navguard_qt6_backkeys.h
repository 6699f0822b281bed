/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_qt6_backkeys.h — the Qt 6 adapter's Back keys (Navigator.backKeys,
 * navguard_qt6.h): which keys send a guarded Back, and when a key of them is
 * left to what has focus. Included by navguard_qt6.h; compile
 * navguard_qt6_backkeys.cpp with the adapter's other sources. GUI thread
 * only. Not part of the adapter's API: it may change with it.
 */
#ifndef NAVGUARD_QT6_BACKKEYS_H
#define NAVGUARD_QT6_BACKKEYS_H

#include <QtCore/QVariant>
#include <QtCore/QVector>

class QKeyEvent;
class QQuickWindow;

namespace navguard {
namespace qt6 {
namespace detail {

/* Invariant: the list holds key codes (Qt::Key), none 0; Escape, Back and
 * Backspace until set() says otherwise. */
class BackKeys {
public:
    BackKeys();
    QVariantList list() const;
    /* The keys of `keys` (an entry that is not a key code is left out, with
     * a warning). Returns true when the list changed. */
    bool set(const QVariantList &keys);
    /* `event` (a key NavGuard delivered to `window`) is a Back key's: true
     * when it is one of the list with no modifier but the keypad's, and
     * neither a text field (Backspace) nor a Popup has the focus. Its press,
     * repeats and release are all taken; the press alone sends the Back. */
    bool takes(const QKeyEvent *event, const QQuickWindow *window) const;

private:
    QVector<int> m_keys;
};

} // namespace detail
} // namespace qt6
} // namespace navguard

#endif /* NAVGUARD_QT6_BACKKEYS_H */
