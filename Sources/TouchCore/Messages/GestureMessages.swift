/// The `gesture` and `scroll` messages (docs/messages.md): what recognizers and scroll views publish.

public struct GestureMessage: Sendable {
    public var seq: Int
    public var sub: Int?
    public var time: Int64
    public var recognizer: String
    public var view: ViewIndex
    public var state: GestureState
    public var touches: [Int]
    public var location: Point
    /// What its kind says besides its state (UIKit's properties of that recognizer).
    public var values: GestureValues
    /// Its touches are the screen reader's (an activation).
    public var synthesized = false

    public var kind: GestureKind { values.kind }
}

/// A `gesture` message's values, typed by the recognizer's kind.
public enum GestureValues: Sendable {
    case tap(taps: Int)
    case longPress
    case pan(translation: Point, velocity: Point)
    case swipe(direction: GestureSettings.Direction?)
    case pinch(scale: Double, velocity: Double)
    case rotation(rotation: Double, velocity: Double)
    case screenEdgePan(translation: Point, velocity: Point, edge: GestureSettings.Edge?)

    public var kind: GestureKind {
        switch self {
        case .tap: return .tap
        case .longPress: return .longPress
        case .pan: return .pan
        case .swipe: return .swipe
        case .pinch: return .pinch
        case .rotation: return .rotation
        case .screenEdgePan: return .screenEdgePan
        }
    }

    /// The values as the message lists them, in order, with their keys (a swipe without a
    /// direction yet, or an edge pan without its edge, leaves that key out).
    public var fields: [(String, GestureValue)] {
        switch self {
        case .tap(let taps): return [("taps", .integer(taps))]
        case .longPress: return []
        case .pan(let t, let v): return [("translation", .point(t)), ("velocity", .point(v))]
        case .swipe(let d): return d.map { [("direction", .string($0.rawValue))] } ?? []
        case .pinch(let s, let v): return [("scale", .number(s)), ("velocity", .number(v))]
        case .rotation(let r, let v): return [("rotation", .number(r)), ("velocity", .number(v))]
        case .screenEdgePan(let t, let v, let e):
            return [("translation", .point(t)), ("velocity", .point(v))] + (e.map { [("edge", GestureValue.string($0.rawValue))] } ?? [])
        }
    }
}

public enum GestureValue: Sendable {
    case number(Double)
    /// A count (taps): printed as 2, not 2.0.
    case integer(Int)
    case point(Point)
    case string(String)
}

public struct ScrollMessage: Sendable {
    public var seq: Int
    public var sub: Int?
    public var time: Int64
    public var view: ViewIndex
    public var offset: Point
    /// UIScrollView.isDragging: a finger moves it.
    public var dragging: Bool
    /// UIScrollView.isDecelerating: it moves on after the finger lifted (false on the frame
    /// where it comes to rest).
    public var decelerating: Bool
}
