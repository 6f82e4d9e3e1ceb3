import TouchCore
import TouchSystem

/// Publishing one message to many subscribers: each one that should see it gets it, and each
/// distinct form of it (the whole message, or a frame cut down to the touches one client sees)
/// is encoded once and shared by every queue that holds it.
///
/// Who sees what: the subscription filter (types, windows, views), except that the owner of a
/// client window sees everything about it whatever its filter says, and a `private` window is
/// seen by its owner alone (SubscriptionFilter.sees). Clients with a maxRate are served by the
/// server itself (their frames are held and merged: Coalescer).
struct FanOut {
    /// The scene's private windows and the clients that own windows: when there are none, a
    /// client whose filter takes the message whole gets it without looking at its touches.
    let hasPrivateWindows: Bool
    let owners: Set<Int>
    /// Distinct filters whose cut of a message is kept while it is fanned out.
    static let distinctFilters = 8

    init(scene: Scene) {
        var owners = Set<Int>()
        var hasPrivate = false
        for w in scene.windowOrder {
            if let o = scene[w].owner { owners.insert(o) }
            if scene[w].isPrivate { hasPrivate = true }
        }
        self.owners = owners
        hasPrivateWindows = hasPrivate
    }

    func forms(of m: Message, for connections: Dictionary<Descriptor, Connection>.Values, history: SceneHistory) -> [(Connection, [UInt8])] {
        let scene = history.scene
        var out: [(Connection, [UInt8])] = []
        var full: [UInt8]?
        var cut: [[Int]: [UInt8]] = [:]
        // A filter's cut of this message, for clients that own no window: who they are does not
        // change what they see (SubscriptionFilter.access), so each distinct filter is applied
        // once per message, not once per subscriber (scripts/bench scaling: 1,000 filtered
        // subscribers cost more per frame than 1,000 taking everything). A few distinct filters
        // are kept; beyond them, each is applied as before.
        var applied: [(filter: SubscriptionFilter, message: Message?)] = []
        let type = m.type
        for c in connections where !c.flow.holdsFrames {
            let f = c.filter
            // An output message goes to every subscriber whatever its types (its windows' frames
            // may have to change: SubscriptionFilter.apply passes it to all).
            let wantsType = f.types.contains(type) || type == .output
            if !wantsType && !owners.contains(c.id) { continue }
            let shaped: Message
            // The screen reader's messages are always shaped: their owner rule, a secure
            // element's speech and the speakers do not depend on private windows.
            if wantsType && !f.restrictsTouches && !hasPrivateWindows && !m.isAccessibility {
                shaped = m
            } else if owners.contains(c.id) {
                guard let s = f.apply(m, scene: scene, client: c.id) else { continue }
                shaped = s
            } else {
                let s: Message?
                if let k = applied.firstIndex(where: { $0.filter == f }) { s = applied[k].message } else {
                    s = f.apply(m, scene: scene, client: c.id)
                    if applied.count < FanOut.distinctFilters { applied.append((f, s)) }
                }
                guard let s else { continue }
                shaped = s
            }
            if case .frame(let part) = shaped, case .frame(let whole) = m, part.touches.count != whole.touches.count {
                let key = part.touches.map(\.id)
                if let b = cut[key] { out.append((c, b)) } else {
                    let b = history.encode(shaped)
                    cut[key] = b
                    out.append((c, b))
                }
            } else if case .hitTest(let part) = shaped, case .hitTest(let whole) = m, part.trace.count != whole.trace.count {
                out.append((c, history.encode(shaped)))   // a trace without others' private windows: rare, not shared
            } else {
                let b = full ?? history.encode(m)
                full = b
                out.append((c, b))
            }
        }
        return out
    }
}
