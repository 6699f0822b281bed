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
// its children's hit extents (see `Grid`), so a hit test looks at the few
// children registered in the point's cell instead of every sibling. Small
// families keep the plain linear scan, which is faster for them.

// MARK: - Geometry

/// A rectangle; `x`/`y` is the top-left corner (y grows downwards).
public struct Rect: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

public struct Point: Equatable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// The area of a view that accepts touches (`pointInside`), in the view's own
/// coordinates (origin = top-left corner of its bounds).
public enum HitShape: Equatable, Sendable {
    /// The bounds: `0 <= x < width && 0 <= y < height`.
    case bounds
    /// The bounds inset with UIEdgeInsets semantics: positive values shrink,
    /// negative values grow. The hit rect is
    /// `(left, top, width - left - right, height - top - bottom)`, half-open
    /// like `.bounds`. Insets larger than the view leave an empty rect (never hit).
    case insets(top: Double, left: Double, bottom: Double, right: Double)
    /// A disc: hit when `dx² + dy² <= radius²` (the circle itself is inside).
    case circle(centerX: Double, centerY: Double, radius: Double)
    /// A closed polygon (the last point connects back to the first), tested with
    /// the nonzero winding rule, so non-convex and self-intersecting outlines
    /// (a pentagram drawn with 5 points) work. Fewer than 3 points: never hit.
    case polygon([Point])
}

// MARK: - View description

public struct ViewFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32

    /// The NG_VIEWF_* bits of these flags (zero is UIKit's default: enabled,
    /// shown, single touch, not exclusive). The one place the mapping lives.
    public var cValue: UInt32 {
        var r: UInt32 = 0
        if !contains(.interactionEnabled) { r |= UInt32(NG_VIEWF_DISABLED) }
        if contains(.hidden) { r |= UInt32(NG_VIEWF_HIDDEN) }
        if contains(.multipleTouch) { r |= UInt32(NG_VIEWF_MULTI_TOUCH) }
        if contains(.exclusiveTouch) { r |= UInt32(NG_VIEWF_EXCLUSIVE_TOUCH) }
        return r
    }

    /// Flags from NG_VIEWF_* bits; nil when unknown bits are set.
    public init?(cValue v: UInt32) {
        let known = UInt32(NG_VIEWF_DISABLED | NG_VIEWF_HIDDEN | NG_VIEWF_MULTI_TOUCH | NG_VIEWF_EXCLUSIVE_TOUCH)
        guard v & ~known == 0 else { return nil }
        var f: ViewFlags = []
        if v & UInt32(NG_VIEWF_DISABLED) == 0 { f.insert(.interactionEnabled) }
        if v & UInt32(NG_VIEWF_HIDDEN) != 0 { f.insert(.hidden) }
        if v & UInt32(NG_VIEWF_MULTI_TOUCH) != 0 { f.insert(.multipleTouch) }
        if v & UInt32(NG_VIEWF_EXCLUSIVE_TOUCH) != 0 { f.insert(.exclusiveTouch) }
        self = f
    }

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// UIKit's `userInteractionEnabled`. Without it the view and its subtree
    /// are skipped by hit testing.
    public static let interactionEnabled = ViewFlags(rawValue: 1 << 0)
    /// UIKit's `hidden`: the view and its subtree are skipped by hit testing.
    public static let hidden = ViewFlags(rawValue: 1 << 1)
    /// UIKit's `multipleTouchEnabled` (stored; not used by hit testing).
    public static let multipleTouch = ViewFlags(rawValue: 1 << 2)
    /// UIKit's `exclusiveTouch` (stored; not used by hit testing).
    public static let exclusiveTouch = ViewFlags(rawValue: 1 << 3)
}

public struct ViewSpec: Equatable, Sendable {
    /// Non-zero, unique within a tree.
    public var id: UInt64
    /// The parent view's id; 0 = top level (under the implicit root window).
    public var parent: UInt64
    /// In the parent's coordinates. Finite, with non-negative size.
    public var frame: Rect
    /// Z-order among siblings: higher = more in front. Ties: the view inserted
    /// later (first `set` of its id) is in front.
    public var order: Int32
    public var flags: ViewFlags
    /// 0...1. Below 0.01 the view and its subtree are skipped by hit testing.
    public var alpha: Double
    public var shape: HitShape

    public init(
        id: UInt64,
        parent: UInt64 = 0,
        frame: Rect,
        order: Int32 = 0,
        flags: ViewFlags = [.interactionEnabled],
        alpha: Double = 1,
        shape: HitShape = .bounds
    ) {
        self.id = id
        self.parent = parent
        self.frame = frame
        self.order = order
        self.flags = flags
        self.alpha = alpha
        self.shape = shape
    }
}

public enum ViewTreeError: Error, Equatable, Sendable {
    /// The id is 0.
    case invalidID
    /// `parent` is neither 0 nor the id of a view in the tree.
    case unknownParent
    /// The parent is the view itself or one of its descendants.
    case cycle
    /// A frame value is NaN or infinite, or the width or height is negative.
    case invalidFrame
    /// The alpha is NaN or outside 0...1.
    case invalidAlpha
    /// A shape value is NaN or infinite, or a circle's radius is negative.
    case invalidShape
    /// `remove` of an id that is not in the tree.
    case notFound
    /// Adding a view beyond `ViewTree.maxViews`, or a polygon with more than
    /// `ViewTree.maxPolygonPoints` points.
    case limit
}

// MARK: - Tree

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

    /// Slot-indexed; slot 0 is the implicit root window (id 0).
    private var nodes: [Node]
    private var infos: [Info]
    /// id -> slot, for the id-based API only (an IDTable: no SipHash).
    private var slots: IDTable
    private var grids: [Grid]
    private var entries: [Entry]

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
    private var freeGrid: Int32 {
        get { grids[0].nextFree }
        set { grids[0].nextFree = newValue }
    }
    private var freeEntry: Int32 {
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
    private func isInFront(_ a: Int32, of b: Int32) -> Bool {
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

    // MARK: Hit-test index

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
    private mutating func register(_ c: Int32, in g: Int32) {
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

    private mutating func deregister(_ c: Int32, in g: Int32) {
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
    private mutating func relayOutIfStale(_ p: Int32) {
        let g = Int(nodes[Int(p)].grid)
        let indexed = grids[g].indexed, built = grids[g].builtFor
        if indexed > 2 * built + 8 || 4 * indexed + 8 < built || 2 * grids[g].outside > indexed + 8 {
            layOut(p)
        }
    }

    /// (Re)builds `p`'s grid from its children: about one cell per child over
    /// the box of their extents (without the outer 1/32 on each side when a few
    /// far or huge children would stretch it more than 4 times).
    private mutating func layOut(_ p: Int32) {
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

    private mutating func releaseGrid(of p: Int32) {
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
