/// Changing a scene while it is used: windows attached and detached, subtrees added and
/// removed, view and window properties set. Each costs what it changes: slots are reused,
/// nothing is renumbered, conversions walk up the tree instead of relying on a cache.

/// A window or a subtree parsed on its own (ConfigReader), before it joins a scene: its links
/// are local indices into its own arrays; `views[0]` is its root (the window, or for a subtree
/// a placeholder parent whose place the real parent takes).
public struct SceneFragment: Sendable, Equatable {
    public var views: [ViewNode]
    public var responders: [Responder]
    /// Where each declared id (views, controllers, gesture recognizers) is in the request.
    public var paths: [String: String] = [:]

    /// Every id the fragment declares (views, windows, controllers), the placeholder excepted.
    public func ids(skippingRoot: Bool) -> [String] {
        (skippingRoot ? Array(views.dropFirst()) : views).map(\.id) + responders.filter { $0.kind == .controller }.map(\.id)
    }

    public var gestureIDs: [String] { views.flatMap { $0.gestures.map(\.id) } }
    /// What it adds against a client's `clients.views`: its views (the root or placeholder
    /// excepted) and every gesture recognizer on them, a scroll view's own pan included.
    public var limitedObjects: Int { views.count - 1 + views.reduce(0) { $0 + $1.recognizerCount } }
}

/// The view keys a client may set (`nil`: unchanged).
public struct ViewProperties: Sendable, Equatable {
    public var frame: Rect?
    public var boundsOrigin: Point?
    public var hidden: Bool?
    public var userInteractionEnabled: Bool?
    public var alpha: Double?
    public var hitOutset: Outset?
    public var shape: Shape?
    public var hitMode: HitMode?
    public var enabled: Bool?
    public var touches: TouchPolicy?
    public var multipleTouch: Bool?
    public var exclusiveTouch: Bool?
    /// A scroll view's keys (`set.scroll`; only on a view that is one).
    public var scroll: ScrollChanges?
    /// `accessibility`: merged into the view's (AccessibilityPatch).
    public var accessibility: AccessibilityPatch?
    public init() {}
}

/// The scroll view keys a client may set (`nil`: unchanged); a config's `scroll` is read
/// through the same, with contentSize required.
public struct ScrollChanges: Sendable, Equatable {
    public var contentSize: Size?
    public var delaysContentTouches: Bool?
    public var canCancelContentTouches: Bool?
    public var cancelsControlTouches: Bool?
    public var decelerationRate: Double?
    public var bounces: Bool?
    public var pagingEnabled: Bool?
    public var alwaysBounceHorizontal: Bool?
    public var alwaysBounceVertical: Bool?
    public init() {}

    public func applied(to spec: ScrollSpec) -> ScrollSpec {
        var s = spec
        if let x = contentSize { s.contentSize = x }
        if let x = delaysContentTouches { s.delaysContentTouches = x }
        if let x = canCancelContentTouches { s.canCancelContentTouches = x }
        if let x = cancelsControlTouches { s.cancelsControlTouches = x }
        if let x = decelerationRate { s.decelerationRate = x }
        if let x = bounces { s.bounces = x }
        if let x = pagingEnabled { s.pagingEnabled = x }
        if let x = alwaysBounceHorizontal { s.alwaysBounceHorizontal = x }
        if let x = alwaysBounceVertical { s.alwaysBounceVertical = x }
        return s
    }
}

/// The window keys a client may set.
public struct WindowProperties: Sendable, Equatable {
    public var frame: Rect?
    public var level: Double?
    public var hidden: Bool?
    public init() {}
}

extension Scene {
    mutating func allocateView() -> ViewIndex {
        liveViewCount += 1
        if let v = freeViews.popLast() { return v }
        views.append(ViewNode(id: "", frame: Rect(0, 0, 0, 0)))
        return ViewIndex(views.count - 1)
    }

    mutating func allocateResponder() -> ResponderIndex {
        if let r = freeResponders.popLast() { return r }
        responders.append(Responder(id: "", kind: .view, policy: TouchPolicy(.forward), next: nil, view: nil))
        return ResponderIndex(responders.count - 1)
    }

