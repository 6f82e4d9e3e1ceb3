/// What the views see of a touch while recognizers hold it: a recognizer that delays began
/// (delaysTouchesBegan, a scroll view's delaysContentTouches) keeps the touch from its view
/// until it fails (or, for a scroll view, until the content delay runs out); one that delays
/// ended holds the touch's end; one that recognized with cancelsTouchesInView takes it away
/// (the view gets `cancelled`, reason gesture).
enum DeliveryGate {
    /// Is the touch's began still held by a recognizer that delays it?
    static func holdsBegan(_ t: LiveTouch, time: Int64, _ recognizers: [GestureRecognizer]) -> Bool {
        t.recognizers.contains { r in
            let g = recognizers[r.rawValue]
            guard g.config.delaysTouchesBegan, g.undecided, g.touches.contains(t.id) else { return false }
            if let scroll = g.config.scroll { return t.view != g.view && time < t.beganAt + scroll.contentDelay }
            return true
        }
    }

    static func holdsEnded(_ t: LiveTouch, _ recognizers: [GestureRecognizer]) -> Bool {
        t.recognizers.contains { r in
            let g = recognizers[r.rawValue]
            return g.config.delaysTouchesEnded && g.undecided && g.touches.contains(t.id)
        }
    }

    /// The phase the views see for the touch in this step, or nil when it is not in their
    /// event; moves the touch's view state along.
    static func viewPhase(_ t: inout LiveTouch, time: Int64, _ recognizers: [GestureRecognizer]) -> Phase? {
        if t.viewState == .gone { return nil }
        if t.undelivered { return t.phase }
        switch t.viewState {
        case .pending:
            if t.taken { t.viewState = .gone; return nil }
            if holdsBegan(t, time: time, recognizers) { return nil }
            t.viewState = t.fingerDone || t.phase == .ended || t.phase == .cancelled ? .endHeld : .active
            return .began
        case .active:
            if t.taken { t.viewState = .gone; t.reason = .gesture; return .cancelled }
            if t.phase == .cancelled { t.viewState = .gone; return .cancelled }
            if t.phase == .ended {
                if holdsEnded(t, recognizers) { t.viewState = .endHeld; return .stationary }
                t.viewState = .gone
                return .ended
            }
            return t.phase == .moved ? .moved : .stationary
        case .endHeld:
            if t.taken { t.viewState = .gone; t.reason = .gesture; return .cancelled }
            if t.reason != nil && t.reason != .gesture { t.viewState = .gone; return .cancelled }
            if holdsEnded(t, recognizers) { return .stationary }
            t.viewState = .gone
            return .ended
        case .gone:
            return nil
        }
    }
}
