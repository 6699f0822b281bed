// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import NavGuardCore

// MARK: - Helpers

private func view(
    _ id: UInt64,
    parent: UInt64 = 0,
    _ x: Double, _ y: Double, _ w: Double, _ h: Double,
    order: Int32 = 0,
    flags: ViewFlags = [.interactionEnabled],
    alpha: Double = 1,
    shape: HitShape = .bounds
) -> ViewSpec {
    ViewSpec(
        id: id, parent: parent, frame: Rect(x: x, y: y, width: w, height: h),
        order: order, flags: flags, alpha: alpha, shape: shape)
}

private func pt(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }

private func tree(_ views: [ViewSpec]) throws -> ViewTree {
    var t = ViewTree()
    for v in views { try t.set(v) }
    return t
}

/// A five-pointed star, centre (100, 100), outer radius 100 (top tip at
/// (100, 0)), inner radius 38.1966, as a simple 10-point outline.
private let star10: [Point] = [
    pt(100, 0), pt(122.4514, 69.0983),
    pt(195.1057, 69.0983), pt(136.3271, 111.8034),
    pt(158.7785, 180.9017), pt(100, 138.1966),
    pt(41.2215, 180.9017), pt(63.6729, 111.8034),
    pt(4.8943, 69.0983), pt(77.5486, 69.0983),
]

/// The same star as a self-intersecting pentagram (every second tip).
private let pentagram: [Point] = [
    pt(100, 0), pt(158.7785, 180.9017), pt(4.8943, 69.0983),
    pt(195.1057, 69.0983), pt(41.2215, 180.9017),
]

// Ids used by the table.
private let backdrop: UInt64 = 99
private let a: UInt64 = 1, b: UInt64 = 2, c: UInt64 = 3

/// Behind everything, covering 0..<1000 both ways: where a skipped view lets
/// the touch through.
private let backdropView = view(backdrop, 0, 0, 1000, 1000, order: -100)

struct HitCase: Sendable, CustomTestStringConvertible {
    let name: String
    let views: [ViewSpec]
    let point: Point
    let expected: UInt64?
    var testDescription: String { name }

    init(_ name: String, _ views: [ViewSpec], _ point: Point, _ expected: UInt64?) {
        self.name = name
        self.views = views
        self.point = point
        self.expected = expected
    }
}

// A 44x44 button at (100, 100) whose touch area reaches 30 px
// further left/right and 20 px further up/down: x in [70, 174), y in [80, 164).
private let largeTouchAreaButton = view(
    a, 100, 100, 44, 44, shape: .insets(top: -20, left: -30, bottom: -20, right: -30))

private let nested = [
    view(a, 0, 0, 300, 300),
    view(b, parent: a, 50, 50, 200, 200),
    view(c, parent: b, 10, 10, 50, 50),
]

