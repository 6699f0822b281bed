// SPDX-License-Identifier: Apache-2.0
/*
 * bench_qt6_adapter — the Qt 6 adapter's cost per Qt mouse move, next to Qt's
 * own delivery of that move, measured in the same run. Every figure is ns
 * per event, the median of RUNS timed runs after one untimed warm-up run
 * (bench/bench_measure.h), and allocations per event (bench/bench_alloc.h:
 * the malloc family interposed, Qt's allocations counted too). Nothing
 * asserts a time; the program fails only when an event is not delivered or a
 * call returns an unexpected status.
 *
 * A QQuickWindow (offscreen platform, software renderer) holds one item that
 * grabs the mouse on press; the left button is pressed (delivered), then the
 * mouse moves with the button down, back and forth between two points, each
 * move entering Qt the way a platform plugin's does (qt_handleMouseEvent,
 * QtTest's way in: QWindowSystemInterface, synchronous delivery, then
 * QGuiApplication builds the QMouseEvent and sends it to the window):
 *  (a) through a do-nothing event filter on the window: Qt's own path;
 *  (b) through the adapter's InputFilter, default chain (ng_chain_configure
 *      with NULL, manual clock): Qt's delivery plus the adapter; (b) - (a) is
 *      what the adapter adds per event, and (b) / (a) its share of Qt's own
 *      move, the goal (<= 10 %), which holds across machines as a time does
 *      not: both are the medians of the runs' own differences and ratios;
 *  (b') through a filter that submits a prebuilt MOVED (ng_event_submit, no
 *      conversion): NavGuard's own cost inside Qt's path, for scale;
 * (a), (b) and (b') are timed in turn within each run (a, b, b', a, b, ...),
 * so that a load change on the machine hits all three alike;
 *  (c) InputFilter::eventFilter called directly: conversion + ng_event_submit;
 *  (d) ng_event_submit of the converted event alone: NavGuard's own MOVED;
 *      (c) - (d) is the conversion.
 */
#include "navguard_qt6.h"

#include <QtGui/QGuiApplication>
#include <QtGui/QMouseEvent>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>
#include <QtTest/qtestmouse.h>

#include <cstdio>
#include <cstdlib>

#include "bench_alloc.h"   /* bench/ */
#include "bench_measure.h" /* bench/: RUNS, measure(), figures */

namespace {

class Target : public QQuickItem {
public:
    explicit Target(QQuickItem *parent) : QQuickItem(parent) { setAcceptedMouseButtons(Qt::LeftButton); }
    long moves = 0;

protected:
    void mousePressEvent(QMouseEvent *e) override { e->accept(); }
    void mouseMoveEvent(QMouseEvent *e) override {
        moves++;
        e->accept();
    }
    void mouseReleaseEvent(QMouseEvent *e) override { e->accept(); }
};

class NothingFilter : public QObject {
public:
    bool eventFilter(QObject *, QEvent *) override { return false; }
};

/* (b'): NavGuard's submit, without the adapter's conversion. */
class SubmitFilter : public QObject {
public:
    ng_context *ctx = nullptr;
    ng_event moved{};
    bool eventFilter(QObject *, QEvent *e) override {
        if (e->type() != QEvent::MouseMove) return false;
        ng_event_result r = NG_EVENT_RESULT_INIT;
        return ng_event_submit(ctx, &moved, &r) != NG_OK || r.verdict != NG_VERDICT_DELIVER;
    }
};

struct State {
    QQuickWindow *win = nullptr;
    Target *target = nullptr;
    navguard::qt6::InputFilter *filter = nullptr;
    ng_context *ctx = nullptr;
    QMouseEvent *move = nullptr;
    ng_event moved{};
    int timestamp = 1000;
};

/* The median of RUNS values, leaving them in their order. */
double median_of(const double *v) {
    double c[RUNS];
    for (int i = 0; i < RUNS; i++) c[i] = v[i];
    qsort(c, RUNS, sizeof c[0], cmp_double);
    return c[RUNS / 2];
}

void fail(const char *what) {
    std::fprintf(stderr, "bench_qt6_adapter: %s\n", what);
    std::exit(1);
}

void send_moves(void *p, long iters) {
    auto *s = static_cast<State *>(p);
    long before = s->target->moves;
    const QPointF a(105, 100), b(106, 100);
    const QPointF ga = s->win->mapToGlobal(a), gb = s->win->mapToGlobal(b);
    for (long i = 0; i < iters; i++) {
        bool odd = i & 1;
        qt_handleMouseEvent(s->win, odd ? b : a, odd ? gb : ga, Qt::LeftButton, Qt::NoButton, QEvent::MouseMove,
                            Qt::NoModifier, ++s->timestamp);
    }
    if (s->target->moves - before != iters) {
        std::fprintf(stderr, "bench_qt6_adapter: %ld of %ld moves reached the item\n", s->target->moves - before, iters);
        fail("a move was not delivered to the item");
    }
}

void filter_moves(void *p, long iters) {
    auto *s = static_cast<State *>(p);
    for (long i = 0; i < iters; i++)
        if (s->filter->eventFilter(s->win, s->move)) fail("the adapter dropped a move");
}

void submit_moves(void *p, long iters) {
    auto *s = static_cast<State *>(p);
    for (long i = 0; i < iters; i++) {
        ng_event_result r = NG_EVENT_RESULT_INIT;
        if (ng_event_submit(s->ctx, &s->moved, &r) != NG_OK || r.verdict != NG_VERDICT_DELIVER)
            fail("ng_event_submit(MOVED) did not deliver");
    }
}

} // namespace

