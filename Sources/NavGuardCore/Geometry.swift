// SPDX-License-Identifier: Apache-2.0
// The plane views live in: rectangles, points and hit shapes.

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
