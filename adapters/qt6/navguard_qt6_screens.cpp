// SPDX-License-Identifier: Apache-2.0
/*
 * navguard_qt6_screens.cpp — the Qt 6 adapter's screen registry (see
 * navguard_qt6_screens.h).
 */
#include "navguard_qt6_screens.h"
#include "navguard_qt6.h"

#include <QtCore/QMutexLocker>
#include <QtCore/QSet>

#include <cmath>

namespace navguard {
namespace qt6 {
namespace detail {

uint64_t idFromJs(double v) {
    if (!(v >= 1 && v <= static_cast<double>(kMaxScreenId)) || v != std::floor(v)) return 0;
    return static_cast<uint64_t>(v);
}

void ScreenRegistry::remember(uint64_t id, const QString &route, const QVariantMap &properties) {
    QMutexLocker lock(&m_mu);
    m_screens.insert(id, Record{ route, properties });
}

void ScreenRegistry::forget(uint64_t id) {
    QMutexLocker lock(&m_mu);
    m_screens.remove(id);
}

QString ScreenRegistry::route(uint64_t id) const {
    QMutexLocker lock(&m_mu);
    auto it = m_screens.constFind(id);
    return it == m_screens.constEnd() ? QString() : it->route;
}

QVariantMap ScreenRegistry::properties(uint64_t id) const {
    QMutexLocker lock(&m_mu);
    auto it = m_screens.constFind(id);
    return it == m_screens.constEnd() ? QVariantMap() : it->properties;
}

void ScreenRegistry::trackPush(uint64_t request, const QVector<uint64_t> &screens) {
    QMutexLocker lock(&m_mu);
    auto orphan = m_orphans.find(request);
    if (orphan == m_orphans.end()) {
        m_pushes.insert(request, screens);
        return;
    }
    if (!orphan.value()) /* decided, not applied */
        for (uint64_t id : screens) m_screens.remove(id);
    m_orphans.erase(orphan);
}

void ScreenRegistry::pushDecided(uint64_t request, bool applied) {
    QMutexLocker lock(&m_mu);
    auto push = m_pushes.find(request);
    if (push == m_pushes.end()) {
        m_orphans.insert(request, applied);
        return;
    }
    if (!applied)
        for (uint64_t id : push.value()) m_screens.remove(id);
    m_pushes.erase(push);
}

void ScreenRegistry::prune(const QVector<uint64_t> &stacked, const QVector<uint64_t> &shown) {
    QMutexLocker lock(&m_mu);
    QSet<uint64_t> keep(stacked.cbegin(), stacked.cend());
    for (uint64_t id : shown) keep.insert(id);
    for (const QVector<uint64_t> &ids : std::as_const(m_pushes))
        for (uint64_t id : ids) keep.insert(id);
    for (auto it = m_screens.begin(); it != m_screens.end();) {
        if (keep.contains(it.key())) ++it;
        else it = m_screens.erase(it);
    }
}

} // namespace detail
} // namespace qt6
} // namespace navguard
