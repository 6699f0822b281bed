// SPDX-License-Identifier: Apache-2.0
// ViewTree's hit-test index: per parent with many children, a uniform grid
// over the children's hit extents. The tree calls `register`, `deregister`,
// `relayOutIfStale` and `releaseGrid`; `gridHit` answers from it.

extension ViewTree {
    enum Registration: UInt8 { case none, cells, big }

    /// The cells gx0...gx1 x gy0...gy1 a child is registered in.
    struct CellRect: Equatable {
        var gx0: Int32 = 0, gy0: Int32 = 0, gx1: Int32 = 0, gy1: Int32 = 0
    }

    /// A parent's hit-test index: a uniform grid over a domain of its
    /// children's coordinate space (points outside it fall in the edge cells).
    ///
    /// Invariants (checked by `indexProblems()`):
    /// - a view has a grid only while it has at least `gridDropChildren`
    ///   children, and always once it has `gridBuildChildren`;
    /// - every child that can be hit (hittable, shape not empty) is
    ///   registered exactly once: in `big` when its cell rect has more than
    ///   `bigCells` cells, else in every cell of its cell rect; other children
    ///   are not registered;
    /// - a child's cell rect holds the cell of every point its shape can
    ///   contain: it is the cells of its hit extent (padded outward beyond
    ///   rounding, clamped to the grid), and `cell` is monotonic;
    /// - every cell list and `big` are sorted front-most first, like the
    ///   sibling list, so the first match is UIKit's answer.
    /// Only the coarse choice of candidates comes from the grid: the shape
    /// test is the same as the linear scan's, so results are identical.
    struct Grid {
        var ox = 0.0, oy = 0.0       // domain origin
        var ex = 0.0, ey = 0.0       // domain far corner
        var invW = 0.0, invH = 0.0   // cells per unit of length
        var lastX = 0.0, lastY = 0.0 // nx - 1, ny - 1
        var nx: Int32 = 1, ny: Int32 = 1
        var heads: [Int32] = []      // per cell (row-major): first entry or -1
        var big: Int32 = -1          // first entry of the large children
        var indexed: Int32 = 0       // registered children
        var outside: Int32 = 0       // registered children reaching past the domain
        var builtFor: Int32 = 0      // `indexed` when the cells were laid out
        var nextFree: Int32 = -1     // while released: the next released grid
    }

    /// A link of a cell list or a big list; free entries chain through `next`.
    struct Entry {
        var slot: Int32
        var next: Int32
    }

    /// A parent gets a grid at this many children (measured: below about
    /// 16 the linear scan is as fast)...
    static let gridBuildChildren: Int32 = 16
    /// ...and loses it below this many (hysteresis: no rebuild churn).
    static let gridDropChildren: Int32 = 8
    /// A child covering more cells than this goes to the grid's big list.
    static let bigCells = 64
    /// The cell column (or row) of coordinate `v`: monotonic in `v`, clamped
    /// to the grid (NaN gives 0), so a box's cells hold its points' cells.
    @inline(__always)
    static func cell(_ v: Double, _ origin: Double, _ inv: Double, _ last: Double) -> Int32 {
        let f = (v - origin) * inv
        if !(f > 0) { return 0 }
        return Int32(f < last ? f : last)
    }

    /// A box in the parent's coordinates holding every point the view's shape
    /// can contain, or nil when it can never be hit (not hittable, empty).
    /// Padded outward by far more than the rounding of the shape tests
    /// (`x - frame.x`, the disc's squares), so it never misses a hit.
    private func hitExtent(_ n: Node) -> (x0: Double, y0: Double, x1: Double, y1: Double)? {
        guard n.hittable else { return nil }
        var a0 = n.s0, b0 = n.s1, a1 = n.s2, b1 = n.s3
        switch n.kind {
        case .rect:
            guard n.s0 < n.s2, n.s1 < n.s3 else { return nil }
        case .circle:
            // An overflowed r² (inside: every finite distance) gives r = inf.
            let r = n.s2.squareRoot()
            a0 = n.s0 - r
            b0 = n.s1 - r
            a1 = n.s0 + r
            b1 = n.s1 + r
        case .polygon:
            break
        case .never:
            return nil
        }
        let fx = n.frame.x, fy = n.frame.y
        // 1e-150: squares of tiny distances underflow to 0 (inside the disc).
        let px = (abs(fx) + abs(a0) + abs(a1)) * 0x1p-40 + 1e-150
        let py = (abs(fy) + abs(b0) + abs(b1)) * 0x1p-40 + 1e-150
        // A sum overflowing both ways gives NaN: widen it to the whole axis.
        let x0 = fx + a0 - px, y0 = fy + b0 - py, x1 = fx + a1 + px, y1 = fy + b1 + py
        return (x0.isNaN ? -.infinity : x0, y0.isNaN ? -.infinity : y0,
                x1.isNaN ? .infinity : x1, y1.isNaN ? .infinity : y1)
    }

