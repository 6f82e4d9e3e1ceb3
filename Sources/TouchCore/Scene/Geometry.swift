/// Points and rectangles in screen points, UIKit-style (origin top-left, y down).

public struct Point: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    @inlinable public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    public static let zero = Point(0, 0)
    @inlinable public static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    @inlinable public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    @inlinable public func distance(to p: Point) -> Double {
        let dx = x - p.x, dy = y - p.y
        return (dx * dx + dy * dy).squareRoot()
    }
}

public struct Size: Sendable, Equatable, Hashable {
    public var width: Double
    public var height: Double
    @inlinable public init(_ width: Double, _ height: Double) { self.width = width; self.height = height }
}

/// `top`, `left`, `bottom`, `right`, as in UIEdgeInsets; positive values grow a rectangle.
public struct Outset: Sendable, Equatable, Hashable {
    public var top: Double, left: Double, bottom: Double, right: Double
    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
    public init(all v: Double) { self.init(top: v, left: v, bottom: v, right: v) }
    public static let zero = Outset(all: 0)
    public var isZero: Bool { top == 0 && left == 0 && bottom == 0 && right == 0 }
}

public struct Rect: Sendable, Equatable, Hashable {
    public var origin: Point
    public var size: Size
    @inlinable public init(_ x: Double, _ y: Double, _ w: Double, _ h: Double) {
        origin = Point(x, y)
        size = Size(w, h)
    }
    @inlinable public init(origin: Point, size: Size) { self.origin = origin; self.size = size }
    @inlinable public var minX: Double { origin.x }
    @inlinable public var minY: Double { origin.y }
    @inlinable public var maxX: Double { origin.x + size.width }
    @inlinable public var maxY: Double { origin.y + size.height }
    @inlinable public var midX: Double { origin.x + size.width / 2 }
    @inlinable public var midY: Double { origin.y + size.height / 2 }

    /// CGRectContainsPoint: the minimum edges are inside, the maximum edges are not.
    @inlinable public func contains(_ p: Point) -> Bool {
        p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }

    @inlinable public func grown(by o: Outset) -> Rect {
        Rect(minX - o.left, minY - o.top, size.width + o.left + o.right, size.height + o.top + o.bottom)
    }

    /// Within the ellipse inscribed in this rectangle (boundary included).
    @inlinable public func ellipseContains(_ p: Point) -> Bool {
        let rx = size.width / 2, ry = size.height / 2
        guard rx > 0, ry > 0 else { return false }
        let dx = (p.x - midX) / rx, dy = (p.y - midY) / ry
        return dx * dx + dy * dy <= 1
    }
}