private let hitCases: [HitCase] = [
    // .bounds: left/top edges are inside, right/bottom edges are not.
    HitCase("bounds: top-left corner hit", [view(a, 10, 20, 100, 50)], pt(10, 20), a),
    HitCase("bounds: interior hit", [view(a, 10, 20, 100, 50)], pt(60, 45), a),
    HitCase("bounds: just inside right edge hit", [view(a, 10, 20, 100, 50)], pt(109.999, 69.999), a),
    HitCase("bounds: right edge miss", [view(a, 10, 20, 100, 50)], pt(110, 30), nil),
    HitCase("bounds: bottom edge miss", [view(a, 10, 20, 100, 50)], pt(30, 70), nil),
    HitCase("bounds: left of left edge miss", [view(a, 10, 20, 100, 50)], pt(9.999, 30), nil),
    HitCase("bounds: above top edge miss", [view(a, 10, 20, 100, 50)], pt(30, 19.999), nil),
    HitCase("bounds: zero-size view never hit", [view(a, 10, 20, 0, 0)], pt(10, 20), nil),

    // .insets growing (a button whose touch area is larger than it).
    HitCase("insets grow: inside the button", [largeTouchAreaButton], pt(120, 120), a),
    HitCase("insets grow: 30 px left", [largeTouchAreaButton], pt(70, 120), a),
    HitCase("insets grow: 30.001 px left miss", [largeTouchAreaButton], pt(69.999, 120), nil),
    HitCase("insets grow: 29.999 px right", [largeTouchAreaButton], pt(173.999, 120), a),
    HitCase("insets grow: 30 px right miss (half-open)", [largeTouchAreaButton], pt(174, 120), nil),
    HitCase("insets grow: 20 px up", [largeTouchAreaButton], pt(120, 80), a),
    HitCase("insets grow: 20.001 px up miss", [largeTouchAreaButton], pt(120, 79.999), nil),
    HitCase("insets grow: 19.999 px down", [largeTouchAreaButton], pt(120, 163.999), a),
    HitCase("insets grow: 20 px down miss (half-open)", [largeTouchAreaButton], pt(120, 164), nil),
    HitCase("insets grow: extended corner", [largeTouchAreaButton], pt(70, 80), a),

    // .insets shrinking.
    HitCase("insets shrink: centre hit",
            [view(a, 0, 0, 100, 100, shape: .insets(top: 10, left: 20, bottom: 10, right: 20))], pt(50, 50), a),
    HitCase("insets shrink: inside bounds, left of inset miss",
            [view(a, 0, 0, 100, 100, shape: .insets(top: 10, left: 20, bottom: 10, right: 20))], pt(19.999, 50), nil),
    HitCase("insets shrink: inset left edge hit",
            [view(a, 0, 0, 100, 100, shape: .insets(top: 10, left: 20, bottom: 10, right: 20))], pt(20, 10), a),
    HitCase("insets shrink: inset right edge miss",
            [view(a, 0, 0, 100, 100, shape: .insets(top: 10, left: 20, bottom: 10, right: 20))], pt(80, 50), nil),
    HitCase("insets shrink: inset bottom edge miss",
            [view(a, 0, 0, 100, 100, shape: .insets(top: 10, left: 20, bottom: 10, right: 20))], pt(50, 90), nil),
    HitCase("insets larger than the view: never hit",
            [view(a, 0, 0, 100, 100, shape: .insets(top: 60, left: 60, bottom: 60, right: 60))], pt(50, 50), nil),

    // .circle (view coordinates; the frame origin is (100, 100)).
    HitCase("circle: centre hit",
            [view(a, 100, 100, 100, 100, shape: .circle(centerX: 50, centerY: 50, radius: 50))], pt(150, 150), a),
    HitCase("circle: on the circle hit",
            [view(a, 100, 100, 100, 100, shape: .circle(centerX: 50, centerY: 50, radius: 50))], pt(150, 100), a),
    HitCase("circle: just outside miss",
            [view(a, 100, 100, 100, 100, shape: .circle(centerX: 50, centerY: 50, radius: 50))], pt(150, 99.999), nil),
    HitCase("circle: corner of its bounding box miss",
            [view(a, 100, 100, 100, 100, shape: .circle(centerX: 50, centerY: 50, radius: 50))], pt(105, 105), nil),
    HitCase("circle: larger than the bounds, outside bounds hit",
            [view(a, 100, 100, 100, 100, shape: .circle(centerX: 50, centerY: 50, radius: 80))], pt(80, 150), a),

    // .polygon: a five-pointed star (frame origin (50, 50)).
    HitCase("star: centre hit", [view(a, 50, 50, 200, 200, shape: .polygon(star10))], pt(150, 150), a),
    HitCase("star: top tip hit", [view(a, 50, 50, 200, 200, shape: .polygon(star10))], pt(150, 55), a),
    HitCase("star: right tip hit", [view(a, 50, 50, 200, 200, shape: .polygon(star10))], pt(240, 120), a),
    HitCase("star: notch between top and right tips miss",
            [view(a, 50, 50, 200, 200, shape: .polygon(star10))], pt(191.14, 93.37), nil),
    HitCase("star: notch between the bottom tips miss",
            [view(a, 50, 50, 200, 200, shape: .polygon(star10))], pt(150, 215), nil),
    HitCase("star: beside the top tip miss",
            [view(a, 50, 50, 200, 200, shape: .polygon(star10))], pt(160, 55), nil),
    HitCase("pentagram: centre hit (nonzero winding)",
            [view(a, 50, 50, 200, 200, shape: .polygon(pentagram))], pt(150, 150), a),
    HitCase("pentagram: top tip hit",
            [view(a, 50, 50, 200, 200, shape: .polygon(pentagram))], pt(150, 55), a),
    HitCase("pentagram: notch miss",
            [view(a, 50, 50, 200, 200, shape: .polygon(pentagram))], pt(191.14, 93.37), nil),
    HitCase("polygon with 2 points: never hit",
            [view(a, 0, 0, 100, 100, shape: .polygon([pt(0, 0), pt(100, 100)]))], pt(50, 50), nil),
    HitCase("polygon with 0 points: never hit", [view(a, 0, 0, 100, 100, shape: .polygon([]))], pt(50, 50), nil),
    HitCase("polygon outside the bounds hit",
            [view(a, 0, 0, 10, 10, shape: .polygon([pt(20, 0), pt(40, 0), pt(40, 20), pt(20, 20)]))], pt(30, 10), a),

    // Nesting.
    HitCase("nesting: deepest child returned", nested, pt(65, 65), c),
    HitCase("nesting: middle view when no child is hit", nested, pt(200, 200), b),
    HitCase("nesting: top view when no child is hit", nested, pt(10, 10), a),
    HitCase("nesting: outside everything", nested, pt(300, 300), nil),
    HitCase("nesting: negative coordinates miss", nested, pt(-1, 5), nil),

    // Sibling order.
    HitCase("order: higher order wins though inserted first",
            [view(a, 0, 0, 100, 100, order: 5), view(b, 0, 0, 100, 100, order: 1)], pt(50, 50), a),
    HitCase("order: equal order, later inserted wins",
            [view(a, 0, 0, 100, 100), view(b, 0, 0, 100, 100)], pt(50, 50), b),
    HitCase("order: front view missed, back view hit",
            [view(a, 0, 0, 100, 100), view(b, 0, 0, 50, 50, order: 1)], pt(75, 75), a),
    HitCase("order: among children too",
            [view(a, 0, 0, 100, 100),
             view(b, parent: a, 0, 0, 50, 50, order: 2),
             view(c, parent: a, 0, 0, 50, 50, order: 1)], pt(10, 10), b),
    HitCase("order: negative orders",
            [view(a, 0, 0, 100, 100, order: -1), view(b, 0, 0, 100, 100, order: -2)], pt(10, 10), a),

    // A child sticking out of its parent (child at parent x 60..80, parent 50 wide).
    HitCase("outside parent: miss when the parent's shape does not reach",
            [view(a, 100, 100, 50, 50), view(b, parent: a, 60, 0, 20, 20)], pt(165, 105), nil),
    HitCase("outside parent: falls through to the view behind",
            [backdropView, view(a, 100, 100, 50, 50), view(b, parent: a, 60, 0, 20, 20)], pt(165, 105), backdrop),
    HitCase("outside parent: the part inside the parent is hit",
            [view(a, 100, 100, 70, 50), view(b, parent: a, 60, 0, 20, 20)], pt(165, 105), b),
    HitCase("outside parent: hit when negative insets reach it",
            [view(a, 100, 100, 50, 50, shape: .insets(top: 0, left: 0, bottom: 0, right: -40)),
             view(b, parent: a, 60, 0, 20, 20)], pt(165, 105), b),
    HitCase("outside parent: parent's extended area hit where the child is not",
            [view(a, 100, 100, 50, 50, shape: .insets(top: 0, left: 0, bottom: 0, right: -40)),
             view(b, parent: a, 60, 0, 20, 20)], pt(165, 140), a),

    // Skip rules: the skipped view lets the touch through to the backdrop.
    HitCase("skip: hidden",
            [backdropView, view(a, 0, 0, 100, 100, flags: [.interactionEnabled, .hidden])], pt(50, 50), backdrop),
    HitCase("skip: interaction disabled",
            [backdropView, view(a, 0, 0, 100, 100, flags: [])], pt(50, 50), backdrop),
    HitCase("skip: interaction disabled, other flags set",
            [backdropView, view(a, 0, 0, 100, 100, flags: [.multipleTouch, .exclusiveTouch])], pt(50, 50), backdrop),
    HitCase("alpha 0.01 is hit", [backdropView, view(a, 0, 0, 100, 100, alpha: 0.01)], pt(50, 50), a),
    HitCase("alpha 0.009 is skipped", [backdropView, view(a, 0, 0, 100, 100, alpha: 0.009)], pt(50, 50), backdrop),
    HitCase("alpha 0 is skipped", [backdropView, view(a, 0, 0, 100, 100, alpha: 0)], pt(50, 50), backdrop),
    HitCase("hidden parent skips its visible child",
            [backdropView, view(a, 0, 0, 100, 100, flags: [.interactionEnabled, .hidden]),
             view(b, parent: a, 10, 10, 20, 20)], pt(15, 15), backdrop),
    HitCase("disabled parent skips its enabled child",
            [backdropView, view(a, 0, 0, 100, 100, flags: []), view(b, parent: a, 10, 10, 20, 20)], pt(15, 15), backdrop),
    HitCase("alpha 0.009 parent skips its opaque child",
            [backdropView, view(a, 0, 0, 100, 100, alpha: 0.009), view(b, parent: a, 10, 10, 20, 20)], pt(15, 15), backdrop),
    HitCase("hidden grandparent skips the grandchild",
            [backdropView, view(a, 0, 0, 100, 100, flags: [.interactionEnabled, .hidden]),
             view(b, parent: a, 0, 0, 100, 100), view(c, parent: b, 10, 10, 20, 20)], pt(15, 15), backdrop),
    HitCase("hidden child: its parent is returned",
            [backdropView, view(a, 0, 0, 100, 100), view(b, parent: a, 10, 10, 20, 20, flags: [.interactionEnabled, .hidden])],
            pt(15, 15), a),
    HitCase("skipped front sibling: the back sibling is hit",
            [view(a, 0, 0, 100, 100), view(b, 0, 0, 100, 100, order: 1, flags: [])], pt(15, 15), a),
    HitCase("alpha 0.01 parent with child: child hit",
            [view(a, 0, 0, 100, 100, alpha: 0.01), view(b, parent: a, 10, 10, 20, 20)], pt(15, 15), b),
]

