/// What the views see of a touch while recognizers hold it: a recognizer that delays began
/// (delaysTouchesBegan, a scroll view's delaysContentTouches) keeps the touch from its view
/// until it fails (or, for a scroll view, until the content delay of its touch sequence runs out:
/// `contentDelayEnd`); one that delays
/// ended holds the touch's end; one that recognized with cancelsTouchesInView takes it away
/// (the view gets `cancelled`, reason gesture).
enum DeliveryGate {
    /// Is the touch's began still held by a recognizer that delays it?
    static func holdsBegan(_ t: LiveTouch, time: Int64, _ recognizers: [GestureRecognizer]) -> Bool {
        t.recognizers.contains { r in
            let g = recognizers[r.rawValue]
            guard g.config.delaysTouchesBegan, g.undecided, g.touches.contains(t.id) else { return false }
            if let scroll = g.config.scroll { return t.view != g.view && time < contentDelayEnd(g, scroll) }
            return true
        }
    }

    /// When a scroll view's content delay runs out: 150 ms after the first finger of its touch
    /// sequence landed. UIKit's delay is one recognizer on the scroll view, not a timer per
    /// finger: once it has failed, a finger landing in the same sequence reaches the content at
    /// once, until every finger has lifted (the pan's sequence starts afresh then: its
    /// `startTime` is the touch-down of a finger landing with none down).
    static func contentDelayEnd(_ g: GestureRecognizer, _ scroll: ScrollPan) -> Int64 {
        g.state.startTime + scroll.contentDelay
    }

    static func holdsEnded(_ t: LiveTouch, _ recognizers: [GestureRecognizer]) -> Bool {
        t.recognizers.contains { r in
            let g = recognizers[r.rawValue]
            return g.config.delaysTouchesEnded && g.undecided && g.touches.contains(t.id)
        }
    }

    /// The phase the views see for the touch in this step, or nil when it is not in their
    /// event; moves the touch's life along (TouchLife.next).
    static func viewPhase(_ t: inout LiveTouch, time: Int64, _ recognizers: [GestureRecognizer]) -> Phase? {
        if t.viewState == .gone { return nil }
        if t.undelivered { return t.phase }
        // What the recognizers hold is asked only where the state reads it.
        let holdsBegan = t.viewState == .pending && !t.taken && holdsBegan(t, time: time, recognizers)
        let ownReason = t.reason != nil && t.reason != .gesture
        let endsNow = (t.viewState == .active && t.phase == .ended) || (t.viewState == .endHeld && !ownReason)
        let holdsEnded = endsNow && !t.taken && holdsEnded(t, recognizers)
        let input = TouchLife.Input.deliver(finger: t.phase, taken: t.taken, holdsBegan: holdsBegan, holdsEnded: holdsEnded,
                                            fingerDone: t.fingerDone, ownReason: ownReason)
        switch t.live(input) {
        case .deliver(let phase): return phase
        case .cancelByGesture, .cancel: return .cancelled
        case .none, .cancelHeldEnd, .settle: return nil
        }
    }
}
