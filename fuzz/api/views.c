/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/views.c — navguard.h "Views and hit testing": ng_view_set, ng_view_remove, ng_hit_test. */
#include "ngf.h"

ng_point g_points[1025];

void op_view_set(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    ng_view v = NG_VIEW_INIT;
    uint8_t f = r8(r);
    v.flags = f < 240 ? (uint32_t)(f % 16) : r32(r);
    v.id = r_view_id(r);
    v.parent = r8(r) % 3 == 0 ? 0 : r_view_id(r);
    v.frame.x = r8(r) % 2 ? 0.0 : r_double(r);
    v.frame.y = r8(r) % 2 ? 0.0 : r_double(r);
    v.frame.width = r8(r) % 2 ? 100.0 : r_double(r);
    v.frame.height = r8(r) % 2 ? 100.0 : r_double(r);
    uint8_t ob = r8(r);
    v.order = ob < 250 ? (int32_t)(ob % 5) - 2 : (ob % 2 ? INT32_MIN : INT32_MAX);
    static const double alphas[] = { 1.0, 1.0, 0.5, 0.0, 0.005, 0.01, -0.1, 1.1, NAN, INFINITY };
    v.alpha = alphas[r8(r) % 10];
    uint8_t sk = r8(r);
    v.shape.kind = sk < 248 ? (ng_shape_kind)(sk % 4) : (ng_shape_kind)(int8_t)r8(r);
    v.shape.top = r_double(r);
    v.shape.left = r_double(r);
    v.shape.bottom = r_double(r);
    v.shape.right = r_double(r);
    v.shape.cx = r_double(r);
    v.shape.cy = r_double(r);
    v.shape.radius = r_double(r);
    static const size_t npts[] = { 0, 1, 2, 3, 4, 5, 8, 1024, 1025, SIZE_MAX };
    v.shape.point_count = npts[r8(r) % 10];
    v.shape.points = r8(r) >= 240 ? NULL : g_points;
    if (v.shape.kind == NG_SHAPE_POLYGON && v.shape.point_count <= 8) {
        for (size_t i = 0; i < v.shape.point_count; i++) {   /* per-call points; restored below */
            g_points[i].x = r_double(r);
            g_points[i].y = r_double(r);
        }
    }
    uint8_t z = r8(r);
    if (z >= 240) {
        static const uint32_t sizes[] = { 0, 4, sizeof(ng_view) - 1, sizeof(ng_view) + 32 };
        v.size = sizes[z % 4];
    }
    bool null_v = r8(r) >= 252;
    ng_status st = CALL(ng_view_set, t.h, null_v ? NULL : &v);
    TR("ng_view_set(ctx#%d%s, id %" PRIu64 ", parent %" PRIu64 ", frame %g,%g %gx%g, shape %" PRId32 ", %zu pts) -> %s",
       c ? c->serial : -1, t.bad ? " BAD" : "", v.id, v.parent, v.frame.x, v.frame.y, v.frame.width, v.frame.height,
       v.shape.kind, v.shape.point_count, stname(st));
    for (size_t i = 0; i < 8; i++) { g_points[i].x = (double)(i % 3) * 40.0; g_points[i].y = (double)(i / 3) * 40.0; }
    EXPECT_HANDLE(t, st, "ng_view_set");
    if (t.bad || c->views_unreliable) return;
    if (null_v) { CHECK(st == NG_E_NULL, "ng_view_set(NULL) returned %s", stname(st)); return; }
    if (st == NG_OK) {
        CHECK(v.id != 0, "ng_view_set accepted view id 0");
        CHECK(v.parent == 0 || view_find(c, v.parent), "ng_view_set accepted unknown parent %" PRIu64, v.parent);
        CHECK(!view_is_self_or_ancestor(c, v.id, v.parent), "ng_view_set accepted a cycle: view %" PRIu64
              " under %" PRIu64 ", its own descendant", v.id, v.parent);
        CHECK(v.frame.width >= 0 && v.frame.height >= 0 && isfinite(v.frame.x) && isfinite(v.frame.width),
              "ng_view_set accepted a bad frame");
        view_rec *vr = view_find(c, v.id);
        if (!vr) {
            if (c->nviews == MAX_VIEW_MODEL) { c->views_unreliable = true; return; }
            vr = &c->views[c->nviews++];
            vr->id = v.id;
        }
        vr->parent = v.parent;
    } else if (st == NG_E_NOT_FOUND) {
        CHECK(v.parent != 0 && !view_find(c, v.parent), "ng_view_set returned NOT_FOUND with parent %" PRIu64
              " in the tree", v.parent);
    } else if (st == NG_E_STATE) {
        CHECK(view_is_self_or_ancestor(c, v.id, v.parent), "ng_view_set returned STATE (cycle) for view %" PRIu64
              " under %" PRIu64 ", not a cycle", v.id, v.parent);
    }
}

void op_view_remove(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint64_t id = r_view_id(r);
    ng_status st = CALL(ng_view_remove, t.h, id);
    TR("ng_view_remove(ctx#%d%s, %" PRIu64 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", id, stname(st));
    EXPECT_HANDLE(t, st, "ng_view_remove");
    if (t.bad || !ctx_usable(c) || c->views_unreliable) return;
    bool known = view_find(c, id) != NULL;
    CHECK(st == (known ? NG_OK : NG_E_NOT_FOUND), "ng_view_remove(%" PRIu64 ") returned %s, view %s", id, stname(st),
          known ? "in the tree" : "not in the tree");
    if (st == NG_OK) view_remove_subtree(c, id);
}

void op_hit_test(fzc *self, rd *r) {
    target t = pick(self, r);
    double x = r_double(r), y = r_double(r);
    uint64_t v = 0;
    bool null_out = r8(r) >= 245;
    ng_status st = CALL(ng_hit_test, t.h, x, y, null_out ? NULL : &v);
    TR("ng_hit_test(ctx#%d%s, %g, %g) -> %s %" PRIu64, t.c ? t.c->serial : -1, t.bad ? " BAD" : "", x, y, stname(st), v);
    EXPECT_HANDLE(t, st, "ng_hit_test");
    if (t.bad) return;
    if (null_out) CHECK(st == NG_E_NULL, "ng_hit_test(NULL out) returned %s", stname(st));
    else if (isnan(x) || isnan(y)) CHECK(st == NG_E_RANGE, "ng_hit_test(NaN) returned %s", stname(st));
    else CHECK(st == NG_OK, "ng_hit_test returned %s", stname(st));
    if (st == NG_OK && !t.c->views_unreliable)
        CHECK(v == 0 || view_find(t.c, v), "ng_hit_test returned view %" PRIu64 ", not in the tree", v);
}
