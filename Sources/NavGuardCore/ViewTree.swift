// SPDX-License-Identifier: Apache-2.0
import CNavGuard
// ViewTree.swift — a host-mirrored view tree with UIKit's hit-testing rules.
//
// Pure Swift: no Foundation, no I/O, no global mutable state, deterministic.
//
// Storage: views live in one flat array of plain (trivially copyable) nodes
// indexed by slot; slot 0 is the implicit root window. Siblings form an
// intrusive doubly linked list of slot indices kept sorted front-most first
// (highest `order` first; among equal orders, the later inserted first), so a
// hit test is a single descent through slot indices: no dictionary lookup, no
// recursion, no allocation, no closures, no existentials. The id -> slot
// dictionary is only used by the id-based API (set/remove/contains/view/
// isAncestor). Freed slots are reused LIFO. What the hit path does not read
// (the shape as given, alpha, index bookkeeping) lives in a side array, so a
// node stays small and the tree holds few reference-counted buffers (a copy
// of the tree retains each of them).
//
// Hit-test index: a parent with many children also keeps a uniform grid over
// its children's hit extents (HitTestGrid.swift), so a hit test looks at the
// few children registered in the point's cell instead of every sibling.
// Small families keep the plain linear scan, which is faster for them.
//
// The plane's types are in Geometry.swift, a view's description in
// ViewSpec.swift.

/// A tree of views mirrored from the host, hit-tested with UIKit's rules
/// (`-[UIView hitTest:withEvent:]` / `pointInside:withEvent:`), without
/// transforms or bounds origins.
///
/// A value type: copies are independent (copy-on-write storage).
public struct ViewTree: Sendable {
    /// The most views a tree holds (the implicit root window not counted).
    public static let maxViews = 65_536
    /// The most points a polygon hit shape may have.
    public static let maxPolygonPoints = 1_024

    /// How the hit area is tested; the parameters live in `Node.s0...s3`.
    enum ShapeKind: UInt8 {
        /// Half-open rect: s0 <= x < s2 && s1 <= y < s3 (bounds and insets).
        case rect
        /// Disc: centre (s0, s1), s2 = radius².
        case circle
        /// Winding test on `infos[slot].shape`; closed bounding box (s0, s1)-(s2, s3).
        case polygon
        /// Never hit (polygon with fewer than 3 points).
        case never
    }

    /// One view. Trivially copyable: no references, so reads never retain.
    struct Node {
        var id: UInt64 = 0
        var seq: UInt64 = 0          // insertion sequence: tie-break for `order`
        var parent: Int32 = -1       // slot; 0 = the root window
        var firstChild: Int32 = -1   // front-most child
        var lastChild: Int32 = -1    // back-most child
        var next: Int32 = -1         // next sibling towards the back; next free slot
        var prev: Int32 = -1         // previous sibling towards the front
        var order: Int32 = 0
        var flags: ViewFlags = []
        var hittable = false         // visible, interactive, alpha >= 0.01
        var kind: ShapeKind = .never
        // Registration in the parent's grid: none, its big list, or every
        // cell of `infos[slot].cells`. (Here they fill padding.)
        var reg: Registration = .none
        var outside = false          // its extent reaches past the grid's domain
        var frame = Rect(x: 0, y: 0, width: 0, height: 0)
        var s0: Double = 0
        var s1: Double = 0
        var s2: Double = 0
        var s3: Double = 0
        var childCount: Int32 = 0
        var grid: Int32 = -1         // this view's children's grid in `grids`, or -1
    }

    /// The rest of a view, slot-indexed beside `nodes`.
    struct Info {
        var shape: HitShape = .bounds  // as given (read back by `view(_:)`; polygon points)
        var alpha: Double = 0
        var cells = CellRect()         // valid while the node's `reg` is `.cells`
    }

    /// Slot-indexed; slot 0 is the implicit root window (id 0).
    var nodes: [Node]
    var infos: [Info]
    /// id -> slot, for the id-based API only (an IDTable: no SipHash).
    private var slots: IDTable
    var grids: [Grid]
    var entries: [Entry]