int main(int argc, char **argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    if (qEnvironmentVariableIsEmpty("QT_QUICK_BACKEND")) qputenv("QT_QUICK_BACKEND", "software");
    QGuiApplication app(argc, argv);

    State s;
    s.win = new QQuickWindow;
    s.win->resize(800, 600);
    s.target = new Target(s.win->contentItem());
    s.target->setSize(QSizeF(800, 600));
    s.win->show();
    for (int i = 0; i < 50 && !s.win->isExposed(); i++) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);

    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 1000000000LL;
    if (ng_context_create(&o, &s.ctx) != NG_OK) fail("ng_context_create");
    if (ng_chain_configure(s.ctx, nullptr) != NG_OK) {
        std::fprintf(stderr, "bench_qt6_adapter: the default chain did not load: %s\n  plugin dir: %s\n",
                     ng_errmsg(s.ctx), ng_plugin_dir());
        return 1;
    }
    size_t guards = 0;
    ng_chain_count(s.ctx, &guards);
    ng_screen home = { 1, "home", nullptr };
    ng_stack_set_root(s.ctx, &home);
    s.filter = new navguard::qt6::InputFilter(s.ctx);
    s.filter->setHoverEnabled(false);

    QPointF at(100, 100), to(105, 100);
    auto press = [&] {
        qt_handleMouseEvent(s.win, at, s.win->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton,
                            QEvent::MouseButtonPress, Qt::NoModifier, s.timestamp += 1000);
    };
    auto release = [&] {
        qt_handleMouseEvent(s.win, to, s.win->mapToGlobal(to), Qt::NoButton, Qt::LeftButton,
                            QEvent::MouseButtonRelease, Qt::NoModifier, s.timestamp += 1000);
    };
    s.move = new QMouseEvent(QEvent::MouseMove, to, to, s.win->mapToGlobal(to), Qt::NoButton, Qt::LeftButton,
                             Qt::NoModifier);

    std::printf("bench_qt6_adapter: NavGuard %s, Qt %s (%s), ns per Qt mouse move, median of %d runs (after a "
                "warm-up run)\nplugin dir: %s\n\n",
                ng_version_string(), qVersion(), qPrintable(QGuiApplication::platformName()), RUNS, ng_plugin_dir());

    const long N = 200000;
    NothingFilter nothing;
    SubmitFilter submitOnly;
    submitOnly.ctx = s.ctx;
    s.moved = NG_EVENT_INIT(NG_EVENT_TOUCH);
    s.moved.phase = NG_TOUCH_MOVED;
    s.moved.touch_id = navguard::qt6::kMouseTouchId;
    s.moved.x = to.x();
    s.moved.y = to.y();
    submitOnly.moved = s.moved;

    /* The button goes down with the adapter attached (the mouse touch is
     * live in it and in NavGuard) and stays down; each configuration then
     * puts its filter on the window for its turn. */
    s.filter->attach(s.win);
    press();
    if (s.filter->touchIdOf(0) != navguard::qt6::kMouseTouchId) fail("the press did not start the mouse touch");
    s.filter->attach(nullptr);
    enum { A, B, BN, K };
    auto configure = [&](int k, bool on) {
        if (k == A) on ? s.win->installEventFilter(&nothing) : s.win->removeEventFilter(&nothing);
        else if (k == B) s.filter->attach(on ? s.win : nullptr);
        else on ? s.win->installEventFilter(&submitOnly) : s.win->removeEventFilter(&submitOnly);
    };
    double v[K][RUNS], allocs[K];
    for (int k = 0; k < K; k++) {
        configure(k, true);
        send_moves(&s, N / 10); /* warm-up */
        allocs[k] = allocs_per_op(send_moves, &s, N / 10, 1.0);
        configure(k, false);
    }
    for (int r = 0; r < RUNS; r++) {
        for (int k = 0; k < K; k++) {
            configure(k, true);
            int64_t t0 = mono_ns();
            send_moves(&s, N);
            v[k][r] = (double)(mono_ns() - t0) / (double)N;
            configure(k, false);
        }
    }
    /* The goal is relative (README: the adapter at <= 10 % of Qt's own
     * move), so that it holds on any machine: each run's (b) over its own
     * (a), timed next to each other, then the median of those ratios, which
     * a load change between runs does not move as much as it moves the
     * medians of (a) and (b) taken apart. Computed before record() sorts v. */
    double added[RUNS], share[RUNS], added_n[RUNS], share_n[RUNS];
    for (int r = 0; r < RUNS; r++) {
        added[r] = v[B][r] - v[A][r];
        share[r] = 100.0 * added[r] / v[A][r];
        added_n[r] = v[BN][r] - v[A][r];
        share_n[r] = 100.0 * added_n[r] / v[A][r];
    }
    const double goal_pct = 10.0;
    double adds = median_of(added), adds_pct = median_of(share);
    double adds_n = median_of(added_n), adds_n_pct = median_of(share_n);
    figure *qa = record("(a) Qt: a mouse move, do-nothing filter", v[A], 0.0);
    figure *qb = record("(b) Qt + adapter, default chain", v[B], 0.0);
    figure *qn = record("(b') Qt + ng_event_submit, no adapter", v[BN], 0.0);
    double qa_allocs = allocs[A], qb_allocs = allocs[B];
    std::snprintf(qn->note, sizeof qn->note, "%.3f allocs/event; NavGuard adds %.1f ns, %.1f %% of (a)", allocs[BN],
                  adds_n, adds_n_pct);
    /* (c) the filter alone: conversion + submit. */
    s.filter->attach(s.win);
    figure *fc = measure("(c) InputFilter::eventFilter alone", filter_moves, &s, N, 1.0);
    double fc_allocs = allocs_per_op(filter_moves, &s, N / 10, 1.0);
    /* (d) NavGuard alone. */
    figure *sd = measure("(d) ng_event_submit(MOVED) alone", submit_moves, &s, N, 1.0);
    double sd_allocs = allocs_per_op(submit_moves, &s, N / 10, 1.0);
    release();

    std::snprintf(qa->note, sizeof qa->note, "%.3f allocs/event", qa_allocs);
    std::snprintf(qb->note, sizeof qb->note, "%.3f allocs/event; adds %.1f ns, %.1f %% of (a) [goal <= %.0f %%]",
                  qb_allocs, adds, adds_pct, goal_pct);
    std::snprintf(fc->note, sizeof fc->note, "%.3f allocs/event; conversion %.1f ns over (d)", fc_allocs,
                  fc->median - sd->median);
    std::snprintf(sd->note, sizeof sd->note, "%.3f allocs/event; %zu guards", sd_allocs, guards);

    std::printf("%-44s %10s %10s %10s  %s\n", "figure (ns per Qt mouse move)", "median", "min", "max", "note");
    std::printf("%-44s %10s %10s %10s  %s\n", "--------------------------------------------", "----------",
                "----------", "----------", "----");
    for (int i = 0; i < g_nfig; i++) {
        figure *f = &g_fig[i];
        std::printf("%-44s %10.1f %10.1f %10.1f  %s\n", f->name, f->median, f->min, f->max, f->note);
    }
    std::printf("\nbench_qt6_adapter: the adapter adds %.1f ns per mouse move (%.1f with Qt, %.1f without), "
                "%.3f allocations per event of its own\n",
                adds, qb->median, qa->median, fc_allocs);
    std::printf("ratio (b) / (a), Qt + adapter over Qt's own move: %.3f, the adapter at %.1f %% of Qt's own move "
                "(goal <= %.0f %%: %s); NavGuard's submit alone, (b') / (a): %.1f %%\n",
                1.0 + adds_pct / 100.0, adds_pct, goal_pct, adds_pct <= goal_pct ? "met" : "NOT met", adds_n_pct);
    delete s.filter;
    delete s.move;
    delete s.win;
    ng_context_destroy(s.ctx);
    return 0;
}
