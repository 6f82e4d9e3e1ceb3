/// Hit-testing (delivery goes down): windows topmost first, each view's gates, pointInside,
/// subviews last to first; optionally every step recorded as a trace.

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
        /// The view returned (nil for none).
        case result(ViewIndex?)
        /// Steps left out of a long trace (`bounded`): this many, here.
        case omitted(Int)
    }
    public var view: ViewIndex
    public var kind: Kind
    public init(view: ViewIndex, kind: Kind) { self.view = view; self.kind = kind }

    /// Steps a published trace keeps at most: the first and the last half of them, with one
    /// `omitted` step between saying how many went. A hit test of a 10,000-view scene walks
    /// every view (about 1.5 MB of trace per touch); this bounds a hitTest message to about
    /// 150 KB while keeping where the walk began and how it returned.
    public static let publishedLimit = 2_048

    public static func bounded(_ trace: [HitStep], limit: Int = publishedLimit) -> [HitStep] {
        guard trace.count > limit, limit >= 2 else { return trace }
        let head = limit / 2, tail = limit - head
        return Array(trace[..<head]) + [HitStep(view: trace[head].view, kind: .omitted(trace.count - limit))] + trace[(trace.count - tail)...]
    }
}

public struct HitResult: Sendable, Equatable {
    public var window: ViewIndex
    /// The hit view (may be the window itself).
    public var view: ViewIndex
    /// The point in the window's coordinates.
    public var location: Point
}

extension Scene {
    /// One hit-test at a point of an output (nil: of every output, as if they were one).
    /// Windows are asked topmost first, those of that output only; `onlyWindow` restricts the
    /// test to one window. With `tracing`, every step is appended to `trace` in call order.
    public func hitTest(screen p: Point, output: Int? = nil, onlyWindow: ViewIndex? = nil, tracing: Bool, trace: inout [HitStep]) -> HitResult? {
        for w in windowOrder {
            if let only = onlyWindow, only != w { continue }
            if let output, self[w].output != output { continue }
            let local = p - self[w].frame.origin
            if let r = hit(w, local, tracing, &trace) { return HitResult(window: w, view: r, location: local) }
        }
        return nil
    }

    public func pointInside(_ v: ViewIndex, _ p: Point) -> Bool { self[v].pointInside(p) }

    func hit(_ v: ViewIndex, _ p: Point, _ tracing: Bool, _ trace: inout [HitStep]) -> ViewIndex? {
        if tracing { trace.append(HitStep(view: v, kind: .hitTest)) }
        let node = self[v]
        if let g = node.gate {
            if tracing {
                trace.append(HitStep(view: v, kind: .gate(g)))
                trace.append(HitStep(view: v, kind: .result(nil)))
            }
            return nil
        }
        if node.hitMode == .outsideChildren {
            if let r = hitSubviews(v, node, p, tracing, &trace) {
                if tracing { trace.append(HitStep(view: v, kind: .result(r))) }
                return r
            }
            let inside = node.pointInside(p)
            if tracing {
                trace.append(HitStep(view: v, kind: .pointInside(inside)))
                trace.append(HitStep(view: v, kind: .result(inside ? v : nil)))
            }
            return inside ? v : nil
        }
        let inside = node.pointInside(p)
        if tracing { trace.append(HitStep(view: v, kind: .pointInside(inside))) }
        if !inside {
            if tracing { trace.append(HitStep(view: v, kind: .result(nil))) }
            return nil
        }
        if node.hitMode != .`self`, let r = hitSubviews(v, node, p, tracing, &trace) {
            if tracing { trace.append(HitStep(view: v, kind: .result(r))) }
            return r
        }
        let r: ViewIndex? = node.hitMode == .passthrough ? nil : v
        if tracing { trace.append(HitStep(view: v, kind: .result(r))) }
        return r
    }

    /// Subviews last to first, the point converted into each one's coordinates. A view with
    /// many subviews and a built index asks only those that can hit there (HitIndex.swift),
    /// in the same order; a trace walks them all.
    @inline(__always)
    func hitSubviews(_ v: ViewIndex, _ node: ViewNode, _ p: Point, _ tracing: Bool, _ trace: inout [HitStep]) -> ViewIndex? {
        if !tracing && node.subviews.count >= HitIndex.threshold, let index = hitIndexes[v] {
            var found: ViewIndex?
            index.forEachCandidate(p) { k in
                let s = node.subviews[k]
                let sub = self[s]
                found = hit(s, p - sub.frame.origin + sub.boundsOrigin, false, &trace)
                return found != nil
            }
            return found
        }
        var k = node.subviews.count - 1
        while k >= 0 {
            let s = node.subviews[k]
            let sub = self[s]
            if let r = hit(s, p - sub.frame.origin + sub.boundsOrigin, tracing, &trace) { return r }
            k -= 1
        }
        return nil
    }
}
