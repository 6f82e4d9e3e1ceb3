/// Which recognizers a new touch goes to: those of the hit view and its ancestors, less a pan
/// under way that has all the fingers it takes; and whether it joins a pan that has begun
/// instead of reaching the content.
extension GestureArbiter {
    /// The recognizers that see a touch on `view`: the view's own, then its ancestors' up to
    /// the window.
    /// `arriving(r)`: fingers that landed earlier in the same frame and go to `r` — it has not
    /// counted them yet (it hears of the frame's touches after they are all bound), and they
    /// take its room as much as the fingers it has.
    func recognizers(seeing view: ViewIndex?, in scene: Scene, arriving: (RecognizerIndex) -> Int) -> [RecognizerIndex] {
        guard let view, liveCount > 0 else { return [] }
        return scene.ancestry(of: view).flatMap { viewRecognizers[$0.rawValue] }.filter { !ignoresNewTouch($0, arriving: arriving) }
    }

    /// A pan under way that already has all the fingers it takes (maximumTouches) ignores one
    /// more (UIGestureRecognizer.ignore(_:for:)): that finger reaches the views as if the pan
    /// were not there, and the pan ends when its own fingers lift (issue 20, item 7).
    func ignoresNewTouch(_ r: RecognizerIndex, arriving: (RecognizerIndex) -> Int) -> Bool {
        guard self[r].active, let most = maximumTouches(r) else { return false }
        return self[r].state.down.count + arriving(r) >= most
    }

    /// The most fingers a pan takes: its maximumTouches; a screen-edge pan is a one-finger pan.
    func maximumTouches(_ r: RecognizerIndex) -> Int? {
        switch self[r].config.kind {
        case .pan(let s): return s.maximumTouches
        case .screenEdgePan: return 1
        default: return nil
        }
    }

    /// A new finger landing where a pan (a scroll view's too) has already begun joins that pan
    /// and never reaches the content, when the pan cancels touches in its view and has room for
    /// it (maximumTouches). Content gets a touch only while no pan has begun (issue 20, item 4).
    func joinsBegunPan(_ seen: [RecognizerIndex], arriving: (RecognizerIndex) -> Int) -> Bool {
        seen.contains { r in
            let g = self[r]
            guard g.active, g.config.cancelsTouchesInView, let most = maximumTouches(r) else { return false }
            return g.state.down.count + arriving(r) < most
        }
    }
}

/// The touches each recognizer gets in one step, recognizers in the order they first appear.
struct TouchesByRecognizer {
    private(set) var groups: [(RecognizerIndex, [GestureTouch])] = []
    private var slot: [RecognizerIndex: Int] = [:]

    mutating func append(_ t: GestureTouch, to r: RecognizerIndex) {
        if let k = slot[r] {
            groups[k].1.append(t)
        } else {
            slot[r] = groups.count
            groups.append((r, [t]))
        }
    }
}