    // Bookkeeping lives in sentinels, so the tree value is just its five
    // buffers (a copy retains each): the root's `next` (it has no siblings)
    // and `seq` (never compared), grid 0 and entry 0 head the free lists.
    /// The last freed slot (freed slots chain through `next`), or -1.
    private var freeSlotHead: Int32 {
        get { nodes[0].next }
        set { nodes[0].next = newValue }
    }
    private var nextSeq: UInt64 {
        get { nodes[0].seq }
        set { nodes[0].seq = newValue }
    }
    var freeGrid: Int32 {
        get { grids[0].nextFree }
        set { grids[0].nextFree = newValue }
    }
    var freeEntry: Int32 {
        get { entries[0].next }
        set { entries[0].next = newValue }
    }

    public init() {
        var root = Node()
        root.parent = -1
        root.seq = 1                 // nextSeq
        nodes = [root]
        infos = [Info()]
        slots = IDTable()
        grids = [Grid()]
        entries = [Entry(slot: -1, next: -1)]
    }

    /// The number of views (the implicit root window not counted).
    public var count: Int { slots.count }

    public func contains(_ id: UInt64) -> Bool {
        slots[id] != nil
    }

    /// The view as last set (with its current parent), or nil.
    public func view(_ id: UInt64) -> ViewSpec? {
        guard let s = slots[id] else { return nil }
        let n = nodes[Int(s)]
        return ViewSpec(
            id: n.id,
            parent: nodes[Int(n.parent)].id,
            frame: n.frame,
            order: n.order,
            flags: n.flags,
            alpha: infos[Int(s)].alpha,
            shape: infos[Int(s)].shape
        )
    }

    /// Every view, in the order they were first set (which breaks ties of
    /// `order`): re-setting them in this order rebuilds the same tree, a
    /// child whose parent comes later being set under the root first.
    public func allViews() -> [ViewSpec] {
        var live: [(seq: UInt64, slot: Int)] = []
        for i in 1..<nodes.count where nodes[i].id != 0 && slots[nodes[i].id] == Int32(i) {
            live.append((nodes[i].seq, i))
        }
        live.sort { $0.seq < $1.seq }
        return live.map { view(nodes[$0.slot].id)! }
    }

    /// Every view, in no particular order, without building a list (the
    /// flight recorder's checkpoints: they allocate nothing).
    public func forEachView(_ body: (ViewSpec) -> Void) {
        var i = 1
        while i < nodes.count {
            if nodes[i].id != 0 && slots[nodes[i].id] == Int32(i), let v = view(nodes[i].id) { body(v) }
            i += 1
        }
    }

    /// A view's flags, or nil: what the host table's view_flags answers,
    /// without building the whole spec (a guard asks on every began).
    @_effects(readonly)
    public func flags(of id: UInt64) -> ViewFlags? {
        guard let s = slots[id] else { return nil }
        return nodes[Int(s)].flags
    }

    /// True when `a` is a strict ancestor of `b` (a view is not its own
    /// ancestor). False when either id is not in the tree (0 included).
    public func isAncestor(_ a: UInt64, of b: UInt64) -> Bool {
        guard let sa = slots[a], let sb = slots[b] else { return false }
        return isAncestorSlot(sa, of: sb)
    }

    // MARK: Mutation