// MARK: - Tests

@Suite struct HitTestTests {
    @Test("hit-test table", arguments: hitCases)
    func table(_ c: HitCase) throws {
        let t = try tree(c.views)
        #expect(t.hitTest(c.point) == c.expected)
    }

    @Test func changingOrderChangesWinner() throws {
        var t = try tree([view(a, 0, 0, 100, 100), view(b, 0, 0, 100, 100)])
        #expect(t.hitTest(pt(1, 1)) == b)
        try t.set(view(a, 0, 0, 100, 100, order: 1))
        #expect(t.hitTest(pt(1, 1)) == a)
        try t.set(view(b, 0, 0, 100, 100, order: 2))
        #expect(t.hitTest(pt(1, 1)) == b)
        // Back to equal orders: the insertion rank (b after a) decides again.
        try t.set(view(a, 0, 0, 100, 100, order: 2))
        #expect(t.hitTest(pt(1, 1)) == b)
        // An update that keeps the order does not bring the view to the front.
        try t.set(view(a, 0, 0, 100, 100, order: 2, alpha: 0.5))
        #expect(t.hitTest(pt(1, 1)) == b)
        // Remove and add again: now the latest inserted.
        try t.remove(a)
        try t.set(view(a, 0, 0, 100, 100, order: 2))
        #expect(t.hitTest(pt(1, 1)) == a)
    }