    private mutating func newEntry(_ slot: Int32) -> Int32 {
        if freeEntry >= 0 {
            let e = freeEntry
            freeEntry = entries[Int(e)].next
            entries[Int(e)] = Entry(slot: slot, next: -1)
            return e
        }
        entries.append(Entry(slot: slot, next: -1))
        return Int32(truncatingIfNeeded: entries.count - 1)
    }

    /// Inserts `slot` into the list starting at `head`, sorted front-most
    /// first; returns the new head. O(1) for a view in front of the list.
    private mutating func insertSorted(_ slot: Int32, head: Int32) -> Int32 {
        let e = newEntry(slot)
        if head < 0 || isInFront(slot, of: entries[Int(head)].slot) {
            entries[Int(e)].next = head
            return e
        }
        var prev = head
        while true {
            let next = entries[Int(prev)].next
            if next < 0 || isInFront(slot, of: entries[Int(next)].slot) { break }
            prev = next
        }
        entries[Int(e)].next = entries[Int(prev)].next
        entries[Int(prev)].next = e
        return head
    }

    /// Removes `slot` from the list starting at `head`; returns the new head.
    private mutating func removeFromList(_ slot: Int32, head: Int32) -> Int32 {
        var prev: Int32 = -1
        var e = head
        while e >= 0, entries[Int(e)].slot != slot {
            prev = e
            e = entries[Int(e)].next
        }
        precondition(e >= 0, "ViewTree: hit-test index lost a view")
        let next = entries[Int(e)].next
        entries[Int(e)].next = freeEntry
        freeEntry = e
        if prev < 0 { return next }
        entries[Int(prev)].next = next
        return head
    }

    private mutating func freeList(_ head: Int32) {
        var e = head
        while e >= 0 {
            let next = entries[Int(e)].next
            entries[Int(e)].next = freeEntry
            freeEntry = e
            e = next
        }
    }

    /// Registers a child (with its current fields) in its parent's grid `g`.
    mutating func register(_ c: Int32, in g: Int32) {
        let gi = Int(g)
        guard let x = hitExtent(nodes[Int(c)]) else { return }
        // Scalars only: a copy of the Grid would share `heads` and make the
        // writes below copy it.
        let ox = grids[gi].ox, oy = grids[gi].oy, nx = grids[gi].nx
        let gx0 = Self.cell(x.x0, ox, grids[gi].invW, grids[gi].lastX)
        let gx1 = Self.cell(x.x1, ox, grids[gi].invW, grids[gi].lastX)
        let gy0 = Self.cell(x.y0, oy, grids[gi].invH, grids[gi].lastY)
        let gy1 = Self.cell(x.y1, oy, grids[gi].invH, grids[gi].lastY)
        // Children with a non-finite extent cannot be brought inside by a new
        // layout, so they do not count towards one.
        let out = x.x0.isFinite && x.x1.isFinite && x.y0.isFinite && x.y1.isFinite
            && (x.x0 < ox || x.x1 > grids[gi].ex || x.y0 < oy || x.y1 > grids[gi].ey)
        grids[gi].indexed += 1
        if out { grids[gi].outside += 1 }
        nodes[Int(c)].outside = out
        if Int(gx1 - gx0 + 1) * Int(gy1 - gy0 + 1) > Self.bigCells {
            nodes[Int(c)].reg = .big
            grids[gi].big = insertSorted(c, head: grids[gi].big)
            return
        }
        nodes[Int(c)].reg = .cells
        infos[Int(c)].cells = CellRect(gx0: gx0, gy0: gy0, gx1: gx1, gy1: gy1)
        var cy = gy0
        while cy <= gy1 {
            var cx = gx0
            while cx <= gx1 {
                let k = Int(cy * nx + cx)
                grids[gi].heads[k] = insertSorted(c, head: grids[gi].heads[k])
                cx += 1
            }
            cy += 1
        }
    }

