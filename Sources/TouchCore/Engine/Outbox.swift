/// The engine's event queue (libinput's habit): what the engine published, in order, for its
/// caller to drain. Sequence numbers are given here, so they follow publication order: every
/// message but a hit test or a system gesture (Message.isUnnumbered) takes the next `seq`, except one only about private windows (each
/// touch of a frame in one, a control's, gesture's or scroll's view in one, speech about a
/// private window or a secure element), which keeps the
/// last `seq` and is numbered after it by `sub` (1, 2, …): clients that may not see it find no
/// gap in their numbering, and its owner still sees the order (issue 21, item 3).
struct Outbox {
    private(set) var items: [EngineOutput] = []
    private(set) var seq = 0
    private var sub = 0
    /// The views of the private windows (their roots included), as of the last scene change.
    private var privateViews: Set<ViewIndex> = []

    /// Messages are made with `seq: 0` and numbered here.
    mutating func publish(_ m: Message) {
        var m = m
        if m.isUnnumbered {
        } else if (!privateViews.isEmpty || m.isRestrictedSpeech) && m.isPrivate(privateViews) {
            sub += 1
            m.number(seq: seq, sub: sub)
        } else {
            seq += 1
            sub = 0
            m.number(seq: seq, sub: nil)
        }
        items.append(.message(m))
    }

    mutating func sceneChanged(_ s: Scene) {
        items.append(.sceneChanged(s))
        privateViews.removeAll(keepingCapacity: true)
        for w in s.windowOrder where s[w].isPrivate { privateViews.formUnion(s.subtree(w)) }
    }

    /// A device's frame of screen contacts, in order with the messages (devices[].uinput).
    mutating func contacts(_ f: ScreenContactFrame) { items.append(.contacts(f)) }

    /// A session's swallowed contacts (Engine+Session.swift), for `render` to draw.
    mutating func swallowed(_ f: ScreenContactFrame) { items.append(.swallowed(f)) }

    /// The answer to a scene request, after what the request published.
    mutating func reply(tag: Int, _ r: SceneReply) { items.append(.reply(tag: tag, r)) }

    /// A calibration's message for its client.
    mutating func calibration(client: Int, _ m: CalibrationMessage) { items.append(.calibration(client: client, m)) }

    /// A message for one client about its own windows.
    mutating func notice(client: Int, _ n: WindowNotice) { items.append(.notice(client: client, n)) }

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
