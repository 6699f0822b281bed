// SPDX-License-Identifier: Apache-2.0
// The hit-test index (per-parent grids in ViewTree) against a brute-force
// reference: UIKit's recursive hitTest over the specs as set, written here
// independently of ViewTree's storage. Plus the index's updates one by one.
import Testing
@testable import NavGuardCore

// MARK: - Reference

/// The views as the host set them, hit-tested by recursion with UIKit's rules.
private struct Reference {
    var specs: [UInt64: ViewSpec] = [:]
    /// Insertion rank: kept by updates, renewed by remove + add.
    var rank: [UInt64: Int] = [:]
    var nextRank = 0

    func isDescendant(_ a: UInt64, of b: UInt64) -> Bool {
        var p = specs[a]?.parent ?? 0
        while p != 0 {
            if p == b { return true }
            p = specs[p]?.parent ?? 0
        }
        return false
    }

    mutating func set(_ v: ViewSpec) {
        if specs[v.id] == nil {
            rank[v.id] = nextRank
            nextRank += 1
        }
        specs[v.id] = v
    }

    mutating func remove(_ id: UInt64) {
        let gone = specs.keys.filter { $0 == id || isDescendant($0, of: id) }
        for other in gone {
            specs[other] = nil
            rank[other] = nil
        }
    }

    /// Children per parent id, front-most first (higher order, then later rank).
    func families() -> [UInt64: [ViewSpec]] {
        var f: [UInt64: [ViewSpec]] = [:]
        for v in specs.values { f[v.parent, default: []].append(v) }
        for k in f.keys {
            f[k]!.sort { a, b in a.order != b.order ? a.order > b.order : rank[a.id]! > rank[b.id]! }
        }
        return f
    }

    /// Window coordinates of a view's top-left corner.
    func origin(_ id: UInt64) -> Point {
        var x = 0.0, y = 0.0
        var c = id
        while c != 0, let v = specs[c] {
            x += v.frame.x
            y += v.frame.y
            c = v.parent
        }
        return Point(x: x, y: y)
    }

    static func pointInside(_ v: ViewSpec, _ x: Double, _ y: Double) -> Bool {
        switch v.shape {
        case .bounds:
            return x >= 0 && x < v.frame.width && y >= 0 && y < v.frame.height
        case let .insets(top, left, bottom, right):
            // CGRectContainsPoint on (left, top, w - left - right, h - top - bottom).
            let w = v.frame.width - left - right
            let h = v.frame.height - top - bottom
            return x >= left && x < left + w && y >= top && y < top + h
        case let .circle(cx, cy, r):
            return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r
        case let .polygon(pts):
            guard pts.count >= 3 else { return false }
            var winding = 0
            for i in pts.indices {
                let a = pts[i == 0 ? pts.count - 1 : i - 1], b = pts[i]
                let isLeft = (b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y)
                if a.y <= y, b.y > y, isLeft > 0 { winding += 1 }
                if a.y > y, b.y <= y, isLeft < 0 { winding -= 1 }
            }
            return winding != 0
        }
    }

    /// `-[UIView hitTest:withEvent:]`, with (x, y) in the parent's coordinates.
    static func hit(_ v: ViewSpec, _ x: Double, _ y: Double, _ fam: [UInt64: [ViewSpec]]) -> UInt64? {
        guard v.flags.contains(.interactionEnabled), !v.flags.contains(.hidden), v.alpha >= 0.01 else { return nil }
        let lx = x - v.frame.x, ly = y - v.frame.y
        guard pointInside(v, lx, ly) else { return nil }
        for c in fam[v.id] ?? [] {
            if let h = hit(c, lx, ly, fam) { return h }
        }
        return v.id
    }

    static func hitTest(_ p: Point, _ fam: [UInt64: [ViewSpec]]) -> UInt64? {
        for c in fam[0] ?? [] {
            if let h = hit(c, p.x, p.y, fam) { return h }
        }
        return nil
    }
}

// MARK: - Random trees

