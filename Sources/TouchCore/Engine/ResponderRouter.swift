/// Response goes up: for one frame, which responders' touch methods are called, in order.
/// Per phase (began, moved, ended, cancelled), the touches delivered to a view are grouped
/// (views in the order of their first touch) and the chain is walked from the view: a
/// `forward` responder has no method and passes on, `handle` stops the walk, and
/// `handleAndForward` is called and passes on.
enum ResponderRouter {
    static func calls(for records: [TouchRecord], in scene: Scene) -> [Call] {
        var calls: [Call] = []
        for phase in Phase.delivered {
            var groups: [(view: ViewIndex, touches: [Int])] = []
            for t in records where t.phase == phase && t.ignored == nil {
                guard let view = t.view else { continue }
                if let g = groups.firstIndex(where: { $0.view == view }) {
                    groups[g].touches.append(t.id)
                } else {
                    groups.append((view, [t.id]))
                }
            }
            for g in groups {
                for r in scene.chain(from: g.view) {
                    let handling = scene[r].policy[phase]
                    if handling != .forward { calls.append(Call(responder: r, phase: phase, touches: g.touches)) }
                    if handling == .handle { break }
                }
            }
        }
        return calls
    }
}