    @Test func manySiblingsInAnyOrder() throws {
        // Orders inserted out of sequence: the highest order always wins,
        // ties go to the later inserted.
        let orders: [Int32] = [3, -1, 7, 7, 0, 5, 7, 2, -4, 6]
        var t = ViewTree()
        for (i, o) in orders.enumerated() {
            try t.set(view(UInt64(i + 1), 0, 0, 10, 10, order: o))
        }
        #expect(t.hitTest(pt(5, 5)) == 7) // third view with order 7 (index 6)
        // Peel them off front to back; the expected order of winners:
        let frontToBack: [UInt64] = [7, 4, 3, 10, 6, 1, 8, 5, 2, 9]
        for id in frontToBack {
            #expect(t.hitTest(pt(5, 5)) == id)
            try t.remove(id)
        }
        #expect(t.hitTest(pt(5, 5)) == nil)
        #expect(t.count == 0)
    }

    @Test func updateChangesGeometryAndFlags() throws {
        var t = try tree([backdropView, view(a, 0, 0, 100, 100)])
        #expect(t.hitTest(pt(150, 150)) == backdrop)
        try t.set(view(a, 100, 100, 100, 100))
        #expect(t.hitTest(pt(150, 150)) == a)
        #expect(t.hitTest(pt(50, 50)) == backdrop)
        try t.set(view(a, 100, 100, 100, 100, flags: [.interactionEnabled, .hidden]))
        #expect(t.hitTest(pt(150, 150)) == backdrop)
        try t.set(view(a, 100, 100, 100, 100, shape: .circle(centerX: 0, centerY: 0, radius: 10)))
        #expect(t.hitTest(pt(105, 105)) == a)
        #expect(t.hitTest(pt(150, 150)) == backdrop)
        try t.set(view(a, 100, 100, 100, 100, shape: .polygon(star10)))
        #expect(t.hitTest(pt(200, 200)) == a)
        try t.set(view(a, 100, 100, 100, 100))
        #expect(t.hitTest(pt(199, 199)) == a)
        #expect(t.view(a)?.shape == .bounds)
    }

