/// One slot's contact life, as one state machine (issue 41: it was nine loose fields written
/// from seven places). Between frames a slot is `empty` or has a contact `down`, delivered or
/// suppressed; within a frame (events before SYN_REPORT) it may also be `changed`,
/// `beginning`, `lifting`, `replaced` or `replacedAndLifted`, which the flush resolves.
/// `SlotLife.next` is the only transition: each input returns the new state and what to do
/// (`Action`: the issue to report, the contact changes to emit), and `ContactTracker`, the
/// only writer of a slot's life, applies it.
///
/// What the rules are (Documentation/input/multi-touch-protocol.rst, and libinput): a tracking
/// id ≥ 0 puts a contact down on the slot, -1 lifts it; a new id on a slot whose contact is
/// still down replaces it (touchd cancels the old one, reason `resync`: the kernel lost its
/// lift); events after SYN_DROPPED are discarded up to the next SYN_REPORT; a contact whose
/// tool is MT_TOOL_PALM is never delivered (cancelled, reason `palm`, when it turns into one).
/// Single-touch devices say down and up with BTN_TOUCH on their one slot.
///
/// The slot's axes (`ContactTracker.Slot.sample`) are not part of the state: they are the
/// kernel's slot values, which outlive a contact (a new contact that sends no x keeps the last
/// one), change on every axis event in every state, and are read, not decided, by the
/// transitions; so they are passed to `next`. The sample last reported is the delivered
/// contact's own and lives in its case (`Contact.delivered`).
enum SlotLife: Equatable, Sendable {
    /// How the contact that was down when the frame began is known to clients.
    enum Contact: Equatable, Sendable {
        /// Its began was delivered; `reported` is the sample last delivered (began or moved): a
        /// frame moves it only when its location or pressure differs from it (UIKit's
        /// touchesMoved is about location and force; a contact that only changes size has not
        /// moved).
        case delivered(reported: ContactSample)
        /// Followed until it lifts, never delivered (again).
        case suppressed(Suppression)
    }

    /// Why a contact is followed but not delivered.
    enum Suppression: Equatable, Sendable {
        /// Began as a palm (MT_TOOL_PALM), or turned into one (cancelled, reason `palm`).
        case palm
        /// Already down when the device was opened: nobody could be told where it began.
        case downAtOpen
        /// Its deliveries were cancelled with this reason (a calibration took the device).
        case taken(CancelReason)
    }

    /// No contact.
    case empty
    /// A contact down (`id`: the kernel's tracking id; -1 when a lift was discarded with a
    /// SYN_DROPPED frame).
    case down(id: Int32, Contact)
    /// In a frame: a delivered contact whose axes changed; the flush moves it, or finds it a palm.
    case changed(id: Int32, reported: ContactSample)
    /// In a frame: a contact down on an empty slot; the flush delivers its began (or
    /// suppresses it, a palm).
    case beginning(id: Int32)
    /// In a frame: the contact lifted; the flush ends it (reason `resync` while libevdev's
    /// resync events are replayed). `restart`: a new contact down after the lift in the same
    /// frame, which begins after the end.
    case lifting(Contact, restart: Int32?)
    /// In a frame: a new tracking id came while the contact was down (`downOnLiveSlot`); the
    /// flush cancels the old one (reason `resync`, with `old`, the slot's sample when it was
    /// replaced) and begins the new one, `by` (nil: the replacement lifted in this frame too).
    case replaced(Contact, old: ContactSample, by: Int32?)
    /// In a frame: replaced, the replacement lifted, and a lift came once more; the flush
    /// cancels the old contact as `replaced` does and then ends the slot's sample even when
    /// the old contact was suppressed (so the code has always done: a second lift after a
    /// replacement is taken as the end of a contact, not as `upWithoutDown`). `restart` as in
    /// `lifting`.
    case replacedAndLifted(Contact, old: ContactSample, restart: Int32?)

    /// What happened to the slot.
    enum Input: Equatable, Sendable {
        /// ABS_MT_TRACKING_ID: ≥ 0 a contact down, negative a lift.
        case trackingID(Int32)
        /// BTN_TOUCH of a single-touch device: down or up.
        case touch(down: Bool)
        /// One of the slot's axes (x, y, pressure, major, tool) changed.
        case axis
        /// SYN_REPORT: the frame is complete. `resyncing`: libevdev's resync events after a
        /// SYN_DROPPED are being replayed, so a contact that ends now vanished unseen.
        case report(resyncing: Bool)
        /// The SYN_REPORT that closes a SYN_DROPPED: the frame's events are discarded.
        case discard
        /// The device is gone or the daemon stops: every contact down ends with this reason.
        case cancelAll(CancelReason)
        /// Contacts down go on being followed, never delivered again (a calibration).
        case suppress(CancelReason)
        /// The device was just opened with a contact already down on the slot (the tracker is
        /// new: whatever the slot was, it is now that contact, suppressed).
        case downAtOpen(id: Int32)
    }

