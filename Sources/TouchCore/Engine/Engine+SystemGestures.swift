/// The system gestures' stage (interface.md, "Kiosk session"): after the session (a swallowed
/// waking touch counts toward none) and before hit-testing, each watcher of the frame's output
/// sees its contacts in the output's points as turned now. It only reads `changes`: the touches
/// go on to their views, recognizers and re-export exactly as if it did not exist. A watcher
/// that recognizes publishes `systemGesture`, which takes no `seq` (Message.isUnnumbered), so
/// every other message is byte for byte what it would be without system gestures
/// (SystemGestureInvariantTests).
extension Engine {
    /// The stage: the frame's changes to the watchers of its output.
    func systemGestureStage(device d: DeviceIndex, time: Int64) {
        guard !watchers.isEmpty else { return }
        let o = devices[d].outputIndex
        fireWatchTimers(through: time)
        let mapping = devices[d].mapping
        let bounds = scene.outputs[o].pointSize
        for ch in changes {
            let key = ContactKey(device: d, slot: ch.slot)
            let p = mapping.map(x: ch.sample.x, y: ch.sample.y)
            let input: WatchInput
            switch ch.kind {
            case .began: input = .down(key, p, time)
            case .moved: input = .moved(key, p, time)
            case .ended: input = .up(key, p, time)
            case .cancelled: input = .cancelled(key, time)
            }
            for w in watchers.indices where watchers[w].output == o {
                if let t = watchers[w].next(input, bounds: bounds) { recognized(w, at: t) }
            }
        }
    }

    func recognized(_ w: Int, at t: Int64) {
        let output = scene.outputs[watchers[w].output].id
        outbox.publish(.systemGesture(SystemGestureMessage(time: t, name: watchers[w].name, output: output)))
        log?(.info, "output \(output): system gesture \"\(watchers[w].name)\" recognized")
    }

    /// The first watcher's time to be up (nil: none waits).
    var watchDeadline: Int64? {
        var best: Int64?
        for w in watchers { if let d = w.deadline, best.map({ d < $0 }) ?? true { best = d } }
        return best
    }

    /// Every watcher whose time is up by `time` is told, each at its own deadline.
    func fireWatchTimers(through time: Int64) {
        while let due = watchDeadline, due <= time {
            for w in watchers.indices where watchers[w].deadline == due {
                if let t = watchers[w].next(.timer(due), bounds: scene.outputs[watchers[w].output].pointSize) { recognized(w, at: t) }
            }
        }
    }

    /// Output `o` turned (or its devices moved): what its watchers had under way fails.
    func systemGesturesAbandon(output o: Int) {
        for w in watchers.indices where watchers[w].output == o { watchers[w].abandon() }
    }
}
