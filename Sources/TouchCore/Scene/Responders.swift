/// The response half: responders, their touch-method policies, and the chain from a hit view
/// up to the application delegate.

/// What a responder's touch method does with a phase.
public enum Handling: String, Sendable, Equatable {
    /// No touch method: UIResponder's default forwards to `next`.
    case forward
    /// Implements the method and does not call super: the chain stops here.
    case handle
    /// Implements the method and calls super: handled here and forwarded.
    case handleAndForward
}

public enum Phase: Int, Sendable, Equatable, CaseIterable {
    case began = 0, moved, stationary, ended, cancelled

    public var name: String {
        switch self {
        case .began: return "began"
        case .moved: return "moved"
        case .stationary: return "stationary"
        case .ended: return "ended"
        case .cancelled: return "cancelled"
        }
    }

    public var method: String {
        switch self {
        case .began: return "touchesBegan"
        case .moved: return "touchesMoved"
        case .stationary: return "touchesStationary"
        case .ended: return "touchesEnded"
        case .cancelled: return "touchesCancelled"
        }
    }

    /// The phases a touch method is called for, in the order a frame lists calls.
    public static let delivered: [Phase] = [.began, .moved, .ended, .cancelled]
}

public struct TouchPolicy: Sendable, Equatable {
    public var began: Handling
    public var moved: Handling
    public var ended: Handling
    public var cancelled: Handling

    public init(_ all: Handling) { began = all; moved = all; ended = all; cancelled = all }
    public init(began: Handling, moved: Handling, ended: Handling, cancelled: Handling) {
        self.began = began; self.moved = moved; self.ended = ended; self.cancelled = cancelled
    }

    public subscript(phase: Phase) -> Handling {
        switch phase {
        case .began: return began
        case .moved: return moved
        case .ended: return ended
        case .cancelled: return cancelled
        case .stationary: return .forward
        }
    }
}

public enum ResponderKind: String, Sendable, Equatable {
    case view, window, controller, scene, application, delegate
}

public struct Responder: Sendable, Equatable {
    public var id: String
    public var kind: ResponderKind
    public var policy: TouchPolicy
    /// The next responder; nil at the end of the chain.
    public var next: ResponderIndex?
    /// The view (or window) this responder is; nil for the others.
    public var view: ViewIndex?

    public init(id: String, kind: ResponderKind, policy: TouchPolicy, next: ResponderIndex?, view: ViewIndex?) {
        self.id = id; self.kind = kind; self.policy = policy; self.next = next; self.view = view
    }
}

/// The responder chain from one responder to the end: the one walk every part uses (the
/// router, `touchd hit-test`). A chain longer than the number of responders has a cycle and
/// stops there.
public struct ResponderChain: Sequence, IteratorProtocol {
    let responders: ChunkedArray<Responder>
    var current: ResponderIndex?
    var hops = 0

    init(responders: ChunkedArray<Responder>, from start: ResponderIndex?) {
        self.responders = responders
        current = start
    }

    public mutating func next() -> ResponderIndex? {
        guard let r = current, hops <= responders.count else { return nil }
        hops += 1
        current = responders[r.rawValue].next
        return r
    }
}