    /// Adds the view, or updates it if its id is already in the tree.
    ///
    /// An update may change anything, including the parent (the subtree moves
    /// with it). A view keeps its insertion rank (the tie-break among siblings
    /// of equal order) across updates and re-parenting; removing and adding it
    /// again makes it the latest.
    ///
    /// Checks, in this order: `.invalidID`, `.invalidFrame`, `.invalidAlpha`,
    /// `.limit` (polygon points) / `.invalidShape`, `.cycle` (parent is the view
    /// itself), `.unknownParent`, `.cycle` (parent is a descendant), `.limit`
    /// (view count, adds only). On error the tree is unchanged.
    public mutating func set(_ spec: ViewSpec) throws(ViewTreeError) {
        guard spec.id != 0 else { throw .invalidID }
        let f = spec.frame
        guard f.x.isFinite, f.y.isFinite, f.width.isFinite, f.height.isFinite,
              f.width >= 0, f.height >= 0
        else { throw .invalidFrame }
        guard spec.alpha >= 0, spec.alpha <= 1 else { throw .invalidAlpha } // NaN fails too
        let geometry = try Self.geometry(frame: f, shape: spec.shape)

        var parentSlot: Int32 = 0
        if spec.parent != 0 {
            if spec.parent == spec.id { throw .cycle }
            guard let p = slots[spec.parent] else { throw .unknownParent }
            parentSlot = p
        }
        let existing = slots[spec.id]
        if let s = existing, isAncestorSlot(s, of: parentSlot) { throw .cycle }
        if existing == nil, slots.count >= Self.maxViews { throw .limit }

        let slot: Int32
        let relink: Bool
        if let s = existing {
            slot = s
            let old = nodes[Int(s)]
            relink = old.parent != parentSlot || old.order != spec.order
            if relink {
                unlink(s)
            } else if nodes[Int(old.parent)].grid >= 0 {
                deregister(s, in: nodes[Int(old.parent)].grid)
            }
        } else {
            if freeSlotHead >= 0 {
                slot = freeSlotHead
                freeSlotHead = nodes[Int(slot)].next
                nodes[Int(slot)].next = -1
            } else {
                slot = Int32(truncatingIfNeeded: nodes.count)
                nodes.append(Node())
                infos.append(Info())
            }
            nodes[Int(slot)].id = spec.id
            nodes[Int(slot)].seq = nextSeq
            nextSeq &+= 1
            slots[spec.id] = slot
            relink = true
        }

        let i = Int(slot)
        nodes[i].order = spec.order
        nodes[i].flags = spec.flags
        nodes[i].frame = f
        infos[i].alpha = spec.alpha
        nodes[i].hittable = spec.flags.contains(.interactionEnabled)
            && !spec.flags.contains(.hidden)
            && spec.alpha >= 0.01
        nodes[i].kind = geometry.kind
        nodes[i].s0 = geometry.s0
        nodes[i].s1 = geometry.s1
        nodes[i].s2 = geometry.s2
        nodes[i].s3 = geometry.s3
        infos[i].shape = spec.shape
        if relink {
            link(slot, under: parentSlot)
        } else if nodes[Int(parentSlot)].grid >= 0 {
            register(slot, in: nodes[Int(parentSlot)].grid)
            relayOutIfStale(parentSlot)
        }
    }

    /// Removes the view and its whole subtree.
    public mutating func remove(_ id: UInt64) throws(ViewTreeError) {
        guard let s = slots[id] else { throw .notFound }
        unlink(s)
        // Post-order walk through the links: no stack, no recursion.
        var cur = s
        while true {
            while nodes[Int(cur)].firstChild >= 0 { cur = nodes[Int(cur)].firstChild }
            if cur == s {
                freeSlot(cur)
                return
            }
            let next = nodes[Int(cur)].next
            let parent = nodes[Int(cur)].parent
            freeSlot(cur)
            if next >= 0 {
                cur = next
            } else {
                // Every child of `parent` is freed now.
                nodes[Int(parent)].firstChild = -1
                nodes[Int(parent)].lastChild = -1
                cur = parent
            }
        }
    }

    // MARK: Hit testing

    /// The front-most view that accepts a touch at `p` (root-window
    /// coordinates), with UIKit's rules, or nil.
    ///
    /// A view is considered only if it is not hidden, has interaction enabled
    /// and alpha >= 0.01, and `p` is inside its hit shape; otherwise neither it
    /// nor its subtree can be hit. Among siblings the front-most eligible one
    /// containing the point wins and the search descends into it; a view none
    /// of whose children is hit is the result.
    ///
    /// Since a view that contains the point always yields a result (itself at
    /// least), this is one descent from the root, no allocation: per level,
    /// O(siblings) for a small family, else O(children registered in the
    /// point's cell + large children) through the parent's grid.
    // It only reads `self` (keep it so): said outright, callers holding the
    // tree in a class (the engine, the C ABI) call it on the tree in place;
    // otherwise the optimizer may copy the tree around each call, a
    // retain/release per buffer (measured: +40 ns per touch began).
    @_effects(readonly)
    public func hitTest(_ p: Point) -> UInt64? {
        var x = p.x
        var y = p.y
        var current: Int32 = 0
        descend: while true {
            let g = nodes[Int(current)].grid
            if g < 0 {
                var c = nodes[Int(current)].firstChild
                while c >= 0 {
                    let n = nodes[Int(c)]
                    if n.hittable {
                        let lx = x - n.frame.x
                        let ly = y - n.frame.y
                        if contains(n, slot: c, lx, ly) {
                            current = c
                            x = lx
                            y = ly
                            continue descend
                        }
                    }
                    c = n.next
                }
                break
            }
            let c = gridHit(g, x, y)
            if c < 0 { break }
            current = c
            x -= nodes[Int(c)].frame.x
            y -= nodes[Int(c)].frame.y
        }
        return current == 0 ? nil : nodes[Int(current)].id
    }