    /// A transition's trouble with the kernel's events (the tracker adds slot and time).
    enum Issue: Equatable, Sendable {
        case downOnLiveSlot(oldID: Int32, newID: Int32)
        case upWithoutDown
        case zeroLengthContact
    }

    /// One contact change for the slot.
    struct Emit: Equatable, Sendable {
        var kind: ContactChangeKind
        var sample: ContactSample
    }

    /// What to do: an issue to report and up to three changes to emit, in order. A fixed-size
    /// value, so a transition builds no array per event.
    struct Action: Equatable, Sendable {
        var issue: Issue?
        var first: Emit?
        var second: Emit?
        var third: Emit?

        static let none = Action()
        static func report(_ issue: Issue) -> Action { Action(issue: issue) }
        static func emit(_ kind: ContactChangeKind, _ sample: ContactSample) -> Action { Action.none.then(kind, sample) }

        /// This action, and then `kind` emitted with `sample`.
        func then(_ kind: ContactChangeKind, _ sample: ContactSample) -> Action {
            var a = self
            let e = Emit(kind: kind, sample: sample)
            if a.first == nil { a.first = e } else if a.second == nil { a.second = e } else { a.third = e }
            return a
        }
    }

    /// The contact down when the frame began, if any (the tracker's "live" slots).
    var contact: Contact? {
        switch self {
        case .empty, .beginning: return nil
        case .down(_, let c), .lifting(let c, _), .replaced(let c, _, _), .replacedAndLifted(let c, _, _): return c
        case .changed(_, let r): return .delivered(reported: r)
        }
    }

    /// The sample last delivered of a contact down and delivered.
    var reported: ContactSample? {
        if case .delivered(let r)? = contact { return r }
        return nil
    }

    /// The only transition. `sample` is the slot's axes now.
    static func next(_ state: SlotLife, _ input: Input, sample: ContactSample) -> (SlotLife, Action) {
        switch input {
        case .trackingID(let id) where id >= 0: return down(state, id, sample: sample)
        case .trackingID: return up(state)
        case .touch(let down): return touch(state, down: down)
        case .axis:
            if case .down(let id, .delivered(let r)) = state { return (.changed(id: id, reported: r), .none) }
            return (state, .none)
        case .report(let resyncing): return flush(state, sample: sample, resyncing: resyncing)
        case .discard: return (discard(state), .none)
        case .cancelAll(let reason):
            guard let c = state.contact else { return (state, .none) }   // a contact beginning stays
            if case .delivered = c { return (.empty, .emit(.cancelled(reason), sample)) }
            return (.empty, .none)
        case .suppress(let reason):
            guard case .delivered? = state.contact else { return (state, .none) }
            let taken = Contact.suppressed(.taken(reason))
            let next: SlotLife
            switch state {
            case .down(let id, _), .changed(let id, _): next = .down(id: id, taken)
            case .lifting(_, let r): next = .lifting(taken, restart: r)
            case .replaced(_, let old, let by): next = .replaced(taken, old: old, by: by)
            case .replacedAndLifted(_, let old, let r): next = .replacedAndLifted(taken, old: old, restart: r)
            case .empty, .beginning: next = state
            }
            return (next, .emit(.cancelled(reason), sample))
        case .downAtOpen(let id):
            return (.down(id: id, .suppressed(.downAtOpen)), .none)
        }
    }
}

extension SlotLife {
    /// A tracking id ≥ 0. A contact down (or beginning) that gets its own id again is
    /// unchanged; another id replaces it. After a lift in the same frame, it restarts.
    static func down(_ state: SlotLife, _ id: Int32, sample: ContactSample) -> (SlotLife, Action) {
        switch state {
        case .empty:
            return (.beginning(id: id), .none)
        case .beginning(let old):
            // The unflushed contact never existed for anyone: it just restarts.
            if id == old { return (state, .none) }
            return (.beginning(id: id), .report(.downOnLiveSlot(oldID: old, newID: id)))
        case .down(let old, let c):
            if id == old { return (state, .none) }
            return (.replaced(c, old: sample, by: id), .report(.downOnLiveSlot(oldID: old, newID: id)))
        case .changed(let old, let r):
            if id == old { return (state, .none) }
            return (.replaced(.delivered(reported: r), old: sample, by: id), .report(.downOnLiveSlot(oldID: old, newID: id)))
        case .replaced(let c, let old, let by):
            if id == by { return (state, .none) }
            // The slot's sample now is what the cancel of the first contact will carry.
            return (.replaced(c, old: sample, by: id), .report(.downOnLiveSlot(oldID: by ?? -1, newID: id)))
        case .lifting(let c, _):
            return (.lifting(c, restart: id), .none)
        case .replacedAndLifted(let c, let old, _):
            return (.replacedAndLifted(c, old: old, restart: id), .none)
        }
    }