    mutating func deregister(_ c: Int32, in g: Int32) {
        let gi = Int(g)
        let n = nodes[Int(c)]
        switch n.reg {
        case .none:
            return
        case .big:
            grids[gi].big = removeFromList(c, head: grids[gi].big)
        case .cells:
            let nx = grids[gi].nx
            let r = infos[Int(c)].cells
            var cy = r.gy0
            while cy <= r.gy1 {
                var cx = r.gx0
                while cx <= r.gx1 {
                    let k = Int(cy * nx + cx)
                    grids[gi].heads[k] = removeFromList(c, head: grids[gi].heads[k])
                    cx += 1
                }
                cy += 1
            }
        }
        grids[gi].indexed -= 1
        if n.outside { grids[gi].outside -= 1 }
        nodes[Int(c)].reg = .none
        nodes[Int(c)].outside = false
    }

    /// Lays the grid out again when the family outgrew it, shrank well
    /// below it, or moved off its domain: each takes changes in proportion
    /// to the family, so the O(children) layout is amortized.
    mutating func relayOutIfStale(_ p: Int32) {
        let g = Int(nodes[Int(p)].grid)
        let indexed = grids[g].indexed, built = grids[g].builtFor
        if indexed > 2 * built + 8 || 4 * indexed + 8 < built || 2 * grids[g].outside > indexed + 8 {
            layOut(p)
        }
    }

    /// (Re)builds `p`'s grid from its children: about one cell per child over
    /// the box of their extents (without the outer 1/32 on each side when a few
    /// far or huge children would stretch it more than 4 times).
    mutating func layOut(_ p: Int32) {
        var g = nodes[Int(p)].grid
        if g >= 0 {
            clearGrid(g, parent: p)
        } else if freeGrid >= 0 {
            g = freeGrid
            freeGrid = grids[Int(g)].nextFree
        } else {
            g = Int32(truncatingIfNeeded: grids.count)
            grids.append(Grid())
        }
        nodes[Int(p)].grid = g

        var lox: [Double] = [], hix: [Double] = [], loy: [Double] = [], hiy: [Double] = []
        var c = nodes[Int(p)].firstChild
        while c >= 0 {
            if let x = hitExtent(nodes[Int(c)]) {
                lox.append(x.x0)
                hix.append(x.x1)
                loy.append(x.y0)
                hiy.append(x.y1)
            }
            c = nodes[Int(c)].next
        }
        let (x0, x1) = Self.span(&lox, &hix)
        let (y0, y1) = Self.span(&loy, &hiy)
        let k = Double(max(lox.count, 1))
        let w = x1 - x0, h = y1 - y0
        let wOK = w > 0 && w.isFinite, hOK = h > 0 && h.isFinite
        var nx = 1.0, ny = 1.0
        if wOK && hOK {
            nx = min(max((k * w / h).squareRoot().rounded(), 1), 1024)
            ny = min(max((k / nx).rounded(.up), 1), 1024)
        } else if wOK {
            nx = min(k, 1024)
        } else if hOK {
            ny = min(k, 1024)
        }
        var grid = Grid()
        grid.ox = x0
        grid.oy = y0
        grid.ex = x1
        grid.ey = y1
        grid.nx = Int32(nx)
        grid.ny = Int32(ny)
        grid.lastX = nx - 1
        grid.lastY = ny - 1
        grid.invW = wOK ? nx / w : 0
        grid.invH = hOK ? ny / h : 0
        grid.heads = Array(repeating: -1, count: Int(nx * ny))
        grid.builtFor = Int32(lox.count)
        grids[Int(g)] = grid
        // Back to front: each child goes to the head of its lists.
        c = nodes[Int(p)].lastChild
        while c >= 0 {
            register(c, in: g)
            c = nodes[Int(c)].prev
        }
    }

    /// The domain along one axis from the children's extents along it.
    private static func span(_ lo: inout [Double], _ hi: inout [Double]) -> (Double, Double) {
        var a = Double.infinity, b = -Double.infinity
        for v in lo where v.isFinite { a = min(a, v) }
        for v in hi where v.isFinite { b = max(b, v) }
        guard a <= b else { return (0, 0) }
        let n = lo.count
        guard n >= 32 else { return (a, b) }
        lo.sort()
        hi.sort()
        let qa = lo[n / 32], qb = hi[n - 1 - n / 32]
        if qa.isFinite, qb.isFinite, qa < qb, b - a > 4 * (qb - qa) { return (qa, qb) }
        return (a, b)
    }