    @Test func removeRemovesSubtree() throws {
        var t = try tree([
            backdropView,
            view(a, 0, 0, 100, 100),
            view(b, parent: a, 0, 0, 50, 50),
            view(c, parent: b, 0, 0, 20, 20),
            view(4, parent: a, 50, 50, 50, 50),
            view(5, 200, 200, 10, 10),
        ])
        #expect(t.count == 6)
        #expect(t.hitTest(pt(10, 10)) == c)
        try t.remove(a)
        #expect(t.count == 2)
        for id: UInt64 in [a, b, c, 4] {
            #expect(!t.contains(id))
            #expect(t.view(id) == nil)
        }
        #expect(t.contains(backdrop) && t.contains(5))
        #expect(t.hitTest(pt(10, 10)) == backdrop)
        #expect(t.hitTest(pt(75, 75)) == backdrop)
        #expect(t.hitTest(pt(205, 205)) == 5)
        #expect(throws: ViewTreeError.notFound) { try t.remove(a) }
        #expect(throws: ViewTreeError.notFound) { try t.remove(c) }
        #expect(throws: ViewTreeError.notFound) { try t.remove(0) }
        // A removed id cannot be a parent any more; it can be added again.
        #expect(throws: ViewTreeError.unknownParent) { try t.set(view(b, parent: a, 0, 0, 5, 5)) }
        try t.set(view(c, 0, 0, 30, 30))
        #expect(t.view(c)?.parent == 0)
        #expect(t.hitTest(pt(10, 10)) == c)
        #expect(t.count == 3)
    }