    /// A tracking id of -1.
    static func up(_ state: SlotLife) -> (SlotLife, Action) {
        switch state {
        case .empty:
            return (state, .report(.upWithoutDown))
        case .beginning:
            return (.empty, .report(.zeroLengthContact))
        case .down(_, let c):
            return (.lifting(c, restart: nil), .none)
        case .changed(_, let r):
            return (.lifting(.delivered(reported: r), restart: nil), .none)
        case .lifting(let c, let restart):
            // Began in this frame after a lift and lifted in it too.
            if restart != nil { return (.lifting(c, restart: nil), .report(.zeroLengthContact)) }
            return (state, .report(.upWithoutDown))
        case .replaced(let c, let old, let by):
            // The replacement lifts in the frame it came: only the old contact's cancel stays.
            if by != nil { return (.replaced(c, old: old, by: nil), .none) }
            return (.replacedAndLifted(c, old: old, restart: nil), .none)
        case .replacedAndLifted(let c, let old, let restart):
            if restart != nil { return (.replacedAndLifted(c, old: old, restart: nil), .none) }
            return (state, .report(.upWithoutDown))
        }
    }

    /// BTN_TOUCH of a single-touch device (slot 0; its tracking id means nothing). A repeated
    /// down is nothing new; a repeated up after a lift is one lift.
    static func touch(_ state: SlotLife, down: Bool) -> (SlotLife, Action) {
        if down {
            switch state {
            case .empty: return (.beginning(id: -1), .none)
            case .lifting(let c, let r): return (.lifting(c, restart: r ?? -1), .none)
            case .replacedAndLifted(let c, let old, let r): return (.replacedAndLifted(c, old: old, restart: r ?? -1), .none)
            case .beginning, .down, .changed, .replaced: return (state, .none)
            }
        }
        switch state {
        case .empty: return (state, .report(.upWithoutDown))
        case .beginning: return (.empty, .report(.zeroLengthContact))
        case .down(_, let c): return (.lifting(c, restart: nil), .none)
        case .changed(_, let r): return (.lifting(.delivered(reported: r), restart: nil), .none)
        case .lifting(let c, let r):
            return r == nil ? (state, .none) : (.lifting(c, restart: nil), .report(.zeroLengthContact))
        case .replaced(let c, let old, let by): return (.replacedAndLifted(c, old: old, restart: by), .none)
        case .replacedAndLifted(let c, let old, let r):
            return r == nil ? (state, .none) : (.replacedAndLifted(c, old: old, restart: nil), .report(.zeroLengthContact))
        }
    }

    /// SYN_REPORT: the frame's changes, in order: the replaced contact's cancel, the lifted
    /// one's end, the new one's began (or the one down's move, or its turning into a palm).
    static func flush(_ state: SlotLife, sample: ContactSample, resyncing: Bool) -> (SlotLife, Action) {
        let end: ContactChangeKind = resyncing ? .cancelled(.resync) : .ended
        /// The frame's new contact, after what `before` says.
        func begin(_ id: Int32?, after before: Action) -> (SlotLife, Action) {
            guard let id else { return (.empty, before) }
            if sample.tool == MTTool.palm { return (.down(id: id, .suppressed(.palm)), before) }   // never delivered
            return (.down(id: id, .delivered(reported: sample)), before.then(.began, sample))
        }
        switch state {
        case .empty, .down:
            return (state, .none)
        case .beginning(let id):
            return begin(id, after: .none)
        case .changed(let id, let r):
            if sample.tool == MTTool.palm { return (.down(id: id, .suppressed(.palm)), .emit(.cancelled(.palm), sample)) }
            if sample.x != r.x || sample.y != r.y || sample.pressure != r.pressure {
                return (.down(id: id, .delivered(reported: sample)), .emit(.moved, sample))
            }
            return (.down(id: id, .delivered(reported: r)), .none)
        case .lifting(let c, let restart):
            return begin(restart, after: c.isDelivered ? .emit(end, sample) : .none)
        case .replaced(let c, let old, let by):
            return begin(by, after: c.isDelivered ? .emit(.cancelled(.resync), old) : .none)
        case .replacedAndLifted(let c, let old, let restart):
            let cancel: Action = c.isDelivered ? .emit(.cancelled(.resync), old) : .none
            return begin(restart, after: cancel.then(end, sample))
        }
    }

    /// The SYN_REPORT after SYN_DROPPED: what the frame did is forgotten; a contact down stays
    /// down with the frame's last tracking id (-1 if it lifted), a contact beginning never was.
    static func discard(_ state: SlotLife) -> SlotLife {
        switch state {
        case .empty, .beginning: return .empty
        case .down: return state
        case .changed(let id, let r): return .down(id: id, .delivered(reported: r))
        case .lifting(let c, let restart): return .down(id: restart ?? -1, c)
        case .replaced(let c, _, let by): return .down(id: by ?? -1, c)
        case .replacedAndLifted(let c, _, let restart): return .down(id: restart ?? -1, c)
        }
    }
}

extension SlotLife.Contact {
    var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }
}