/// Random views and edits on a 0.5 lattice (so points land on edges often),
/// with a few "hub" parents collecting large families (grids).
private struct Generator {
    var rng: SplitMix64
    var nextID: UInt64 = 1
    let hubs: [UInt64] = [1, 2, 3]

    /// The hubs overlap one another and cover most of the probed area, in
    /// front of the other top-level views (orders -3...3, rarely 5).
    static func hub(_ id: UInt64) -> ViewSpec {
        let frames = [Rect(x: 0, y: 0, width: 400, height: 400), Rect(x: 200, y: 0, width: 300, height: 400),
                      Rect(x: 0, y: 250, width: 300, height: 250)]
        return ViewSpec(id: id, frame: frames[Int(id) - 1], order: 4)
    }

    mutating func lattice(_ lo: Double, _ hi: Double) -> Double {
        Double(rng.int(Int(lo * 2)...Int(hi * 2))) / 2
    }

    mutating func shape(_ w: Double, _ h: Double) -> HitShape {
        switch rng.int(0...999) {
        case 0..<500:
            return .bounds
        case 500..<620:  // grown: a touch target larger than the view
            return .insets(top: -lattice(0, 20), left: -lattice(0, 30), bottom: -lattice(0, 20), right: -lattice(0, 30))
        case 620..<680:  // shrunk (sometimes to nothing)
            return .insets(top: lattice(0, 40), left: lattice(0, 40), bottom: lattice(0, 40), right: lattice(0, 40))
        case 680..<683:  // a touch catcher far larger than everything
            return .insets(top: -1e6, left: -1e6, bottom: -1e6, right: -1e6)
        case 683..<685:  // r² overflows: the whole plane
            return .circle(centerX: 0, centerY: 0, radius: 1e200)
        case 685..<820:
            return .circle(centerX: lattice(-10, w + 10), centerY: lattice(-10, h + 10), radius: lattice(0, 60))
        default:
            let n = rng.int(0...8)  // 0...2 points: never hit
            return .polygon((0..<n).map { _ in Point(x: lattice(-20, w + 20), y: lattice(-20, h + 20)) })
        }
    }

    mutating func flagsAndAlpha() -> (ViewFlags, Double) {
        var f: ViewFlags = rng.chance(90) ? [.interactionEnabled] : []
        if rng.chance(8) { f.insert(.hidden) }
        if rng.chance(20) { f.insert(.multipleTouch) }
        let alphas: [Double] = [1, 1, 1, 1, 0.5, 0.01, 0.009, 0]
        return (f, alphas[rng.int(0...alphas.count - 1)])
    }

    mutating func frame(far: Bool) -> Rect {
        let w = rng.chance(5) ? 0 : lattice(0, 120)
        let h = rng.chance(5) ? 0 : lattice(0, 120)
        if far { return Rect(x: lattice(-5000, 5000), y: lattice(-5000, 5000), width: w, height: h) }
        return Rect(x: lattice(-40, 400), y: lattice(-40, 400), width: w, height: h)
    }

    mutating func order() -> Int32 { rng.chance(3) ? 5 : Int32(rng.int(-3...3)) }

    mutating func newView(parent: UInt64) -> ViewSpec {
        let f = frame(far: rng.chance(3))
        let (flags, alpha) = flagsAndAlpha()
        let id = nextID
        nextID += 1
        return ViewSpec(id: id, parent: parent, frame: f, order: order(), flags: flags,
                        alpha: alpha, shape: shape(f.width, f.height))
    }
}