    @Test func removeLeafKeepsSiblings() throws {
        var t = try tree([
            view(a, 0, 0, 100, 100),
            view(b, parent: a, 0, 0, 100, 100, order: 1),
            view(c, parent: a, 0, 0, 100, 100, order: 2),
            view(4, parent: a, 0, 0, 100, 100, order: 3),
        ])
        #expect(t.hitTest(pt(1, 1)) == 4)
        try t.remove(c) // middle of the sibling list
        #expect(t.hitTest(pt(1, 1)) == 4)
        try t.remove(4) // head
        #expect(t.hitTest(pt(1, 1)) == b)
        try t.set(view(6, parent: a, 0, 0, 100, 100, order: 0)) // tail
        try t.remove(b)
        #expect(t.hitTest(pt(1, 1)) == 6)
        try t.remove(6)
        #expect(t.hitTest(pt(1, 1)) == a)
        #expect(t.count == 1)
    }

    @Test func reparent() throws {
        var t = try tree([
            view(a, 0, 0, 100, 100),
            view(b, 200, 0, 100, 100),
            view(c, parent: a, 10, 10, 20, 20),
            view(4, parent: c, 0, 0, 5, 5),
        ])
        #expect(t.hitTest(pt(12, 12)) == 4)
        #expect(t.isAncestor(a, of: 4))
        // Move c (with its child) under b; its frame is now in b's coordinates.
        try t.set(view(c, parent: b, 10, 10, 20, 20))
        #expect(t.view(c)?.parent == b)
        #expect(t.view(4)?.parent == c)
        #expect(t.hitTest(pt(12, 12)) == a)
        #expect(t.hitTest(pt(212, 12)) == 4)
        #expect(t.hitTest(pt(220, 20)) == c)
        #expect(t.isAncestor(b, of: 4))
        #expect(t.isAncestor(b, of: c))
        #expect(!t.isAncestor(a, of: c))
        #expect(!t.isAncestor(a, of: 4))
        // To the top level.
        try t.set(view(c, 500, 500, 20, 20))
        #expect(t.view(c)?.parent == 0)
        #expect(t.hitTest(pt(501, 501)) == 4)
        #expect(!t.isAncestor(b, of: c))
        #expect(t.count == 4)
        // Removing the old parent leaves the moved subtree alone.
        try t.remove(b)
        #expect(t.contains(c) && t.contains(4))
        #expect(t.count == 3)
    }

    @Test func isAncestorIsStrict() throws {
        let t = try tree(nested)
        #expect(t.isAncestor(a, of: c))
        #expect(t.isAncestor(b, of: c))
        #expect(t.isAncestor(a, of: b))
        #expect(!t.isAncestor(c, of: a))
        #expect(!t.isAncestor(a, of: a))
        #expect(!t.isAncestor(0, of: a))
        #expect(!t.isAncestor(a, of: 42))
        #expect(!t.isAncestor(42, of: a))
    }

    @Test func cycleRejected() throws {
        var t = try tree(nested)
        #expect(throws: ViewTreeError.cycle) { try t.set(view(a, parent: c, 0, 0, 300, 300)) }
        #expect(throws: ViewTreeError.cycle) { try t.set(view(a, parent: b, 0, 0, 300, 300)) }
        #expect(throws: ViewTreeError.cycle) { try t.set(view(b, parent: b, 50, 50, 200, 200)) }
        // Self-parent on a new id.
        #expect(throws: ViewTreeError.cycle) { try t.set(view(7, parent: 7, 0, 0, 1, 1)) }
        // The tree is unchanged.
        #expect(t.view(a) == view(a, 0, 0, 300, 300))
        #expect(t.view(b) == view(b, parent: a, 50, 50, 200, 200))
        #expect(t.count == 3)
        #expect(t.hitTest(pt(65, 65)) == c)
        // Moving a view lower in its own branch the other way round is fine.
        try t.set(view(c, parent: a, 10, 10, 50, 50))
        try t.set(view(b, parent: c, 0, 0, 10, 10))
        #expect(t.isAncestor(c, of: b))
        #expect(t.hitTest(pt(15, 15)) == b)
    }

