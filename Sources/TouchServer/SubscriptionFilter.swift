import TouchCore

/// A client's subscription (`subscribe`): which messages it takes and how each is shaped for it —
/// the one place the private-window rule and the speaker role are applied (Wire.swift parses
/// the request). Pure: tested with plain values.
public struct SubscriptionFilter: Sendable, Equatable {
    public var types: Set<MessageType> = MessageType.subscribedByDefault
    public var windowIDs: [String] = []
    public var viewIDs: [String] = []
    /// At most this many frames a second (moves in between are coalesced); nil: every frame.
    public var maxRate: Double?
    /// It claimed the speaker role (`"speaker": true`) and the config's `clients.speakers` names
    /// it: every output's `speech` reaches it, private text included (docs/accessibility.md).
    public var speaker = false
    /// Resolved against the current scene: the windows and the views named (a view matches
    /// with all its descendants: `matches` walks up from the touch's view). nil when the filter
    /// does not restrict.
    public private(set) var windows: Set<ViewIndex>?
    public private(set) var views: Set<ViewIndex>?

    public init() {}

    public var restrictsTouches: Bool { windows != nil || views != nil }
    /// It names windows or views (resolved again when the scene changes).
    public var namesIDs: Bool { !windowIDs.isEmpty || !viewIDs.isEmpty }

    /// Resolves ids against a scene, one lookup each (nothing proportional to the scene's
    /// size); returns the ids that name nothing `client` may see: a view or window of another
    /// client's private window is answered as unknown, as an id that does not exist is.
    @discardableResult
    public mutating func resolve(in scene: Scene, client: Int? = nil) -> [String] {
        var unknown: [String] = []
        func visible(_ v: ViewIndex) -> Bool { SubscriptionFilter.access(window: scene[v].window, client: client, scene: scene) != .hidden }
        if windowIDs.isEmpty { windows = nil } else {
            var set = Set<ViewIndex>()
            for id in windowIDs {
                if let w = scene.viewIndex[id], scene[w].isWindow, visible(w) { set.insert(w) } else { unknown.append(id) }
            }
            windows = set
        }
        if viewIDs.isEmpty { views = nil } else {
            var set = Set<ViewIndex>()
            for id in viewIDs {
                if let v = scene.viewIndex[id], visible(v) { set.insert(v) } else { unknown.append(id) }
            }
            views = set
        }
        return unknown
    }

    /// In one of its windows, and in one of its views or below one (the walk up from `view` is
    /// as deep as the view).
    public func matches(window: ViewIndex?, view: ViewIndex?, scene: Scene) -> Bool {
        if let windows { guard let window, windows.contains(window) else { return false } }
        if let views {
            var v = view
            while let node = v {
                if views.contains(node) { return true }
                v = scene[node].superview
            }
            return false
        }
        return true
    }

    /// What client `client` may know of window `window`: the one statement of the private-window
    /// rule. The owner of a client window sees all of it whatever its filter says; a private
    /// window is hidden from everyone else (its touches, controls, gestures, scrolls, the steps
    /// of hit-test traces through it); any other window is open to the filter.
    public enum Access { case owner, hidden, open }

    public static func access(window: ViewIndex?, client: Int?, scene: Scene) -> Access {
        guard let window, let owner = scene[window].owner else { return .open }
        if owner == client { return .owner }
        return scene[window].isPrivate ? .hidden : .open
    }

    /// Does client `client` see something of type `type` in this window and view? Its own
    /// windows whatever its filter (traces only if it asked for them), others' private ones
    /// never, everything else by the filter.
    public func sees(_ type: MessageType, window: ViewIndex?, view: ViewIndex?, client: Int?, scene: Scene) -> Bool {
        switch SubscriptionFilter.access(window: window, client: client, scene: scene) {
        case .owner: return type != .hitTest || types.contains(type)
        case .hidden: return false
        case .open: return types.contains(type) && matches(window: window, view: view, scene: scene)
        }
    }

    /// A touch in a snapshot: as `sees`, whatever the types.
    public func seesTouch(window: ViewIndex?, view: ViewIndex?, client: Int?, scene: Scene) -> Bool {
        switch SubscriptionFilter.access(window: window, client: client, scene: scene) {
        case .owner: return true
        case .hidden: return false
        case .open: return matches(window: window, view: view, scene: scene)
        }
    }

    /// The message as client `client` should see it: nil to skip it, or (for frames) a copy
    /// restricted to the touches it sees and the calls about them.
    public func apply(_ m: Message, scene: Scene, client: Int? = nil) -> Message? {
        let type = m.type
        switch m {
        case .device, .headphones:
            return types.contains(type) ? m : nil
        case .frame(var f):
            let kept = f.touches.filter { sees(type, window: $0.window, view: $0.view, client: client, scene: scene) }
            if kept.isEmpty { return nil }
            if kept.count == f.touches.count { return m }
            // Cut down to touches that did not change, the frame would only say that something
            // the client may not see (another window's touch, a private key) changed, and when.
            if !kept.contains(where: { $0.phase != .stationary }) { return nil }
            let ids = Set(kept.map(\.id))
            f.touches = kept
            f.calls = f.calls.compactMap { c in
                let t = c.touches.filter { ids.contains($0) }
                return t.isEmpty ? nil : Call(responder: c.responder, phase: c.phase, touches: t)
            }
            return .frame(f)
        case .control(let c):
            return sees(type, window: scene[c.control].window, view: c.control, client: client, scene: scene) ? m : nil
        case .hitTest(var h):
            guard sees(type, window: h.window, view: h.view, client: client, scene: scene) else { return nil }
            // A trace that passed by another client's private window does not show it.
            let kept = h.trace.filter { step in
                if case .omitted = step.kind { return true }   // the bound's marker: no view of its own
                return SubscriptionFilter.access(window: scene[step.view].window, client: client, scene: scene) != .hidden
            }
            if kept.count == h.trace.count { return m }
            h.trace = kept
            return .hitTest(h)
        case .gesture(let g):
            return sees(type, window: scene[g.view].window, view: g.view, client: client, scene: scene) ? m : nil
        case .scroll(let s):
            return sees(type, window: scene[s.view].window, view: s.view, client: client, scene: scene) ? m : nil
        case .output:
            return m   // every subscriber: its windows' frames may have to change
        case .accessibility(let a):
            let access = SubscriptionFilter.access(window: a.window, client: client, scene: scene)
            if case .speech = a.body {
                // What is said of a private window or a secure element: its owner's and the
                // speakers' (clients.speakers), nobody else's — not even its traits' words.
                if a.isRestrictedSpeech || access == .hidden {
                    return access == .owner || (speaker && types.contains(.speech)) ? m : nil
                }
                // A speaker takes every output's speech, whatever windows or views it named.
                if speaker && types.contains(.speech) { return m }
            }
            switch access {
            case .owner: return m
            case .hidden: return nil
            case .open:
                // Focus and actions about another client's window are its business only.
                if a.isForOwner, let w = a.window, scene[w].owner != nil { return nil }
                guard types.contains(type), a.window == nil || matches(window: a.window, view: a.view, scene: scene) else { return nil }
                return m
            }
        case .idle, .wake:
            return types.contains(type) ? m : nil
        case .systemGesture:
            return nil   // never to every subscriber: the daemon sends it to those its `to` names
        }
    }
}
