/// The engine's event queue (libinput's habit): what the engine published, in order, for its
/// caller to drain. Sequence numbers are given here, so they follow publication order.
struct Outbox {
    private(set) var items: [EngineOutput] = []
    private(set) var seq = 0

    mutating func nextSeq() -> Int {
        seq += 1
        return seq
    }

    mutating func publish(_ m: Message) { items.append(.message(m)) }
    mutating func sceneChanged(_ s: Scene) { items.append(.sceneChanged(s)) }

    var isEmpty: Bool { items.isEmpty }

    /// Hands everything over (appended to `out`) and starts empty. When `out` is empty the two
    /// buffers are swapped, so a caller that drains into the same array allocates nothing.
    mutating func drain(into out: inout [EngineOutput]) {
        if out.isEmpty {
            swap(&items, &out)
        } else {
            out.append(contentsOf: items)
            items.removeAll(keepingCapacity: true)
        }
    }
}