    /// The front-most child of grid `g`'s parent whose shape contains
    /// (x, y) (parent coordinates), or -1: the point's cell list and the big
    /// list, merged front-most first. Out of line so that `hitTest` stays
    /// as small as the plain scan for trees without large families.
    @inline(never)
    private func gridHit(_ g: Int32, _ x: Double, _ y: Double) -> Int32 {
        let gi = Int(g)
        let cx = Self.cell(x, grids[gi].ox, grids[gi].invW, grids[gi].lastX)
        let cy = Self.cell(y, grids[gi].oy, grids[gi].invH, grids[gi].lastY)
        var e = grids[gi].heads[Int(cy &* grids[gi].nx &+ cx)]
        var b = grids[gi].big
        while true {
            let c: Int32
            if e >= 0 {
                let ce = entries[Int(e)].slot
                if b >= 0, isInFront(entries[Int(b)].slot, of: ce) {
                    c = entries[Int(b)].slot
                    b = entries[Int(b)].next
                } else {
                    c = ce
                    e = entries[Int(e)].next
                }
            } else if b >= 0 {
                c = entries[Int(b)].slot
                b = entries[Int(b)].next
            } else {
                return -1
            }
            let n = nodes[Int(c)]
            if contains(n, slot: c, x - n.frame.x, y - n.frame.y) { return c }
        }
    }

    /// `pointInside` for a node, with (x, y) in the view's coordinates.
    @inline(__always)
    private func contains(_ n: Node, slot: Int32, _ x: Double, _ y: Double) -> Bool {
        switch n.kind {
        case .rect:
            return x >= n.s0 && x < n.s2 && y >= n.s1 && y < n.s3
        case .circle:
            let dx = x - n.s0
            let dy = y - n.s1
            return dx * dx + dy * dy <= n.s2
        case .polygon:
            guard x >= n.s0, x <= n.s2, y >= n.s1, y <= n.s3 else { return false }
            guard case .polygon(let points) = infos[Int(slot)].shape else { return false }
            return Self.windingContains(points, x, y)
        case .never:
            return false
        }
    }

    /// Nonzero winding rule (Sunday's crossing-direction count).
    private static func windingContains(_ pts: [Point], _ x: Double, _ y: Double) -> Bool {
        let n = pts.count
        guard n >= 3 else { return false }
        var winding = 0
        var a = pts[n - 1]
        var i = 0
        while i < n {
            let b = pts[i]
            // > 0: the point is left of a->b (in y-up terms); sign flips with direction.
            let side = (b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y)
            if a.y <= y {
                if b.y > y && side > 0 { winding += 1 }
            } else {
                if b.y <= y && side < 0 { winding -= 1 }
            }
            a = b
            i += 1
        }
        return winding != 0
    }

    // MARK: Internals

    private struct Geometry {
        var kind: ShapeKind
        var s0: Double
        var s1: Double
        var s2: Double
        var s3: Double
    }

    private static func geometry(frame f: Rect, shape: HitShape) throws(ViewTreeError) -> Geometry {
        switch shape {
        case .bounds:
            return Geometry(kind: .rect, s0: 0, s1: 0, s2: f.width, s3: f.height)
        case let .insets(top, left, bottom, right):
            guard top.isFinite, left.isFinite, bottom.isFinite, right.isFinite else {
                throw .invalidShape
            }
            // The rect (left, top, width - left - right, height - top - bottom);
            // max = origin + size, exactly as CGRectContainsPoint computes it.
            let w = f.width - left - right
            let h = f.height - top - bottom
            return Geometry(kind: .rect, s0: left, s1: top, s2: left + w, s3: top + h)
        case let .circle(cx, cy, r):
            guard cx.isFinite, cy.isFinite, r.isFinite, r >= 0 else { throw .invalidShape }
            return Geometry(kind: .circle, s0: cx, s1: cy, s2: r * r, s3: 0)
        case let .polygon(points):
            guard points.count <= maxPolygonPoints else { throw .limit }
            var minX = Double.infinity
            var minY = Double.infinity
            var maxX = -Double.infinity
            var maxY = -Double.infinity
            for p in points {
                guard p.x.isFinite, p.y.isFinite else { throw .invalidShape }
                minX = min(minX, p.x)
                minY = min(minY, p.y)
                maxX = max(maxX, p.x)
                maxY = max(maxY, p.y)
            }
            guard points.count >= 3 else {
                return Geometry(kind: .never, s0: 0, s1: 0, s2: 0, s3: 0)
            }
            return Geometry(kind: .polygon, s0: minX, s1: minY, s2: maxX, s3: maxY)
        }
    }