    /// Copies a fragment's views and responders into slots; `parent` takes the place of local
    /// view 0 when given (a subtree), otherwise view 0 is a new window. Returns the new slots of
    /// the fragment's views, in fragment order.
    mutating func graft(_ f: SceneFragment, parent: ViewIndex?) -> [ViewIndex] {
        let skip = parent != nil
        var viewSlot: [ViewIndex] = []
        for k in f.views.indices {
            if k == 0, let parent { viewSlot.append(parent) } else { viewSlot.append(allocateView()) }
        }
        var responderSlot: [ResponderIndex] = []
        for k in f.responders.indices {
            let owner = f.responders[k].view.map { $0.rawValue }
            if owner == 0, let parent { responderSlot.append(views[parent.rawValue].responder) } else { responderSlot.append(allocateResponder()) }
        }
        let window = parent.map { views[$0.rawValue].window } ?? viewSlot[0]
        for (k, local) in f.views.enumerated() where !(k == 0 && skip) {
            var v = local
            v.superview = local.superview.map { viewSlot[$0.rawValue] }
            v.subviews = local.subviews.map { viewSlot[$0.rawValue] }
            v.window = window
            v.responder = responderSlot[local.responder.rawValue]
            v.controller = local.controller.map { responderSlot[$0.rawValue] }
            v.removed = false
            views[viewSlot[k].rawValue] = v
            viewIndex[v.id] = viewSlot[k]
            if v.subviews.count >= HitIndex.threshold { hitIndexStale.insert(viewSlot[k]) }
        }
        for (k, local) in f.responders.enumerated() {
            if skip && local.view?.rawValue == 0 { continue }
            var r = local
            r.view = local.view.map { viewSlot[$0.rawValue] }
            // The placeholder's responder is the parent's; a new window's next is the chain
            // above the windows.
            if let next = local.next { r.next = responderSlot[next.rawValue] } else if !skip && local.kind == .window { r.next = windowNext }
            responders[responderSlot[k].rawValue] = r
            responderIndex[r.id] = responderSlot[k]
        }
        return skip ? Array(viewSlot.dropFirst()) : viewSlot
    }

    /// Adds a window; it arrives on top of the windows of its level.
    mutating func attachWindow(_ f: SceneFragment, owner: Int?, isPrivate: Bool) -> ViewIndex {
        let slots = graft(f, parent: nil)
        let w = slots[0]
        views[w.rawValue].owner = owner
        views[w.rawValue].isPrivate = isPrivate
        // The output it names (checked by the caller; a reload that dropped it: the first).
        views[w.rawValue].output = outputIndex(named: views[w.rawValue].outputID) ?? 0
        views[w.rawValue].arrival = nextArrival
        nextArrival += 1
        windowOrder.append(w)
        sortWindows()
        return w
    }

    /// Inserts a subtree under `parent`, at `position` among its subviews (nil: on top).
    mutating func insert(_ f: SceneFragment, under parent: ViewIndex, at position: Int?) -> [ViewIndex] {
        let before = views[parent.rawValue].subviews
        let slots = graft(f, parent: parent)
        // The placeholder's children (local k ↦ slots[k − 1]) join the parent's subviews.
        let added = f.views[0].subviews.map { slots[$0.rawValue - 1] }
        var subviews = before
        subviews.insert(contentsOf: added, at: min(max(position ?? before.count, 0), before.count))
        views[parent.rawValue].subviews = subviews
        invalidateSubviews(of: parent)
        return slots
    }

    /// Removes a view or a window with everything under it; returns what was removed.
    mutating func remove(_ v: ViewIndex) -> [ViewIndex] {
        let gone = subtree(v)
        if let sup = views[v.rawValue].superview, !views[v.rawValue].isWindow {
            views[sup.rawValue].subviews.removeAll { $0 == v }
            invalidateSubviews(of: sup)
        }
        for g in gone {
            let node = views[g.rawValue]
            viewIndex[node.id] = nil
            for r in [node.responder] + (node.controller.map { [$0] } ?? []) {
                responderIndex[responders[r.rawValue].id] = nil
                responders[r.rawValue] = Responder(id: "", kind: .view, policy: TouchPolicy(.forward), next: nil, view: nil)
                freeResponders.append(r)
            }
            views[g.rawValue].removed = true
            views[g.rawValue].subviews = []
            if hitIndexes[g] != nil { hitIndexes[g] = nil }
            hitIndexStale.remove(g)
            views[g.rawValue].gestures = []
            views[g.rawValue].scroll = nil
            freeViews.append(g)
            liveViewCount -= 1
        }
        if views[v.rawValue].isWindow { windowOrder.removeAll { $0 == v } }
        return gone
    }

