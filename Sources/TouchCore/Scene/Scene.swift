/// The view tree and its responders: UIKit's delivery (down: hit-testing, HitTesting.swift) and
/// response (up: the responder chain) halves. Built from the config, then changed by clients
/// that own windows (SceneChanges.swift): views and responders live in slots that keep their
/// index while they exist; a removed one's slot is reused later.
public struct Scene: Sendable {
    /// Every view and window slot (removed ones are marked `removed`). The tables are chunked
    /// (ChunkedStorage.swift): the scene's copies share them, and a change copies what it touches.
    public internal(set) var views: ChunkedArray<ViewNode>
    public internal(set) var responders: ChunkedArray<Responder>
    /// Window indices, topmost first: higher level first, then the later arrival first.
    public internal(set) var windowOrder: [ViewIndex]
    public internal(set) var viewIndex: ChunkedDictionary<String, ViewIndex>
    public internal(set) var responderIndex: ChunkedDictionary<String, ResponderIndex>
    /// The displays the windows are on (Outputs.swift); never empty. A window's `output` is
    /// its index here; screen-edge gestures need its edges.
    public internal(set) var outputs: [Output]
    /// The first output's point space (the one of a config with `screen`).
    public var screen: Size { outputs[0].pointSize }
    /// What a new window's next responder is: the chain above the windows (scene,
    /// application, delegate) as the config declares it.
    public let windowNext: ResponderIndex?
    // Chunked too: after a mass disconnect they hold hundreds of thousands of slots, and each
    // attach after a scene change would copy them whole.
    var freeViews = ChunkedArray<ViewIndex>()
    var freeResponders = ChunkedArray<ResponderIndex>()
    var nextArrival = 0
    /// Views and windows that exist.
    public internal(set) var liveViewCount = 0
    /// Spatial indexes of views with many subviews (HitIndex.swift): only valid ones are kept;
    /// those changes dropped are rebuilt by `refreshHitIndexes`.
    var hitIndexes: [ViewIndex: HitIndex] = [:]
    var hitIndexStale: Set<ViewIndex> = []
    /// `outputs[].accommodations` by output id (Accommodations.swift): a device without its own
    /// takes its output's. Not part of `Output`, whose change ends an output's touches.
    public internal(set) var outputAccommodations: [String: AccommodationSettings] = [:]

    /// Windows are ordered by their `level` and `arrival`.
    public init(views: [ViewNode], responders: [Responder], screen: Size = Size(800, 480), windowNext: ResponderIndex? = nil) {
        self.init(views: views, responders: responders, outputs: [.screen(screen)], windowNext: windowNext)
    }

    /// Each window's `outputID` is resolved among `outputs` (an unknown one, which the config
    /// and the requests refuse, is the first).
    public init(views: [ViewNode], responders: [Responder], outputs: [Output], windowNext: ResponderIndex? = nil) {
        // The windows' outputs are set in the chunks, not in a copy of `views` first: with the
        // caller's array still alive that copy was a third ViewNode table at the config's peak
        // (300 KiB for 1,000 views; issue 34's memory).
        self.views = ChunkedArray(views)
        for i in views.indices where views[i].isWindow {
            self.views[i].output = views[i].outputID.flatMap { id in outputs.firstIndex { $0.id == id } } ?? 0
        }
        self.outputs = outputs.isEmpty ? [.screen(Size(800, 480))] : outputs
        self.responders = ChunkedArray(responders)
        self.windowNext = windowNext
        var vi = ChunkedDictionary<String, ViewIndex>()
        for (i, v) in views.enumerated() where !v.removed { vi[v.id] = ViewIndex(i) }
        viewIndex = vi
        var ri = ChunkedDictionary<String, ResponderIndex>()
        for (i, r) in responders.enumerated() { ri[r.id] = ResponderIndex(i) }
        responderIndex = ri
        liveViewCount = vi.count
        windowOrder = views.indices.filter { views[$0].isWindow && !views[$0].removed }.map(ViewIndex.init)
        for (i, v) in views.enumerated() where !v.removed && v.subviews.count >= HitIndex.threshold { hitIndexStale.insert(ViewIndex(i)) }
        nextArrival = (views.filter(\.isWindow).map(\.arrival).max() ?? -1) + 1
        sortWindows()
    }

    public static let empty = Scene(views: [], responders: [])

    // Yielded in place: a hit-test reads many views and must not copy each one.
    public subscript(v: ViewIndex) -> ViewNode { _read { yield views[v.rawValue] } }
    public subscript(r: ResponderIndex) -> Responder { _read { yield responders[r.rawValue] } }

    /// Every view that exists (slot order: a parent may come after its child in a live scene).
    public var viewIndices: [ViewIndex] { views.indices.filter { !views[$0].removed }.map(ViewIndex.init) }
    public var windows: [ViewIndex] { windowOrder }

    public func id(of v: ViewIndex?) -> String? { v.map { views[$0.rawValue].id } }

    /// The index of the output named `id` (nil: the first); nil when no output has that id.
    public func outputIndex(named id: String?) -> Int? {
        guard let id else { return 0 }
        return outputs.firstIndex { $0.id == id }
    }

    /// The point space of the output a view's window is on.
    public func outputSize(of v: ViewIndex) -> Size {
        let o = views[views[v.rawValue].window.rawValue].output
        return outputs[o < outputs.count ? o : 0].pointSize
    }

    /// Turns an output (its windows keep their frames: their clients lay them out again).
    mutating func setRotation(_ r: Rotation, ofOutput o: Int) { outputs[o].rotation = r }

    /// Higher level first, then the later arrival first (a sort of the windows only).
    mutating func sortWindows() {
        windowOrder.sort { a, b in
            let va = views[a.rawValue], vb = views[b.rawValue]
            return va.level != vb.level ? va.level > vb.level : va.arrival > vb.arrival
        }
    }

    /// Changes a view's bounds origin (scrolling).
    public mutating func setBoundsOrigin(_ p: Point, of view: ViewIndex) {
        views[view.rawValue].boundsOrigin = p
        // Its subviews keep their places in its own coordinates; only a view that asks them
        // outside its bounds reaches somewhere else in its superview's.
        if views[view.rawValue].hitMode == .outsideChildren { invalidateReach(of: view) }
    }

    /// Converts a point in the window's coordinates into the view's: through each ancestor's
    /// frame and bounds origin (a walk up the tree, so moving or scrolling a view costs nothing).
    public func convert(windowPoint p: Point, to view: ViewIndex) -> Point {
        var q = p
        var c: ViewIndex? = view
        while let v = c {
            let node = views[v.rawValue]
            q = q + node.boundsOrigin
            if node.isWindow { break }
            q = q - node.frame.origin
            c = node.superview
        }
        return q
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

    /// A view and everything under it, parents before children.
    public func subtree(_ v: ViewIndex) -> [ViewIndex] {
        var out: [ViewIndex] = [v]
        var k = 0
        while k < out.count {
            out += views[out[k].rawValue].subviews
            k += 1
        }
        return out
    }
}