/// Points to probe: random ones, and the corners and edge neighbours of
/// random views (window coordinates), where half-open edges decide.
private func probes(_ ref: Reference, _ rng: inout SplitMix64, random: Int, edges: Int) -> [Point] {
    var pts: [Point] = []
    for _ in 0..<random {
        pts.append(Point(x: Double(rng.int(-200...1000)) / 2, y: Double(rng.int(-200...1000)) / 2))
    }
    let ids = Array(ref.specs.keys).sorted()
    guard !ids.isEmpty else { return pts }
    for _ in 0..<edges {
        let v = ref.specs[ids[rng.int(0...ids.count - 1)]]!
        let o = ref.origin(v.id)
        let xs = [o.x, o.x + v.frame.width, o.x + v.frame.width / 2]
        let ys = [o.y, o.y + v.frame.height, o.y + v.frame.height / 2]
        let d = [-0.5, 0, 0.5][rng.int(0...2)]
        pts.append(Point(x: xs[rng.int(0...2)] + d, y: ys[rng.int(0...2)] - d))
    }
    return pts
}

// MARK: - Tests

@Suite struct HitTestIndexTests {
    /// Random trees edited at random (adds, moves, shape/order/flag changes,
    /// reparenting, subtree removals, families growing past and shrinking
    /// below the grid thresholds): after every batch of edits the index's
    /// invariants hold and every probe hits what the reference hits.
    @Test func indexedHitTestEqualsReference() throws {
        var points = 0, checks = 0, largestFamily = 0, cycles = 0, throughGrid = 0, throughBigList = 0
        for seed: UInt64 in [0x5EED_0010, 0x5EED_0011, 0x5EED_0012] {
            var gen = Generator(rng: SplitMix64(seed: seed))
            var probeRNG = SplitMix64(seed: seed ^ 0xABCD)
            var t = ViewTree()
            var ref = Reference()
            for hub in gen.hubs {
                let v = Generator.hub(hub)
                try t.set(v)
                ref.set(v)
            }
            gen.nextID = 10
            for step in 1...2000 {
                let ids = Array(ref.specs.keys).sorted()
                let pick = ids[gen.rng.int(0...ids.count - 1)]
                let roll = gen.rng.int(0...99)
                // Grow to about 700 views, then churn around that size.
                let adds = ref.specs.count < 700 ? 65 : 30
                if roll < adds {
                    // Add: mostly under a hub (large families), else anywhere.
                    let parent: UInt64 = gen.rng.chance(75) ? gen.hubs[gen.rng.int(0...2)]
                        : (gen.rng.chance(50) ? 0 : pick)
                    let v = gen.newView(parent: parent)
                    try t.set(v)
                    ref.set(v)
                } else if roll < adds + 35 {
                    // Update one thing of an existing view.
                    var v = ref.specs[pick]!
                    // Hubs stay visible top-level views (theirs are the large families).
                    switch gen.hubs.contains(pick) ? -1 : gen.rng.int(0...5) {
                    case -1:
                        v.frame.x += gen.lattice(-20, 20)
                        v.order = Int32(gen.rng.int(3...5))
                    case 0: v.frame = gen.frame(far: gen.rng.chance(5))
                    case 1: v.shape = gen.shape(v.frame.width, v.frame.height)
                    case 2: v.order = gen.order()
                    case 3: (v.flags, v.alpha) = gen.flagsAndAlpha()
                    case 4: v.frame.x += gen.lattice(-20, 20)
                    default:
                        let below = ids.filter { ref.isDescendant($0, of: pick) }
                        if !below.isEmpty, gen.rng.chance(20) {
                            v.parent = below[gen.rng.int(0...below.count - 1)]  // a cycle
                        } else {
                            let candidates = [0] + gen.hubs + [ids[gen.rng.int(0...ids.count - 1)]]
                            v.parent = candidates[gen.rng.int(0...candidates.count - 1)]
                        }
                    }
                    if v.parent == v.id || ref.isDescendant(v.parent, of: v.id) {
                        #expect(throws: ViewTreeError.cycle) { try t.set(v) }
                        cycles += 1
                    } else {
                        try t.set(v)
                        ref.set(v)
                    }
                } else if roll < 99 || gen.rng.chance(50) {
                    if !gen.hubs.contains(pick) {
                        try t.remove(pick)
                        ref.remove(pick)
                    }
                } else {
                    // Empty a hub down to a few children (drops its grid), or
                    // remove a hub with its whole family and bring it back.
                    let hub = gen.hubs[gen.rng.int(0...2)]
                    if gen.rng.chance(50) {
                        let kids = ref.specs.values.filter { $0.parent == hub }.map(\.id).sorted()
                        for k in kids.dropFirst(3) {
                            try t.remove(k)
                            ref.remove(k)
                        }
                    } else {
                        try t.remove(hub)
                        ref.remove(hub)
                        let v = Generator.hub(hub)
                        try t.set(v)
                        ref.set(v)
                    }
                }
                if step % 25 == 0 {
                    let problems = t.indexProblems()
                    #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems.prefix(5))")
                    #expect(t.count == ref.specs.count)
                    let fam = ref.families()
                    largestFamily = max(largestFamily, fam.values.map(\.count).max() ?? 0)
                    for p in probes(ref, &probeRNG, random: 60, edges: 40) {
                        let want = Reference.hitTest(p, fam)
                        // Answered through a grid (a family of 16 or more),
                        // and by a huge child of a family so large that its
                        // grid keeps such children in the big list.
                        if let w = want, let v = ref.specs[w], (fam[v.parent]?.count ?? 0) >= 16 {
                            throughGrid += 1
                            if (fam[v.parent]?.count ?? 0) >= 100, Self.isHuge(v.shape) { throughBigList += 1 }
                        }
                        let got = t.hitTest(p)
                        #expect(got == want, "seed \(seed) step \(step) at (\(p.x), \(p.y))")
                        points += 1
                        if got != want { return }
                    }
                    checks += 1
                }
            }
        }
        // The run did what it says: many points, most answered in large
        // families (grids), some by their large children, refused cycles.
        #expect(points == 24_000)
        #expect(checks == 240)
        #expect(largestFamily >= 200)
        #expect(throughGrid > points / 2)
        #expect(throughBigList > 1000)
        #expect(cycles > 0)
    }