    mutating func set(_ p: ViewProperties, on v: ViewIndex) {
        if p.frame != nil || p.boundsOrigin != nil || p.hidden != nil || p.userInteractionEnabled != nil || p.alpha != nil
            || p.hitOutset != nil || p.hitMode != nil || p.enabled != nil {
            // Indexes are only dropped here; they are rebuilt from the new values when needed.
            invalidateReach(of: v)
        }
        if let x = p.frame { views[v.rawValue].frame = x }
        if let x = p.boundsOrigin { views[v.rawValue].boundsOrigin = x }
        if let x = p.hidden { views[v.rawValue].hidden = x }
        if let x = p.userInteractionEnabled { views[v.rawValue].userInteractionEnabled = x }
        if let x = p.alpha { views[v.rawValue].alpha = x }
        if let x = p.hitOutset { views[v.rawValue].hitOutset = x }
        if let x = p.shape { views[v.rawValue].shape = x }
        if let x = p.hitMode { views[v.rawValue].hitMode = x }
        if let x = p.enabled { views[v.rawValue].enabled = x }
        if let x = p.multipleTouch { views[v.rawValue].multipleTouch = x }
        if let x = p.exclusiveTouch { views[v.rawValue].exclusiveTouch = x }
        if let x = p.touches { responders[views[v.rawValue].responder.rawValue].policy = x }
        if let x = p.scroll, let spec = views[v.rawValue].scroll { views[v.rawValue].scroll = x.applied(to: spec) }
        if let x = p.accessibility { views[v.rawValue].accessibility = x.applied(to: views[v.rawValue].accessibility) }
    }

    mutating func set(_ p: WindowProperties, on w: ViewIndex) {
        if let x = p.frame { views[w.rawValue].frame = x }
        if let x = p.hidden { views[w.rawValue].hidden = x }
        if let x = p.level {
            views[w.rawValue].level = x
            sortWindows()
        }
    }

    /// A window as a fragment (for a reload that keeps client windows).
    func fragment(of w: ViewIndex) -> SceneFragment {
        let nodes = subtree(w)
        var local: [ViewIndex: ViewIndex] = [:]
        for (k, v) in nodes.enumerated() { local[v] = ViewIndex(k) }
        var rs: [ResponderIndex] = []
        var ownResponder: [ResponderIndex] = []   // per node, its own responder's local index
        for v in nodes {
            ownResponder.append(ResponderIndex(rs.count))
            rs.append(views[v.rawValue].responder)
            if let c = views[v.rawValue].controller { rs.append(c) }
        }
        var localR: [ResponderIndex: ResponderIndex] = [:]
        for (k, r) in rs.enumerated() { localR[r] = ResponderIndex(k) }
        let fviews = nodes.enumerated().map { k, v -> ViewNode in
            var n = views[v.rawValue]
            n.superview = n.superview.flatMap { local[$0] }
            n.subviews = n.subviews.compactMap { local[$0] }
            n.window = ViewIndex(0)
            n.responder = ownResponder[k]
            n.controller = n.controller.flatMap { localR[$0] }
            return n
        }
        let fresponders = rs.map { r -> Responder in
            var x = responders[r.rawValue]
            x.view = x.view.flatMap { local[$0] }
            x.next = x.next.flatMap { localR[$0] }
            return x
        }
        return SceneFragment(views: fviews, responders: fresponders)
    }
}

extension Scene {
    /// Recognizers that left the scene: the view's settings name them no more (a reload
    /// rebuilds recognizers from the settings).
    mutating func forgetRecognizers(_ ids: Set<String>, on v: ViewIndex) {
        for k in views[v.rawValue].gestures.indices {
            views[v.rawValue].gestures[k].requireToFail.removeAll { ids.contains($0) }
            views[v.rawValue].gestures[k].simultaneousWith.removeAll { ids.contains($0) }
        }
    }
}
