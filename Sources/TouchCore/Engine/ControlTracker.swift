/// UIControl's tracking: a control that handles a touch sends touchDown (and touchDownRepeat
/// for a quick second tap), drag inside/outside with enter/exit as the finger crosses the
/// tracking area (the bounds grown by 70 points on every side), touchUpInside with
/// primaryActionTriggered or touchUpOutside at the lift, and touchCancel when the touch is
/// cancelled.
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
            switch rec.phase {
            case .began:
                inside[id] = true
                out.append((v, .touchDown, id))
                if rec.tapCount > 1 { out.append((v, .touchDownRepeat, id)) }
            case .moved:
                let was = inside[id] ?? true
                inside[id] = within
                if within {
                    if !was { out.append((v, .touchDragEnter, id)) }
                    out.append((v, .touchDragInside, id))
                } else {
                    if was { out.append((v, .touchDragExit, id)) }
                    out.append((v, .touchDragOutside, id))
                }
            case .ended:
                if within {
                    out.append((v, .touchUpInside, id))
                    out.append((v, .primaryActionTriggered, id))
                } else {
                    out.append((v, .touchUpOutside, id))
                }
            case .cancelled:
                out.append((v, .touchCancel, id))
            case .stationary:
                break
            }
        }
        return out
    }
}