    /// Empties grid `g` of `parent`'s children (the cells stay laid out).
    private mutating func clearGrid(_ g: Int32, parent: Int32) {
        let gi = Int(g)
        for k in grids[gi].heads.indices {
            freeList(grids[gi].heads[k])
            grids[gi].heads[k] = -1
        }
        freeList(grids[gi].big)
        grids[gi].big = -1
        grids[gi].indexed = 0
        grids[gi].outside = 0
        var c = nodes[Int(parent)].firstChild
        while c >= 0 {
            nodes[Int(c)].reg = .none
            nodes[Int(c)].outside = false
            c = nodes[Int(c)].next
        }
    }

    mutating func releaseGrid(of p: Int32) {
        let g = nodes[Int(p)].grid
        clearGrid(g, parent: p)
        grids[Int(g)] = Grid()
        grids[Int(g)].nextFree = freeGrid
        freeGrid = g
        nodes[Int(p)].grid = -1
    }

    /// What breaks the index's invariants (empty when none): for tests.
    func indexProblems() -> [String] {
        var problems: [String] = []
        var liveEntries = 0
        for s in nodes.indices where s == 0 || nodes[s].id != 0 {
            let p = nodes[s]
            var kids: [Int32] = []
            var c = p.firstChild
            while c >= 0 {
                kids.append(c)
                c = nodes[Int(c)].next
            }
            if kids.count != Int(p.childCount) { problems.append("slot \(s): childCount \(p.childCount), \(kids.count) children") }
            if p.grid < 0 {
                if p.childCount >= Self.gridBuildChildren { problems.append("slot \(s): \(p.childCount) children, no grid") }
                for k in kids where nodes[Int(k)].reg != .none { problems.append("slot \(k): registered without a grid") }
                continue
            }
            if p.childCount < Self.gridDropChildren { problems.append("slot \(s): grid with \(p.childCount) children") }
            let g = grids[Int(p.grid)]
            var expected: [[Int32]] = Array(repeating: [], count: g.heads.count)
            var expectedBig: [Int32] = []
            var indexed: Int32 = 0, outside: Int32 = 0
            for k in kids {  // front-most first
                let n = nodes[Int(k)]
                guard let x = hitExtent(n) else {
                    if n.reg != .none { problems.append("slot \(k): registered, cannot be hit") }
                    continue
                }
                indexed += 1
                if n.outside { outside += 1 }
                let gx0 = Self.cell(x.x0, g.ox, g.invW, g.lastX), gx1 = Self.cell(x.x1, g.ox, g.invW, g.lastX)
                let gy0 = Self.cell(x.y0, g.oy, g.invH, g.lastY), gy1 = Self.cell(x.y1, g.oy, g.invH, g.lastY)
                if Int(gx1 - gx0 + 1) * Int(gy1 - gy0 + 1) > Self.bigCells {
                    if n.reg != .big { problems.append("slot \(k): large, not in the big list") }
                    expectedBig.append(k)
                } else {
                    let want = CellRect(gx0: gx0, gy0: gy0, gx1: gx1, gy1: gy1)
                    if n.reg != .cells || infos[Int(k)].cells != want {
                        problems.append("slot \(k): \(n.reg) \(infos[Int(k)].cells), expected cells \(want)")
                    }
                    for cy in gy0...gy1 { for cx in gx0...gx1 { expected[Int(cy * g.nx + cx)].append(k) } }
                }
            }
            if indexed != g.indexed || outside != g.outside {
                problems.append("slot \(s): counts \(g.indexed)/\(g.outside), expected \(indexed)/\(outside)")
            }
            func list(_ head: Int32) -> [Int32] {
                var out: [Int32] = []
                var e = head
                while e >= 0, out.count <= entries.count {
                    out.append(entries[Int(e)].slot)
                    e = entries[Int(e)].next
                }
                return out
            }
            for k in g.heads.indices {
                let l = list(g.heads[k])
                liveEntries += l.count
                if l != expected[k] { problems.append("slot \(s) cell \(k): \(l), expected \(expected[k])") }
            }
            let bl = list(g.big)
            liveEntries += bl.count
            if bl != expectedBig { problems.append("slot \(s) big: \(bl), expected \(expectedBig)") }
        }
        var free = 0
        var e = freeEntry
        while e >= 0, free <= entries.count {
            free += 1
            e = entries[Int(e)].next
        }
        if liveEntries + free + 1 != entries.count {
            problems.append("entries: \(liveEntries) live + \(free) free + 1 != \(entries.count)")
        }
        return problems
    }
}
