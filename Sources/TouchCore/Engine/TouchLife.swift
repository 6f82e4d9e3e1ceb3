/// A touch's life for the views, as one state machine (issue 41: it was written in 13 places).
/// The finger has its own life (touch-down to lift, `LiveTouch.phase`); this is what the views
/// have seen of it, which recognizers can hold back (delaysTouchesBegan, delaysContentTouches,
/// delaysTouchesEnded) or take away (cancelsTouchesInView). `TouchLife.next` is the only
/// transition: each input returns the new state and what to do, and `LiveTouch.live(_:)`, the
/// only writer of a touch's state, applies it.
enum TouchLife: Equatable, CaseIterable {
    /// Its began not delivered yet.
    case pending
    /// Delivered; its finger is down (or moving).
    case active
    /// Its finger is up (or it was cancelled), its end not delivered yet.
    case endHeld
    /// Its end delivered, or it never will be.
    case gone

    /// What happened to the touch.
    enum Input: Equatable {
        /// A delivery step: the finger's phase now, whether a recognizer took the touch, whether
        /// one holds its began or its end, whether its finger is done, and whether it carries a
        /// cancel reason of its own (not the gesture's).
        case deliver(finger: Phase, taken: Bool, holdsBegan: Bool, holdsEnded: Bool, fingerDone: Bool, ownReason: Bool)
        /// Its view, window or place went (a removal, a reload, a turn, a calibration): the
        /// views have been told (cancelled) or never knew it.
        case unbound
        /// Its device went away.
        case deviceRemoved(fingerDone: Bool)
        /// Its held began was just delivered after its finger lifted: its end follows now
        /// unless a recognizer still holds it.
        case beganAfterLift(holdsEnded: Bool, ownReason: Bool)
    }

    /// What to do.
    enum Action: Equatable {
        /// Nothing for the views.
        case none
        /// The views see this phase in this step.
        case deliver(Phase)
        /// The views see it cancelled because a recognizer took it (reason `gesture`).
        case cancelByGesture
        /// The views see it cancelled with its own reason.
        case cancel
        /// Its device went: a held end is cancelled with reason `device-removed`, and a
        /// delivery step must run.
        case cancelHeldEnd
        /// A delivery step must run (what was held goes now).
        case settle
    }

    static func next(_ state: TouchLife, _ input: Input) -> (TouchLife, Action) {
        switch (state, input) {
        case (.gone, .deliver), (.gone, .beganAfterLift), (.gone, .deviceRemoved):
            return (.gone, .none)
        case (_, .unbound):
            return (.gone, .none)
        case (.pending, .deliver(let finger, let taken, let holdsBegan, _, let fingerDone, _)):
            if taken { return (.gone, .none) }
            if holdsBegan { return (.pending, .none) }
            return (fingerDone || finger == .ended || finger == .cancelled ? .endHeld : .active, .deliver(.began))
        case (.active, .deliver(let finger, let taken, _, let holdsEnded, _, _)):
            if taken { return (.gone, .cancelByGesture) }
            if finger == .cancelled { return (.gone, .cancel) }
            if finger == .ended { return holdsEnded ? (.endHeld, .deliver(.stationary)) : (.gone, .deliver(.ended)) }
            return (.active, .deliver(finger == .moved ? .moved : .stationary))
        case (.endHeld, .deliver(_, let taken, _, let holdsEnded, _, let ownReason)):
            if taken { return (.gone, .cancelByGesture) }
            if ownReason { return (.gone, .cancel) }
            return holdsEnded ? (.endHeld, .deliver(.stationary)) : (.gone, .deliver(.ended))
        case (.endHeld, .deviceRemoved):
            return (.endHeld, .cancelHeldEnd)
        case (.pending, .deviceRemoved(let fingerDone)):
            return fingerDone ? (.gone, .settle) : (.pending, .none)
        case (.active, .deviceRemoved):
            return (.active, .none)
        case (.endHeld, .beganAfterLift(let holdsEnded, let ownReason)):
            if holdsEnded { return (.endHeld, .none) }
            return (.gone, ownReason ? .cancel : .deliver(.ended))
        case (.pending, .beganAfterLift), (.active, .beganAfterLift):
            return (state, .none)
        }
    }
}