    @Test func invalidInputsRejected() throws {
        var t = try tree([view(a, 0, 0, 100, 100)])
        let before = t.view(a)
        let nan = Double.nan, inf = Double.infinity
        let cases: [(ViewSpec, ViewTreeError)] = [
            (view(0, 0, 0, 1, 1), .invalidID),
            (view(b, parent: 42, 0, 0, 1, 1), .unknownParent),
            (view(b, nan, 0, 1, 1), .invalidFrame),
            (view(b, 0, nan, 1, 1), .invalidFrame),
            (view(b, 0, 0, nan, 1), .invalidFrame),
            (view(b, 0, 0, 1, nan), .invalidFrame),
            (view(b, inf, 0, 1, 1), .invalidFrame),
            (view(b, 0, -inf, 1, 1), .invalidFrame),
            (view(b, 0, 0, inf, 1), .invalidFrame),
            (view(b, 0, 0, -1, 1), .invalidFrame),
            (view(b, 0, 0, 1, -0.5), .invalidFrame),
            (view(b, 0, 0, 1, 1, alpha: nan), .invalidAlpha),
            (view(b, 0, 0, 1, 1, alpha: -0.01), .invalidAlpha),
            (view(b, 0, 0, 1, 1, alpha: 1.01), .invalidAlpha),
            (view(b, 0, 0, 1, 1, alpha: inf), .invalidAlpha),
            (view(b, 0, 0, 1, 1, shape: .insets(top: nan, left: 0, bottom: 0, right: 0)), .invalidShape),
            (view(b, 0, 0, 1, 1, shape: .insets(top: 0, left: 0, bottom: 0, right: -inf)), .invalidShape),
            (view(b, 0, 0, 1, 1, shape: .circle(centerX: nan, centerY: 0, radius: 1)), .invalidShape),
            (view(b, 0, 0, 1, 1, shape: .circle(centerX: 0, centerY: inf, radius: 1)), .invalidShape),
            (view(b, 0, 0, 1, 1, shape: .circle(centerX: 0, centerY: 0, radius: -1)), .invalidShape),
            (view(b, 0, 0, 1, 1, shape: .circle(centerX: 0, centerY: 0, radius: nan)), .invalidShape),
            (view(b, 0, 0, 1, 1, shape: .polygon([pt(0, 0), pt(1, nan), pt(1, 1)])), .invalidShape),
            (view(b, 0, 0, 1, 1, shape: .polygon([pt(inf, 0)])), .invalidShape),
            (view(b, 0, 0, 1, 1, shape: .polygon(Array(repeating: pt(0, 0), count: 1025))), .limit),
            // Updating an existing view is validated the same way.
            (view(a, 0, 0, -1, 1), .invalidFrame),
            (view(a, 0, 0, 1, 1, alpha: 2), .invalidAlpha),
            (view(a, parent: 42, 0, 0, 1, 1), .unknownParent),
        ]
        for (spec, error) in cases {
            #expect(throws: error, "\(spec)") { try t.set(spec) }
        }
        // Nothing changed.
        #expect(t.count == 1)
        #expect(t.view(a) == before)
        #expect(!t.contains(b))
        #expect(t.hitTest(pt(50, 50)) == a)
        #expect(throws: ViewTreeError.notFound) { try t.remove(b) }

        // Edge values that are valid.
        try t.set(view(b, -50, -50, 0, 0, alpha: 0))
        try t.set(view(c, 0, 0, 1, 1, alpha: 1, shape: .circle(centerX: 0, centerY: 0, radius: 0)))
        try t.set(view(4, 0, 0, 1, 1, shape: .polygon(Array(repeating: pt(0, 0), count: 1024))))
        try t.set(view(5, 0, 0, 1, 1, shape: .insets(top: -1e300, left: 1e300, bottom: 0, right: 0)))
        try t.set(view(6, 0, 0, 1, 1, order: .min, flags: []))
        try t.set(view(7, 0, 0, 1, 1, order: .max, flags: ViewFlags(rawValue: .max)))
        #expect(t.count == 7)
        #expect(t.view(7)?.flags == ViewFlags(rawValue: .max))
    }

