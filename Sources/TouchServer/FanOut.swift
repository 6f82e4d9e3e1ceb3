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
        let type = m.type
        for c in connections where !c.flow.holdsFrames {
            let f = c.filter
            let wantsType = f.types.contains(type)
            if !wantsType && !owners.contains(c.id) { continue }
            let shaped: Message
            if wantsType && !f.restrictsTouches && !hasPrivateWindows {
                shaped = m
            } else {
                guard let s = f.apply(m, scene: scene, client: c.id) else { continue }
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
