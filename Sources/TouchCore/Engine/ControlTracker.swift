/// UIControl's tracking: a control that handles a touch sends touchDown (and touchDownRepeat
/// for a quick second tap), drag inside/outside with enter/exit as the finger crosses the
/// tracking area (the bounds grown by 70 points on every side), touchUpInside with
/// primaryActionTriggered or touchUpOutside at the lift, and touchCancel when the touch is
/// cancelled. A disabled control (`enabled: false`, read at each event) sends none of them.
struct ControlTracker {
    /// Per touch tracked by a control: is its finger within the tracking area?
    private(set) var inside: [Int: Bool] = [:]

    static let trackingOutset = Outset(all: 70)

    /// The control events of one delivered frame, in order.
    mutating func events(for records: [TouchRecord], in scene: Scene) -> [(control: ViewIndex, event: ControlEvent, touch: Int)] {
        var out: [(ViewIndex, ControlEvent, Int)] = []
        for rec in records where rec.ignored == nil && rec.phase != .stationary {
            let id = rec.id
            // A touch's end is the end of its tracking, whether the control hears of it or not.
            if (rec.phase == .ended || rec.phase == .cancelled) && !inside.isEmpty { inside[id] = nil }
            guard let v = rec.view else { continue }
            let node = scene[v]
            guard node.control != nil, scene[node.responder].policy[rec.phase] != .forward else { continue }
            let within = node.bounds.grown(by: ControlTracker.trackingOutset).contains(rec.locationInView)
            // UIKit: a disabled control sends no actions. `enabled` is read at each event, as a
            // client may disable a control while a finger is on it (a payment button after its
            // first submit): its tracking goes on, quietly, and speaks again if re-enabled.
            func send(_ e: ControlEvent) { if node.enabled { out.append((v, e, id)) } }
            switch rec.phase {
            case .began:
                inside[id] = true
                send(.touchDown)
                if rec.tapCount > 1 { send(.touchDownRepeat) }
            case .moved:
                let was = inside[id] ?? true
                inside[id] = within
                if within {
                    if !was { send(.touchDragEnter) }
                    send(.touchDragInside)
                } else {
                    if was { send(.touchDragExit) }
                    send(.touchDragOutside)
                }
            case .ended:
                if within {
                    send(.touchUpInside)
                    send(.primaryActionTriggered)
                } else {
                    send(.touchUpOutside)
                }
            case .cancelled:
                send(.touchCancel)
            case .stationary:
                break
            }
        }
        return out
    }
}