    @Test func viewLimit() throws {
        var t = ViewTree()
        for id in 1...UInt64(ViewTree.maxViews) {
            try t.set(view(id, 0, 0, 1, 1))
        }
        #expect(t.count == 65_536)
        #expect(throws: ViewTreeError.limit) { try t.set(view(70_000, 0, 0, 1, 1)) }
        // Updates are still allowed at the limit; so is an add after a remove.
        try t.set(view(1, 5, 5, 1, 1))
        try t.remove(2)
        try t.set(view(70_000, 0, 0, 1, 1))
        #expect(t.count == 65_536)
        #expect(t.hitTest(pt(0.5, 0.5)) == 70_000)
        #expect(t.hitTest(pt(5.5, 5.5)) == 1)
    }

    @Test func viewRoundTrips() throws {
        let spec = ViewSpec(
            id: 12, parent: 0, frame: Rect(x: 1.5, y: -2, width: 3, height: 4), order: -7,
            flags: [.interactionEnabled, .exclusiveTouch, .multipleTouch], alpha: 0.25,
            shape: .polygon(star10))
        var t = ViewTree()
        try t.set(spec)
        #expect(t.view(12) == spec)
        let child = ViewSpec(id: 13, parent: 12, frame: Rect(x: 0, y: 0, width: 1, height: 1))
        try t.set(child)
        #expect(t.view(13) == child)
        #expect(t.view(13)?.flags == [.interactionEnabled])
        #expect(t.view(14) == nil)
        #expect(t.view(0) == nil)
        #expect(!t.contains(0))
    }

    @Test func valueSemantics() throws {
        var t1 = try tree([view(a, 0, 0, 10, 10)])
        let t2 = t1
        try t1.remove(a)
        try t1.set(view(b, 0, 0, 10, 10))
        #expect(t2.hitTest(pt(1, 1)) == a)
        #expect(t1.hitTest(pt(1, 1)) == b)
    }

    @Test func nonFinitePointsMiss() throws {
        let t = try tree([view(a, -1e6, -1e6, 2e6, 2e6),
                          view(b, 0, 0, 10, 10, shape: .circle(centerX: 0, centerY: 0, radius: 5)),
                          view(c, 0, 0, 10, 10, shape: .polygon(star10))])
        for p in [pt(.nan, 0), pt(0, .nan), pt(.infinity, 0), pt(0, -.infinity)] {
            #expect(t.hitTest(p) == nil)
        }
    }

    @Test func fiftyViewGrid() throws {
        // 5 columns x 10 rows of 20x20 cells (each with a 10x10 child) in a
        // 100x200 container: every point lands on its own cell or child.
        var t = ViewTree()
        try t.set(view(1000, 0, 0, 100, 200))
        for row in 0..<10 {
            for col in 0..<5 {
                let id = UInt64(row * 5 + col + 1)
                try t.set(view(id, parent: 1000, Double(col * 20), Double(row * 20), 20, 20))
                if col % 2 == 0 {
                    try t.set(view(id + 100, parent: id, 0, 0, 10, 10))
                }
            }
        }
        for row in 0..<10 {
            for col in 0..<5 {
                let id = UInt64(row * 5 + col + 1)
                let x = Double(col * 20), y = Double(row * 20)
                #expect(t.hitTest(pt(x + 15, y + 15)) == id)
                #expect(t.hitTest(pt(x + 5, y + 5)) == (col % 2 == 0 ? id + 100 : id))
            }
        }
        #expect(t.hitTest(pt(100, 5)) == nil)
    }
}
