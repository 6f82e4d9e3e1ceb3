/// The view tree, responders and hit-testing: UIKit's delivery (down) and response (up) halves.
/// Built once from the config; immutable but for scroll offsets (bounds origins).

public enum HitMode: String, Sendable, Equatable, CaseIterable {
    case `default`
    /// The view and its subtree never hit (a transparent overlay).
    case none
    /// Never returns itself; its subviews still hit.
    case passthrough
    /// Returns itself when the point is inside and asks no subview (intercept).
    case `self`
    /// Asks its subviews even when the point is outside its own bounds.
    case outsideChildren
}

public enum Shape: String, Sendable, Equatable {
    case rect
    case ellipse
}

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

public enum ControlKind: String, Sendable, Equatable {
    case button
}

public enum ResponderKind: String, Sendable, Equatable {
    case view, window, controller, scene, application, delegate
}

public struct Responder: Sendable {
    public var id: String
    public var kind: ResponderKind
    public var policy: TouchPolicy
    /// Index of the next responder, -1 at the end of the chain.
    public var next: Int
    /// The view (or window) this responder is, -1 for the others.
    public var view: Int
}

/// A view or a window (a window is a view at the top of its tree, as UIWindow is a UIView).
public struct ViewNode: Sendable {
    public var id: String
    public var frame: Rect
    public var boundsOrigin: Point = .zero
    public var hidden = false
    public var userInteractionEnabled = true
    public var alpha: Double = 1
    public var hitOutset: Outset = .zero
    public var shape: Shape = .rect
    public var hitMode: HitMode = .default
    public var control: ControlKind?
    public var enabled = true
    public var multipleTouch = false
    public var exclusiveTouch = false
    public var isWindow = false
    public var level: Double = 0
    public var gestures: [GestureSpec] = []
    public var scroll: ScrollSpec?

    /// Tree links, indices into `Scene.views` (-1 for none).
    public var superview: Int = -1
    public var subviews: [Int] = []
    public var window: Int = -1
    /// This node's own responder, and its view controller's when it is a controller's root view.
    public var responder: Int = -1
    public var controller: Int = -1

    public init(id: String, frame: Rect) {
        self.id = id
        self.frame = frame
    }

    /// The rectangle pointInside accepts, in the view's own coordinates.
    public var hitRect: Rect {
        Rect(origin: boundsOrigin, size: frame.size).grown(by: hitOutset)
    }

    public var bounds: Rect { Rect(origin: boundsOrigin, size: frame.size) }
}

public struct GestureSpec: Sendable, Equatable {
    public var id: String
    public var kind: String
    /// Every key as given (validated by kind), for the recognizers.
    public var numbers: [String: Double] = [:]
    public var flags: [String: Bool] = [:]
    public var lists: [String: [String]] = [:]
    public init(id: String, kind: String) { self.id = id; self.kind = kind }
}

public struct ScrollSpec: Sendable, Equatable {
    public var contentSize: Size
    public var delaysContentTouches = true
    public var canCancelContentTouches = true
    public init(contentSize: Size) { self.contentSize = contentSize }
}

/// Why hit-testing refused a view without asking pointInside.
public enum HitGate: String, Sendable, Equatable {
    case hidden
    case userInteractionDisabled
    case alpha
    /// A control with `enabled: false`.
    case disabled
    /// `hitTest: "none"`.
    case none
}

public struct HitStep: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case hitTest
        case gate(HitGate)
        case pointInside(Bool)
        /// The view returned: a node index, or -1 for nil.
        case result(Int)
    }
    public var view: Int
    public var kind: Kind
    public init(view: Int, kind: Kind) { self.view = view; self.kind = kind }
}

public struct HitResult: Sendable, Equatable {
    /// Window node index.
    public var window: Int
    /// Hit node index (may be the window itself).
    public var view: Int
    /// The point in the window's coordinates.
    public var location: Point
}

public struct Scene: Sendable {
    public var views: [ViewNode]
    public var responders: [Responder]
    /// Window node indices, topmost first (higher level first, then later in the config first).
    public var windowOrder: [Int]
    public var viewIndex: [String: Int]
    public var responderIndex: [String: Int]
    /// window point + offset[v] = point in v's coordinates.
    public private(set) var offsets: [Point]

    public init(views: [ViewNode], responders: [Responder], windowOrder: [Int]) {
        self.views = views
        self.responders = responders
        self.windowOrder = windowOrder
        var vi: [String: Int] = [:]
        for (i, v) in views.enumerated() { vi[v.id] = i }
        viewIndex = vi
        var ri: [String: Int] = [:]
        for (i, r) in responders.enumerated() { ri[r.id] = i }
        responderIndex = ri
        offsets = []
        recomputeOffsets()
    }

    public static let empty = Scene(views: [], responders: [], windowOrder: [])

