/// Typed indices: a view's index cannot be used where a responder's or a recognizer's is
/// meant, and "none" is an optional rather than -1.
public protocol TypedIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    var rawValue: Int { get }
    init(_ rawValue: Int)
}

extension TypedIndex {
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}

/// A view or window in `Scene.views`.
public struct ViewIndex: TypedIndex {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
}

/// A responder in `Scene.responders` (views, windows, controllers, scene, application, delegate).
public struct ResponderIndex: TypedIndex {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
}

/// A gesture recognizer of the engine's arbiter (configured ones and scroll views' pans).
public struct RecognizerIndex: TypedIndex {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
}

/// A device attached to the engine, in the order it came.
public struct DeviceIndex: TypedIndex {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
}
