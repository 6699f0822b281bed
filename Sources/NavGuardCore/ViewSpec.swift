// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// A view as the host describes it (ng_view), and why the tree refuses one.

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