    mutating func recomputeOffsets() {
        offsets = Array(repeating: .zero, count: views.count)
        // Parents come before children in `views` (built depth-first), so one pass suffices.
        for i in views.indices {
            let v = views[i]
            if v.isWindow { offsets[i] = v.boundsOrigin; continue }
            offsets[i] = offsets[v.superview] - v.frame.origin + v.boundsOrigin
        }
    }

    /// Changes a view's bounds origin (scrolling) and the conversions that depend on it.
    public mutating func setBoundsOrigin(_ p: Point, of view: Int) {
        views[view].boundsOrigin = p
        recomputeOffsets()
    }

    /// Converts a point in the window's coordinates into the view's.
    
    public func convert(windowPoint p: Point, to view: Int) -> Point {
        p + offsets[view]
    }

    // MARK: Hit-testing

    /// One hit-test at a screen point. Windows are asked topmost first; `onlyWindow` restricts
    /// the test to one window. With `tracing`, every step is appended to `trace` in call order.
    public func hitTest(screen p: Point, onlyWindow: Int? = nil, tracing: Bool, trace: inout [HitStep]) -> HitResult? {
        for w in windowOrder {
            if let only = onlyWindow, only != w { continue }
            let local = p - views[w].frame.origin
            let r = hit(w, local, tracing, &trace)
            if r >= 0 { return HitResult(window: w, view: r, location: local) }
        }
        return nil
    }

    
    public func pointInside(_ v: Int, _ p: Point) -> Bool {
        let node = views[v]
        let r = node.hitRect
        return node.shape == .ellipse ? r.ellipseContains(p) : r.contains(p)
    }

    func gate(of node: ViewNode) -> HitGate? {
        if node.hitMode == .none { return HitGate.none }
        if node.hidden { return .hidden }
        if !node.userInteractionEnabled { return .userInteractionDisabled }
        if node.alpha < 0.01 { return .alpha }
        if node.control != nil && !node.enabled { return .disabled }
        return nil
    }

    func hit(_ v: Int, _ p: Point, _ tracing: Bool, _ trace: inout [HitStep]) -> Int {
        if tracing { trace.append(HitStep(view: v, kind: .hitTest)) }
        let node = views[v]
        if let g = gate(of: node) {
            if tracing {
                trace.append(HitStep(view: v, kind: .gate(g)))
                trace.append(HitStep(view: v, kind: .result(-1)))
            }
            return -1
        }
        if node.hitMode == .outsideChildren {
            if let r = hitSubviews(node, p, tracing, &trace) {
                if tracing { trace.append(HitStep(view: v, kind: .result(r))) }
                return r
            }
            let inside = pointInside(v, p)
            if tracing {
                trace.append(HitStep(view: v, kind: .pointInside(inside)))
                trace.append(HitStep(view: v, kind: .result(inside ? v : -1)))
            }
            return inside ? v : -1
        }
        let inside = pointInside(v, p)
        if tracing { trace.append(HitStep(view: v, kind: .pointInside(inside))) }
        if !inside {
            if tracing { trace.append(HitStep(view: v, kind: .result(-1))) }
            return -1
        }
        if node.hitMode != .`self`, let r = hitSubviews(node, p, tracing, &trace) {
            if tracing { trace.append(HitStep(view: v, kind: .result(r))) }
            return r
        }
        let r = node.hitMode == .passthrough ? -1 : v
        if tracing { trace.append(HitStep(view: v, kind: .result(r))) }
        return r
    }

    /// Subviews last to first, the point converted into each one's coordinates.
    @inline(__always)
    func hitSubviews(_ node: ViewNode, _ p: Point, _ tracing: Bool, _ trace: inout [HitStep]) -> Int? {
        var k = node.subviews.count - 1
        while k >= 0 {
            let s = node.subviews[k]
            let sub = views[s]
            let sp = p - sub.frame.origin + sub.boundsOrigin
            let r = hit(s, sp, tracing, &trace)
            if r >= 0 { return r }
            k -= 1
        }
        return nil
    }

    // MARK: Responder chain

    /// The first responder for a hit node: its own responder (a view's controller comes after it).
    
    public func responder(ofView v: Int) -> Int { views[v].responder }

    /// The chain from a node's responder up to the end, as responder indices.
    public func chain(from v: Int) -> [Int] {
        var out: [Int] = []
        var r = views[v].responder
        while r >= 0 && out.count <= responders.count {
            out.append(r)
            r = responders[r].next
        }
        return out
    }

    /// Is `v` the node `ancestor` or inside it?
    public func isDescendant(_ v: Int, of ancestor: Int) -> Bool {
        var c = v
        while c >= 0 {
            if c == ancestor { return true }
            c = views[c].superview
        }
        return false
    }
}
