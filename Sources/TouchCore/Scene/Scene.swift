/// The view tree and its responders: UIKit's delivery (down: hit-testing, HitTesting.swift) and
/// response (up: the responder chain) halves. Built from the config; immutable but for scroll
/// offsets (bounds origins).
public struct Scene: Sendable {
    /// Every view and window; parents come before their children.
    public private(set) var views: [ViewNode]
    public private(set) var responders: [Responder]
    /// Window indices, topmost first (higher level first, then later in the config first).
    public let windowOrder: [ViewIndex]
    public let viewIndex: [String: ViewIndex]
    public let responderIndex: [String: ResponderIndex]
    /// window point + offsets[v] = point in v's coordinates.
    private var offsets: [Point]
    /// The screen the windows are on (screen-edge gestures need its edges).
    public let screen: Size

    public init(views: [ViewNode], responders: [Responder], windowOrder: [ViewIndex], screen: Size = Size(800, 480)) {
        self.views = views
        self.screen = screen
        self.responders = responders
        self.windowOrder = windowOrder
        var vi: [String: ViewIndex] = [:]
        for (i, v) in views.enumerated() { vi[v.id] = ViewIndex(i) }
        viewIndex = vi
        var ri: [String: ResponderIndex] = [:]
        for (i, r) in responders.enumerated() { ri[r.id] = ResponderIndex(i) }
        responderIndex = ri
        offsets = []
        recomputeOffsets()
    }

    public static let empty = Scene(views: [], responders: [], windowOrder: [])

    // Yielded in place: a hit-test reads many views and must not copy each one.
    public subscript(v: ViewIndex) -> ViewNode { _read { yield views[v.rawValue] } }
    public subscript(r: ResponderIndex) -> Responder { _read { yield responders[r.rawValue] } }

    /// Every view index, in tree order (parents first).
    public var viewIndices: [ViewIndex] { views.indices.map(ViewIndex.init) }

    public func id(of v: ViewIndex?) -> String? { v.map { views[$0.rawValue].id } }

    mutating func recomputeOffsets() {
        offsets = Array(repeating: .zero, count: views.count)
        for i in views.indices {
            let v = views[i]
            guard let sup = v.superview, !v.isWindow else { offsets[i] = v.boundsOrigin; continue }
            offsets[i] = offsets[sup.rawValue] - v.frame.origin + v.boundsOrigin
        }
    }

    /// Changes a view's bounds origin (scrolling) and the conversions that depend on it.
    public mutating func setBoundsOrigin(_ p: Point, of view: ViewIndex) {
        views[view.rawValue].boundsOrigin = p
        recomputeOffsets()
    }

    /// Converts a point in the window's coordinates into the view's.
    public func convert(windowPoint p: Point, to view: ViewIndex) -> Point {
        p + offsets[view.rawValue]
    }

    /// The responder chain starting at a view's own responder.
    public func chain(from v: ViewIndex) -> ResponderChain {
        ResponderChain(responders: responders, from: views[v.rawValue].responder)
    }

    /// Is `v` the node `ancestor` or inside it?
    public func isDescendant(_ v: ViewIndex, of ancestor: ViewIndex) -> Bool {
        var c: ViewIndex? = v
        while let node = c {
            if node == ancestor { return true }
            c = views[node.rawValue].superview
        }
        return false
    }

    /// The view and its ancestors up to its window, innermost first.
    public func ancestry(of v: ViewIndex) -> [ViewIndex] {
        var out: [ViewIndex] = []
        var c: ViewIndex? = v
        while let node = c {
            out.append(node)
            c = views[node.rawValue].superview
        }
        return out
    }
}