    private static func isHuge(_ s: HitShape) -> Bool {
        switch s {
        case let .insets(top, _, _, _): return top == -1e6
        case let .circle(_, _, r): return r == 1e200
        default: return false
        }
    }

    // Helpers for the deterministic tests: a container (id 1000, 400 x 400)
    // with a 10 x 10 grid of 40 x 40 buttons (ids 1...100, row-major).
    private func buttonGrid() throws -> ViewTree {
        var t = ViewTree()
        try t.set(ViewSpec(id: 1000, frame: Rect(x: 0, y: 0, width: 400, height: 400)))
        for i in 0..<100 {
            try t.set(ViewSpec(id: UInt64(i + 1), parent: 1000,
                               frame: Rect(x: Double(i % 10 * 40), y: Double(i / 10 * 40), width: 40, height: 40)))
        }
        #expect(t.indexProblems().isEmpty)
        return t
    }

    private func pt(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }

    @Test func everyButtonOfAGrid() throws {
        let t = try buttonGrid()
        for i in 0..<100 {
            let x = Double(i % 10 * 40), y = Double(i / 10 * 40)
            #expect(t.hitTest(pt(x, y)) == UInt64(i + 1))
            #expect(t.hitTest(pt(x + 39.999, y + 39.999)) == UInt64(i + 1))
        }
        #expect(t.hitTest(pt(400, 10)) == nil)
        #expect(t.hitTest(pt(-0.001, 10)) == nil)
    }

