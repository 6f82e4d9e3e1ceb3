/// iOS's Touch Accommodations (Settings › Accessibility › Touch › Touch Accommodations), per
/// output or device (`accommodations`, docs/config.md): a stage between the device's filter
/// and everything after it (the session, system gestures, the screen reader, hit-testing).
///
/// - Hold Duration: a contact becomes a touch only once it has stayed down `holdDuration`;
///   one that lifts sooner is never delivered. It begins where the finger is then.
/// - Ignore Repeat: a contact that comes down less than `ignoreRepeat` after the last
///   delivered touch of the device lifted is ignored until it lifts (a tremor's recoil).
/// - Tap Assistance: a contact that lifts within `tapAssistanceDelay` of becoming a touch is
///   a tap at one place — where it came down (`initial`) or where it lifted (`final`) —
///   delivered at the lift; one held longer begins, where it is at that moment, and moves as
///   usual (a drag, a swipe).
///
/// Apple describes these in its patent "Touch accommodation options" (US 9,961,239 and
/// 11,470,225: hold-duration criteria, tap-assistance criteria with a tap-timeout after which
/// the location at the timeout is used, recoil contacts); the numbers' ranges are touchd's.

public struct AccommodationSettings: Sendable, Equatable {
    public enum TapAssistance: String, Sendable, Equatable { case initial, final }
    /// Microseconds; nil: off.
    public var holdDuration: Int64?
    public var ignoreRepeat: Int64?
    public var tapAssistance: TapAssistance?
    /// How long a contact may last and still be a tap (iOS: Tap Assistance Gesture Delay).
    public var tapAssistanceDelay: Int64 = AccommodationSettings.defaultTapAssistanceDelay
    /// 0.5 s: UIKit's long press (minimumPressDuration): a contact held longer is no tap.
    public static let defaultTapAssistanceDelay: Int64 = 500_000
    /// Every time in seconds, 0.05 to 4 (the config checks it).
    public static let secondsRange: ClosedRange<Double> = 0.05...4
    public init(holdDuration: Int64? = nil, ignoreRepeat: Int64? = nil, tapAssistance: TapAssistance? = nil,
                tapAssistanceDelay: Int64 = AccommodationSettings.defaultTapAssistanceDelay) {
        self.holdDuration = holdDuration
        self.ignoreRepeat = ignoreRepeat
        self.tapAssistance = tapAssistance
        self.tapAssistanceDelay = tapAssistanceDelay
    }
    /// Nothing on: the stage would change nothing.
    public var isEmpty: Bool { holdDuration == nil && ignoreRepeat == nil && tapAssistance == nil }
}

/// One contact's state in the stage. No contact on the slot is `.up`.
public enum AccommodationState: Sendable, Equatable {
    case up
    /// Hold Duration counting since `since`; nothing delivered yet.
    case holding(since: Int64, first: ContactSample, latest: ContactSample)
    /// Tap Assistance deciding since `since`: a tap if it lifts before the delay, else a touch.
    case assisting(since: Int64, first: ContactSample, latest: ContactSample)
    /// Delivered: its changes go on as they come.
    case passing
    /// Refused (a repeat, or settings changed under it): nothing of it goes on until it lifts.
    case ignored
}

public enum AccommodationInput: Sendable, Equatable {
    /// A contact came down; `isRepeat` is true when the device's last delivered touch lifted
    /// less than `ignoreRepeat` ago.
    case down(ContactSample, time: Int64, isRepeat: Bool)
    case move(ContactSample)
    case lift(ContactSample)
    case cancel(CancelReason, ContactSample)
    /// The stage's clock reached `time` (a timer).
    case due(Int64)
}

public enum AccommodationAction: Sendable, Equatable {
    case begin(ContactSample)
    case move(ContactSample)
    case end(ContactSample)
    case cancel(CancelReason, ContactSample)
    /// A delivered touch lifted: the Ignore Repeat window starts now.
    case lifted
}

extension AccommodationState {
    /// The one transition: what a contact in this state does with an input, under `s`.
    public static func next(_ state: AccommodationState, _ input: AccommodationInput,
                            _ s: AccommodationSettings) -> (AccommodationState, [AccommodationAction]) {
        switch (state, input) {
        case let (.up, .down(sample, time, isRepeat)):
            if isRepeat && s.ignoreRepeat != nil { return (.ignored, []) }
            if s.holdDuration != nil { return (.holding(since: time, first: sample, latest: sample), []) }
            if s.tapAssistance != nil { return (.assisting(since: time, first: sample, latest: sample), []) }
            return (.passing, [.begin(sample)])
        case (.up, _):
            return (.up, [])

        case let (.holding(since, first, _), .move(sample)):
            return (.holding(since: since, first: first, latest: sample), [])
        case (.holding, .lift), (.holding, .cancel):
            return (.up, [])                            // too short: never a touch
        case let (.holding(since, first, latest), .due(time)):
            guard let hold = s.holdDuration, time >= since + hold else { return (state, []) }
            if s.tapAssistance != nil { return (.assisting(since: since + hold, first: first, latest: latest), []) }
            return (.passing, [.begin(latest)])
        case (.holding, .down):
            return (state, [])

        case let (.assisting(since, first, _), .move(sample)):
            return (.assisting(since: since, first: first, latest: sample), [])
        case let (.assisting(_, first, _), .lift(sample)):
            let at = s.tapAssistance == .initial ? first : sample
            return (.up, [.begin(at), .end(at), .lifted])
        case (.assisting, .cancel):
            return (.up, [])
        case let (.assisting(since, _, latest), .due(time)):
            guard time >= since + s.tapAssistanceDelay else { return (state, []) }
            return (.passing, [.begin(latest)])
        case (.assisting, .down):
            return (state, [])

        case let (.passing, .move(sample)):
            return (.passing, [.move(sample)])
        case let (.passing, .lift(sample)):
            return (.up, [.end(sample), .lifted])
        case let (.passing, .cancel(reason, sample)):
            return (.up, [.cancel(reason, sample)])
        case (.passing, .down), (.passing, .due):
            return (.passing, [])

        case (.ignored, .lift), (.ignored, .cancel):
            return (.up, [])
        case (.ignored, _):
            return (.ignored, [])
        }
    }

