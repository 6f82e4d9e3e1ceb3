import TouchCore
import TouchSystem

/// Publishing one message to many subscribers: each one whose subscription wants it gets it,
/// and each distinct form of it (the whole message, or one restricted by a window or view
/// filter) is encoded once and shared by every queue that holds it.
struct FanOut {
    var encoder: MessageEncoder

    func forms(of m: Message, for connections: Dictionary<Descriptor, Connection>.Values, scene: Scene) -> [(Connection, [UInt8])] {
        var out: [(Connection, [UInt8])] = []
        var full: [UInt8]?
        var restricted: [SubscriptionFilter.Restriction: [UInt8]] = [:]
        for c in connections {
            guard let shaped = c.filter.apply(m, scene: scene) else { continue }
            if !c.filter.restrictsTouches {
                if full == nil { full = encode(m) }
                out.append((c, full!))
            } else if let b = restricted[c.filter.restriction] {
                out.append((c, b))
            } else {
                let b = encode(shaped)
                restricted[c.filter.restriction] = b
                out.append((c, b))
            }
        }
        return out
    }

    func encode(_ m: Message) -> [UInt8] {
        var b: [UInt8] = []
        encoder.encode(m, into: &b)
        return b
    }
}