    @Test func moveAView() throws {
        var t = try buttonGrid()
        // Button 1 moves from the top-left cell over button 100 (inserted
        // after it: order 1 brings 1 in front).
        try t.set(ViewSpec(id: 1, parent: 1000, frame: Rect(x: 370, y: 370, width: 20, height: 20), order: 1))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(10, 10)) == 1000)
        #expect(t.hitTest(pt(375, 375)) == 1)
        #expect(t.hitTest(pt(365, 365)) == 100)
        // Far outside the container: only its part inside the container is
        // reachable, and nothing else changes.
        try t.set(ViewSpec(id: 1, parent: 1000, frame: Rect(x: 395, y: 395, width: 1e5, height: 1e5), order: 1))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(397, 397)) == 1)
        #expect(t.hitTest(pt(500, 500)) == nil)
        #expect(t.hitTest(pt(394, 394)) == 100)
    }

    @Test func changeShape() throws {
        var t = try buttonGrid()
        // Button 45 (row 4, col 4: 160..200 x 160..200) grows its touch area
        // over its neighbours by 30 px: in front of those inserted before it,
        // behind those inserted after it.
        try t.set(ViewSpec(id: 45, parent: 1000, frame: Rect(x: 160, y: 160, width: 40, height: 40),
                           shape: .insets(top: -30, left: -30, bottom: -30, right: -30)))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(135, 180)) == 45)   // over 44 (inserted before)
        #expect(t.hitTest(pt(215, 180)) == 46)   // 46 is in front
        #expect(t.hitTest(pt(129.999, 180)) == 44)
        // A circle reaching over 60 px, in front of everything.
        try t.set(ViewSpec(id: 45, parent: 1000, frame: Rect(x: 160, y: 160, width: 40, height: 40), order: 1,
                           shape: .circle(centerX: 20, centerY: 20, radius: 60)))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(240, 180)) == 45)
        #expect(t.hitTest(pt(180, 120)) == 45)
        #expect(t.hitTest(pt(241, 180)) == 47)
        #expect(t.hitTest(pt(130, 130)) == 34)   // outside the disc's reach
        // A polygon outside its bounds (a triangle over button 1).
        try t.set(ViewSpec(id: 45, parent: 1000, frame: Rect(x: 160, y: 160, width: 40, height: 40), order: 1,
                           shape: .polygon([pt(-160, -160), pt(-120, -160), pt(-160, -120)])))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(5, 5)) == 45)
        #expect(t.hitTest(pt(35, 35)) == 1)
        #expect(t.hitTest(pt(180, 180)) == 1000)
        // Back to its bounds.
        try t.set(ViewSpec(id: 45, parent: 1000, frame: Rect(x: 160, y: 160, width: 40, height: 40)))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(5, 5)) == 1)
        #expect(t.hitTest(pt(180, 180)) == 45)
    }

    @Test func changeOrderAndFlags() throws {
        var t = try buttonGrid()
        // Button 200 covers buttons 1...20 (two rows), inserted last: in front.
        try t.set(ViewSpec(id: 200, parent: 1000, frame: Rect(x: 0, y: 0, width: 400, height: 80)))
        #expect(t.hitTest(pt(50, 50)) == 200)
        try t.set(ViewSpec(id: 200, parent: 1000, frame: Rect(x: 0, y: 0, width: 400, height: 80), order: -1))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(50, 50)) == 12)
        try t.set(ViewSpec(id: 12, parent: 1000, frame: Rect(x: 40, y: 40, width: 40, height: 40), flags: []))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(50, 50)) == 200)
        try t.set(ViewSpec(id: 12, parent: 1000, frame: Rect(x: 40, y: 40, width: 40, height: 40), alpha: 0.009))
        #expect(t.hitTest(pt(50, 50)) == 200)
        try t.set(ViewSpec(id: 12, parent: 1000, frame: Rect(x: 40, y: 40, width: 40, height: 40),
                           flags: [.interactionEnabled, .hidden]))
        #expect(t.hitTest(pt(50, 50)) == 200)
        try t.set(ViewSpec(id: 12, parent: 1000, frame: Rect(x: 40, y: 40, width: 40, height: 40)))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(50, 50)) == 12)
        try t.set(ViewSpec(id: 200, parent: 1000, frame: Rect(x: 0, y: 0, width: 400, height: 80), order: 1))
        #expect(t.hitTest(pt(50, 50)) == 200)
        #expect(t.hitTest(pt(50, 90)) == 22)
        // Hiding the container hides all of it.
        try t.set(ViewSpec(id: 1000, frame: Rect(x: 0, y: 0, width: 400, height: 400), flags: [.interactionEnabled, .hidden]))
        #expect(t.hitTest(pt(50, 90)) == nil)
    }

    @Test func removeASubtree() throws {
        var t = try buttonGrid()
        // Each button of row 0 gets 40 children of 5 x 5 (8 columns, 5 rows):
        // a grid of its own.
        func child(_ b: UInt64, _ k: Int) -> ViewSpec {
            ViewSpec(id: 10_000 + b * 100 + UInt64(k), parent: b,
                     frame: Rect(x: Double(k % 8 * 5), y: Double(k / 8 * 5), width: 5, height: 5))
        }
        for b in 1...10 as ClosedRange<UInt64> {
            for k in 0..<40 { try t.set(child(b, k)) }
        }
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(41, 1)) == 10_200)
        try t.remove(2)
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(41, 1)) == 1000)
        #expect(!t.contains(10_200))
        // Shrink button 3's family below the thresholds (no grid) and back.
        for k in 0..<33 { try t.remove(10_300 + UInt64(k)) }
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(81, 1)) == 3)           // its child 10_300 is gone
        #expect(t.hitTest(pt(80 + 36, 21)) == 10_339)
        for k in 0..<33 { try t.set(child(3, k)) }
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(81, 1)) == 10_300)
        // The container and everything under it.
        try t.remove(1000)
        #expect(t.indexProblems().isEmpty)
        #expect(t.count == 0)
        #expect(t.hitTest(pt(81, 1)) == nil)
        // The index's storage is reused.
        let again = try buttonGrid()
        #expect(again.hitTest(pt(81, 1)) == 3)
    }

    @Test func reparentBetweenIndexedParents() throws {
        var t = try buttonGrid()
        try t.set(ViewSpec(id: 2000, frame: Rect(x: 500, y: 0, width: 400, height: 400)))
        for i in 0..<30 {
            try t.set(ViewSpec(id: 3000 + UInt64(i), parent: 2000,
                               frame: Rect(x: Double(i % 10 * 40), y: Double(i / 10 * 40), width: 40, height: 40)))
        }
        // Button 56 (200..240 x 200..240 in 1000) moves under 2000 keeping its frame.
        try t.set(ViewSpec(id: 56, parent: 2000, frame: Rect(x: 200, y: 200, width: 40, height: 40)))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(210, 210)) == 1000)
        #expect(t.hitTest(pt(710, 210)) == 56)
        #expect(t.isAncestor(2000, of: 56))
        // And to the top level, in front of everything.
        try t.set(ViewSpec(id: 56, frame: Rect(x: 0, y: 0, width: 1000, height: 1000), order: 9))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(210, 210)) == 56)
        #expect(t.hitTest(pt(710, 210)) == 56)
    }

    @Test func largeAndFarChildren() throws {
        var t = try buttonGrid()
        // A backdrop behind the buttons that catches touches anywhere, a
        // button far away, and gaps between the buttons.
        try t.set(ViewSpec(id: 300, parent: 1000, frame: Rect(x: 0, y: 0, width: 10, height: 10), order: -1,
                           shape: .insets(top: -1e6, left: -1e6, bottom: -1e6, right: -1e6)))
        try t.set(ViewSpec(id: 301, parent: 1000, frame: Rect(x: 1e9, y: 1e9, width: 10, height: 10)))
        try t.set(ViewSpec(id: 56, parent: 1000, frame: Rect(x: 205, y: 205, width: 30, height: 30)))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(202, 202)) == 300)
        #expect(t.hitTest(pt(210, 210)) == 56)
        #expect(t.hitTest(pt(10, 10)) == 1)
        #expect(t.hitTest(pt(1e9 + 1, 1e9 + 1)) == nil)   // outside the container
        try t.set(ViewSpec(id: 1000, frame: Rect(x: 0, y: 0, width: 2e9, height: 2e9)))
        #expect(t.hitTest(pt(1e9 + 1, 1e9 + 1)) == 301)
        #expect(t.hitTest(pt(5e5, 5e5)) == 300)
        #expect(t.hitTest(pt(5e8, 5e8)) == 1000)
        // A disc whose r² overflows covers the plane: in front, it takes all.
        try t.set(ViewSpec(id: 302, parent: 1000, frame: Rect(x: 0, y: 0, width: 1, height: 1),
                           shape: .circle(centerX: 0, centerY: 0, radius: 1e200)))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(10, 10)) == 302)
        #expect(t.hitTest(pt(1e9 + 1, 1e9 + 1)) == 302)
        for p in [pt(.nan, 0), pt(0, .nan), pt(.infinity, 0), pt(0, -.infinity)] {
            #expect(t.hitTest(p) == nil)
        }
    }

    @Test func roundingAtACellEdge() throws {
        // 16 unit cells in a row: the grid's columns fall on integers. The
        // last view's touch area starts at 0.2815787603227047 +
        // 2.718421239677295, which rounds to 3.0, yet the point just below
        // 3.0 is inside it (2.9999999999999996 - 0.2815787603227047 rounds
        // to 2.718421239677295): its registration must reach column 2.
        var t = ViewTree()
        for i in 0..<16 {
            try t.set(ViewSpec(id: UInt64(i + 1), frame: Rect(x: Double(i), y: 0, width: 1, height: 1)))
        }
        try t.set(ViewSpec(id: 99, frame: Rect(x: 0.2815787603227047, y: 0, width: 10, height: 1),
                           shape: .insets(top: 0, left: 2.718421239677295, bottom: 0, right: 0)))
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(2.9999999999999996, 0.5)) == 99)
        #expect(t.hitTest(pt(2.9999999999999996.nextDown, 0.5)) == 3)
    }

    @Test func manyTopLevelSiblingsAndCopies() throws {
        // 1,000 top-level views stacked in 4 layers: the root's own grid.
        var t = ViewTree()
        for i in 0..<1000 {
            let layer = i / 250, k = i % 250
            try t.set(ViewSpec(id: UInt64(i + 1), frame: Rect(x: Double(k % 25 * 20), y: Double(k / 25 * 20),
                                                               width: 20, height: 20), order: Int32(-layer)))
        }
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(0, 0)) == 1)            // layer 0 (order 0) in front
        let copy = t
        for i in 0..<250 { try t.remove(UInt64(i + 1)) }
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(0, 0)) == 251)
        #expect(copy.hitTest(pt(0, 0)) == 1)         // the copy kept its index
        #expect(copy.indexProblems().isEmpty)
        for i in 250..<1000 { try t.remove(UInt64(i + 1)) }
        #expect(t.indexProblems().isEmpty)
        #expect(t.hitTest(pt(0, 0)) == nil)
        #expect(copy.hitTest(pt(499, 199)) == 250)
    }
}

@Suite("IDTable")
struct IDTableTests {
    @Test("agrees with a Dictionary through random inserts, updates and removals (backward-shift deletion)")
    func randomAgainstDictionary() {
        var table = IDTable()
        var reference: [UInt64: Int32] = [:]
        var rng = SplitMix64(seed: 0x1D7AB1E)
        for step in 0..<200_000 {
            // Small id ranges collide a lot; multiples of 2^32 share low bits.
            let id: UInt64 = rng.chance(50) ? UInt64(rng.int(1...600)) : UInt64(rng.int(1...300)) << 32
            if rng.chance(40) {
                table[id] = nil
                reference[id] = nil
            } else {
                let v = Int32(step & 0x7FFF_FFFF)
                table[id] = v
                reference[id] = v
            }
            if step % 997 == 0 {
                #expect(table.count == reference.count)
                for probe in 0...620 { #expect(table[UInt64(probe)] == reference[UInt64(probe)]) }
            }
        }
        for (k, v) in reference { #expect(table[k] == v) }
        #expect(table[0] == nil)
        table.removeAll()
        #expect(table.count == 0 && table[1] == nil)
    }
}