    /// When this state's timer is due, under `s`.
    public func deadline(_ s: AccommodationSettings) -> Int64? {
        switch self {
        case let .holding(since, _, _): return s.holdDuration.map { since + $0 }
        case let .assisting(since, _, _): return since + s.tapAssistanceDelay
        case .up, .passing, .ignored: return nil
        }
    }

    /// What the state becomes when the settings change under it: a contact not delivered yet
    /// is refused until it lifts (its timers meant other settings); a delivered one goes on.
    var reconfigured: AccommodationState {
        switch self {
        case .holding, .assisting: return .ignored
        case .up, .passing, .ignored: return self
        }
    }
}

/// One device's accommodations: each contact's state by slot, and when its last delivered
/// touch lifted. Frames of conditioned changes go in; the frames that go on come out (none,
/// the same, or — for a tap assistance's tap — a began and an ended of one slot as two frames
/// of one time, as the hardware would have sent them). Pure: the engine calls it.
public struct AccommodationStage: Sendable {
    public private(set) var settings: AccommodationSettings
    /// Contacts not `.up`, by slot.
    public private(set) var contacts: [Int: AccommodationState] = [:]
    /// When the device's last delivered touch lifted (Ignore Repeat).
    public private(set) var lastLift: Int64?

    public init(settings: AccommodationSettings) { self.settings = settings }

    /// New settings (a reload): contacts being decided are refused until they lift.
    public mutating func reconfigure(_ new: AccommodationSettings) {
        guard new != settings else { return }
        settings = new
        for (slot, state) in contacts { contacts[slot] = state.reconfigured }
    }

    /// No contact is followed: the stage may go.
    public var isIdle: Bool { contacts.isEmpty }

    /// The earliest contact's timer (asked before every event: no array made).
    public var nextDeadline: Int64? {
        var soonest: Int64?
        for state in contacts.values {
            if let d = state.deadline(settings), soonest.map({ d < $0 }) ?? true { soonest = d }
        }
        return soonest
    }

    /// A frame of conditioned changes at `time`, under `settings` (new ones: `reconfigure`).
    public mutating func frame(_ changes: [ContactChange], time: Int64, settings new: AccommodationSettings,
                               into frames: inout [[ContactChange]]) {
        reconfigure(new)
        frame(changes, time: time, into: &frames)
    }

    /// A frame of conditioned changes at `time`.
    public mutating func frame(_ changes: [ContactChange], time: Int64, into frames: inout [[ContactChange]]) {
        var out = FrameBuilder()
        for ch in changes {
            let input: AccommodationInput
            switch ch.kind {
            case .began:
                let isRepeat = settings.ignoreRepeat.map { r in lastLift.map { time - $0 < r } ?? false } ?? false
                input = .down(ch.sample, time: time, isRepeat: isRepeat)
            case .moved: input = .move(ch.sample)
            case .ended: input = .lift(ch.sample)
            case let .cancelled(reason): input = .cancel(reason, ch.sample)
            }
            step(slot: ch.slot, input, time: time, into: &out)
        }
        out.finish(into: &frames)
    }

    /// The timers due at `due` (the engine calls it at each deadline): contacts in slot order.
    public mutating func expire(due: Int64, into frames: inout [[ContactChange]]) {
        var out = FrameBuilder()
        for slot in contacts.keys.sorted() {
            guard let d = contacts[slot]?.deadline(settings), d <= due else { continue }
            step(slot: slot, .due(due), time: due, into: &out)
        }
        out.finish(into: &frames)
    }

    private mutating func step(slot: Int, _ input: AccommodationInput, time: Int64, into out: inout FrameBuilder) {
        let (state, actions) = AccommodationState.next(contacts[slot] ?? .up, input, settings)
        contacts[slot] = state == .up ? nil : state
        for a in actions {
            switch a {
            case let .begin(s): out.add(ContactChange(slot: slot, kind: .began, sample: s))
            case let .move(s): out.add(ContactChange(slot: slot, kind: .moved, sample: s))
            case let .end(s): out.add(ContactChange(slot: slot, kind: .ended, sample: s))
            case let .cancel(r, s): out.add(ContactChange(slot: slot, kind: .cancelled(r), sample: s))
            case .lifted: lastLift = time
            }
        }
    }

    /// Changes into frames: a slot seen twice starts the next frame.
    private struct FrameBuilder {
        var current: [ContactChange] = []
        var done: [[ContactChange]] = []
        mutating func add(_ ch: ContactChange) {
            if current.contains(where: { $0.slot == ch.slot }) {
                done.append(current)
                current = []
            }
            current.append(ch)
        }
        func finish(into frames: inout [[ContactChange]]) {
            frames += done
            if !current.isEmpty { frames.append(current) }
        }
    }
}