    /// True when `a` is a strict ancestor of `b` (slot 0, the root, is an
    /// ancestor of every view).
    private func isAncestorSlot(_ a: Int32, of b: Int32) -> Bool {
        var c = nodes[Int(b)].parent
        while c >= 0 {
            if c == a { return true }
            c = nodes[Int(c)].parent
        }
        return false
    }

    /// Whether `a` is in front of `b` among siblings: higher order, then later
    /// insertion. Sequence numbers are unique, so this is a strict total order.
    @inline(__always)
    func isInFront(_ a: Int32, of b: Int32) -> Bool {
        let na = nodes[Int(a)]
        let nb = nodes[Int(b)]
        if na.order != nb.order { return na.order > nb.order }
        return na.seq > nb.seq
    }

    /// Inserts an unlinked slot among `parent`'s children and into the
    /// parent's grid (made once the family is large enough).
    private mutating func link(_ s: Int32, under parent: Int32) {
        insertSibling(s, under: parent)
        nodes[Int(parent)].childCount += 1
        let g = nodes[Int(parent)].grid
        if g >= 0 {
            register(s, in: g)
            relayOutIfStale(parent)
        } else if nodes[Int(parent)].childCount >= Self.gridBuildChildren {
            layOut(parent)
        }
    }

    /// Keeps `parent`'s children sorted front-most first. O(1) at either
    /// end, else O(siblings).
    private mutating func insertSibling(_ s: Int32, under parent: Int32) {
        let head = nodes[Int(parent)].firstChild
        nodes[Int(s)].parent = parent
        if head < 0 {
            nodes[Int(s)].prev = -1
            nodes[Int(s)].next = -1
            nodes[Int(parent)].firstChild = s
            nodes[Int(parent)].lastChild = s
            return
        }
        let tail = nodes[Int(parent)].lastChild
        if !isInFront(s, of: tail) {
            // Behind everything: append at the back.
            nodes[Int(s)].prev = tail
            nodes[Int(s)].next = -1
            nodes[Int(tail)].next = s
            nodes[Int(parent)].lastChild = s
            return
        }
        // In front of the tail: insert before the first sibling it is in front of.
        var c = head
        while !isInFront(s, of: c) { c = nodes[Int(c)].next }
        let before = nodes[Int(c)].prev
        nodes[Int(s)].prev = before
        nodes[Int(s)].next = c
        nodes[Int(c)].prev = s
        if before >= 0 {
            nodes[Int(before)].next = s
        } else {
            nodes[Int(parent)].firstChild = s
        }
    }

    /// Detaches a slot (with its subtree) from its parent's child list and grid.
    private mutating func unlink(_ s: Int32) {
        let parent = nodes[Int(s)].parent
        let g = nodes[Int(parent)].grid
        if g >= 0 { deregister(s, in: g) }
        removeSibling(s)
        nodes[Int(parent)].childCount -= 1
        if g >= 0 {
            if nodes[Int(parent)].childCount < Self.gridDropChildren {
                releaseGrid(of: parent)
            } else {
                relayOutIfStale(parent)
            }
        }
    }

    private mutating func removeSibling(_ s: Int32) {
        let n = nodes[Int(s)]
        if n.prev >= 0 {
            nodes[Int(n.prev)].next = n.next
        } else {
            nodes[Int(n.parent)].firstChild = n.next
        }
        if n.next >= 0 {
            nodes[Int(n.next)].prev = n.prev
        } else {
            nodes[Int(n.parent)].lastChild = n.prev
        }
        nodes[Int(s)].parent = -1
        nodes[Int(s)].prev = -1
        nodes[Int(s)].next = -1
    }

    private mutating func freeSlot(_ s: Int32) {
        if nodes[Int(s)].grid >= 0 { releaseGrid(of: s) }
        slots[nodes[Int(s)].id] = nil
        nodes[Int(s)] = Node()
        nodes[Int(s)].next = freeSlotHead
        infos[Int(s)] = Info()
        freeSlotHead = s
    }
}
