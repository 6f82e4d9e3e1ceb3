/// One output's kiosk session as a state machine (interface.md, "Kiosk session"): awake, idle
/// after `idle` seconds with no touch on it (or when a client asks), and woken by the next
/// touch — which, with `"wake": "swallow"`, reaches nothing, and neither does any finger that
/// lands while it is down. `SessionMachine.next` is the only transition: it returns what the
/// engine does (publish `idle` or `wake`, hold a contact back from everything after the stage);
/// SessionTransitionTableTests walks every (state, input) pair.

public enum SessionState: Sendable, Equatable {
    /// On: idle at `since + idle` once nothing is down on it and no client keeps it awake.
    case awake(since: Int64)
    /// Off: `idle` was published (the backlight is off).
    case idle
    /// On again, by a touch that was swallowed: it and every finger that lands while one of
    /// them is down reach nothing, until the last of them lifts.
    case waking
}

enum SessionInput: Sendable, Equatable {
    case down(ContactKey, Int64)
    case moved(ContactKey, Int64)
    /// Lifted or cancelled.
    case up(ContactKey, Int64)
    /// The engine's clock reached this time (timers).
    case timer(Int64)
    /// `{"session":{"output":ID,"action":"idle"|"wake"}}`.
    case idleRequested
    case wakeRequested(Int64)
    /// `{"session":{"output":ID,"keepAwake":…}}`, or its client gone (off).
    case keepAwake(client: Int, on: Bool, Int64)
}

/// What a transition asks of the engine: a set, not an array (every contact change of a
/// session's output goes through `next`, and none allocates). `idle` and `wake` are never both.
struct SessionAction: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    /// Publish `idle` (the backlight goes off).
    static let idle = SessionAction(rawValue: 1)
    /// Publish `wake` (the backlight goes on).
    static let wake = SessionAction(rawValue: 2)
    /// This contact change goes no further: no view, recognizer, system gesture, TUIO, re-export.
    static let swallow = SessionAction(rawValue: 4)
}

struct SessionMachine: Sendable, Equatable {
    var settings: SessionSettings
    private(set) var state: SessionState
    /// Contacts down that go on as usual, and those swallowed (down since a wake).
    private(set) var delivered: Set<ContactKey> = []
    private(set) var swallowed: Set<ContactKey> = []
    /// The clients keeping it awake.
    private(set) var keepers: Set<Int> = []

    init(settings: SessionSettings, state: SessionState = .awake(since: 0),
         delivered: Set<ContactKey> = [], swallowed: Set<ContactKey> = [], keepers: Set<Int> = []) {
        self.settings = settings
        self.state = state
        self.delivered = delivered
        self.swallowed = swallowed
        self.keepers = keepers
    }

    /// When it goes idle by itself, if nothing happens before (nil: not by itself now).
    var deadline: Int64? {
        guard case .awake(let since) = state, let idle = settings.idle, delivered.isEmpty, keepers.isEmpty else { return nil }
        return since + idle
    }

    var isIdle: Bool { state == .idle }

    /// On from `time`: waking while swallowed fingers are still down, awake otherwise.
    private mutating func on(_ time: Int64) { state = swallowed.isEmpty ? .awake(since: time) : .waking }

    /// The only transition.
    mutating func next(_ input: SessionInput) -> SessionAction {
        switch input {
        case .down(let k, let t):
            switch state {
            case .awake:
                delivered.insert(k)
                state = .awake(since: t)
                return []
            case .waking:
                swallowed.insert(k)
                return [.swallow]
            case .idle:
                if settings.wake == .deliver {
                    delivered.insert(k)
                    state = .awake(since: t)
                    return [.wake]
                }
                swallowed.insert(k)
                state = .waking
                return [.wake, .swallow]
            }
        case .moved(let k, let t):
            if swallowed.contains(k) { return [.swallow] }
            if case .awake = state { state = .awake(since: t) }
            return []
        case .up(let k, let t):
            if swallowed.remove(k) != nil {
                if state == .waking && swallowed.isEmpty { state = .awake(since: t) }
                return [.swallow]
            }
            delivered.remove(k)
            if case .awake = state { state = .awake(since: t) }
            return []
        case .timer(let t):
            guard let d = deadline, d <= t else { return [] }
            state = .idle
            return [.idle]
        case .idleRequested:
            if state == .idle { return [] }
            state = .idle
            return [.idle]
        case .wakeRequested(let t):
            switch state {
            case .idle:
                on(t)
                return [.wake]
            case .awake:
                state = .awake(since: t)
                return []
            case .waking:
                return []
            }
        case .keepAwake(let client, let on, let t):
            if on {
                keepers.insert(client)
                if state == .idle {
                    self.on(t)
                    return [.wake]
                }
                return []
            }
            // The idle time starts again when the last keeper lets go.
            if keepers.remove(client) != nil, case .awake = state { state = .awake(since: t) }
            return []
        }
    }

    /// Forgets device `d`'s contacts (it went away, or now maps onto another output): none of
    /// them will be heard of here again.
    mutating func forget(device d: DeviceIndex, at time: Int64) {
        delivered = delivered.filter { $0.device != d }
        swallowed = swallowed.filter { $0.device != d }
        if state == .waking && swallowed.isEmpty { state = .awake(since: time) }
    }

    /// The idle time counts from `time` (the engine's first event or timer).
    mutating func start(at time: Int64) {
        if case .awake = state { state = .awake(since: time) }
    }
}
