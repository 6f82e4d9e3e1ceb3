/// VoiceOver's touch gestures (interface.md's table) as one state machine per output: its state
/// an enum with each case's data, `ReaderGesture.next` its only transition, returning the
/// actions the screen reader carries out (Engine+ScreenReader.swift). Every finger of the
/// output that lands while the reader is on is fed here; a finger passing through (double tap
/// and hold) is fed too, but its contact goes on to the views. Its table is
/// ReaderGestureTableTests; its figures are ReaderTimings.
///
/// A *stroke* is the fingers of one gesture, from the first touch-down to the last lift: it is
/// decided when they all lift (a tap, a swipe, a scrub), unless one finger, alone, starts to
/// explore (it moved past the tap slop without flicking, or stayed down past a tap's length),
/// or, as the second touch of a double tap, is held still and passes through. A tap waits for
/// the next stroke (`waiting`): a second tap within the double-tap interval activates; else the
/// first one moves the focus, once the interval is over. So the first tap of a double tap does
/// not move the focus: a double tap anywhere activates what was focused before it.

/// What the screen reader does for a gesture.
public enum ReaderAction: Equatable, Sendable {
    /// Focus the element under this point and read it, even if it is the focused one (a new
    /// touch or a tap reads again; nothing there: the focus stays).
    case focus(at: Point)
    /// An exploring finger moved here: focus and read the element under it if it is another.
    case follow(at: Point)
    /// Activate the focused element (one-finger double tap).
    case activate
    /// Activate the element under this point (split tap: under the exploring finger).
    case activateUnder(Point)
    /// The next / previous element in reading order (one-finger swipe right / left).
    case next, previous
    /// Increment (up) or decrement the focused element if it is adjustable.
    case adjust(up: Bool)
    /// Pause or resume speech (two-finger tap).
    case toggleSpeech
    /// Read every element: from the first (two-finger swipe up) or from the focused one (down).
    case readAll(fromTop: Bool)
    /// Scroll the focused element's scroll view by a page (three-finger swipe, this way).
    case scrollPage(GestureSettings.Direction)
    case escape, magicTap
    /// This contact goes to its view as usual from here until it lifts (double tap and hold).
    case passThrough(ContactKey, Point)
}

public enum ReaderInput: Equatable, Sendable {
    case down(ContactKey, Point, Int64)
    case move(ContactKey, Point, Int64)
    case up(ContactKey, Point, Int64)
    /// The contact was cancelled (its device went, a palm, a resync): no gesture of it counts.
    case cancel(ContactKey, Int64)
    /// The deadline (`ReaderGesture.deadline`) has come.
    case timer(Int64)
}

public struct ReaderFinger: Equatable, Sendable {
    public var key: ContactKey
    public var start: Point
    public var point: Point
    public var began: Int64
    var moved: Double { start.distance(to: point) }
}

/// A finished tap waiting for what comes next.
public enum ReaderPending: Equatable, Sendable {
    /// One finger tapped here, then: a second tap activates, anything else focuses here first.
    case tap(Point, Int64)
    /// Two fingers tapped, then: another two-finger tap is the magic tap, anything else pauses
    /// or resumes speech first.
    case twoFingerTap(Int64)

    var time: Int64 {
        switch self {
        case .tap(_, let t), .twoFingerTap(let t): return t
        }
    }

    /// What it means when nothing that completes it follows.
    var alone: ReaderAction {
        switch self {
        case .tap(let p, _): return .focus(at: p)
        case .twoFingerTap: return .toggleSpeech
        }
    }
}

/// The back-and-forth of a scrub: legs of the fingers' mean horizontal movement.
public struct ScrubTracker: Equatable, Sendable {
    public var legs = 0
    var direction = 0.0
    var extreme = 0.0

    mutating func track(_ x: Double, leg: Double) {
        if direction == 0 {
            if abs(x) >= leg { direction = x > 0 ? 1 : -1; legs = 1; extreme = x }
            return
        }
        if (x - extreme) * direction > 0 { extreme = x; return }
        if abs(x - extreme) >= leg { legs += 1; direction = -direction; extreme = x }
    }
}

public struct ReaderStroke: Equatable, Sendable {
    /// Fingers down, in the order they landed, and those that lifted.
    public var fingers: [ReaderFinger]
    public var lifted: [ReaderFinger] = []
    public var began: Int64
    /// The tap before it, waiting.
    public var after: ReaderPending?
    /// Its one finger covered the flick distance in the flick time: a swipe if it lifts in time.
    public var flick = false
    public var scrub = ScrubTracker()

    init(_ f: ReaderFinger, after: ReaderPending?) {
        fingers = [f]
        began = f.began
        self.after = after
    }

    public var count: Int { fingers.count + lifted.count }
    var keys: Set<ContactKey> { Set(fingers.map(\.key)) }

    /// The fingers' mean movement from where each landed.
    var meanMove: Point {
        let all = fingers + lifted
        var x = 0.0, y = 0.0
        for f in all { x += f.point.x - f.start.x; y += f.point.y - f.start.y }
        return Point(x / Double(all.count), y / Double(all.count))
    }
}

public struct ReaderExploring: Equatable, Sendable {
    public var key: ContactKey
    public var point: Point
    /// A second finger tapping while this one explores (split tap).
    public var tapper: ReaderFinger?
}

public enum ReaderGesture: Equatable, Sendable {
    case idle
    case stroke(ReaderStroke)
    case exploring(ReaderExploring)
    case waiting(ReaderPending)
    /// The contact goes to its view until it lifts; other fingers meanwhile are ignored.
    case passingThrough(ContactKey, others: Set<ContactKey>)
    /// Fingers of a gesture that failed or is over, until they lift.
    case ignoring(Set<ContactKey>)

    /// When `.timer` is due (nil: no timer).
    public func deadline(_ t: ReaderTimings) -> Int64? {
        switch self {
        case .waiting(let p): return p.time + t.doubleTapInterval
        case .stroke(let s):
            guard s.count == 1, let f = s.fingers.first else { return nil }
            if s.flick { return s.began + t.swipeDuration }
            if f.moved > t.tapSlop { return s.began + t.flickTime }
            if case .tap? = s.after { return s.began + t.holdDuration }
            return s.began + t.tapDuration
        case .idle, .exploring, .passingThrough, .ignoring: return nil
        }
    }

    /// The contact passing through to its view, if any.
    public var passingThrough: ContactKey? {
        if case .passingThrough(let k, _) = self { return k }
        return nil
    }

    public static func next(_ s: ReaderGesture, _ input: ReaderInput, _ t: ReaderTimings) -> (ReaderGesture, [ReaderAction]) {
        switch s {
        case .idle:
            if case .down(let k, let p, let time) = input { return (.stroke(ReaderStroke(ReaderFinger(key: k, start: p, point: p, began: time), after: nil)), []) }
            return (.idle, [])
        case .waiting(let pending):
            switch input {
            case .down(let k, let p, let time):
                return (.stroke(ReaderStroke(ReaderFinger(key: k, start: p, point: p, began: time), after: pending)), [])
            case .timer(let now):
                return now >= pending.time + t.doubleTapInterval ? (.idle, [pending.alone]) : (s, [])
            case .move, .up, .cancel:
                return (s, [])
            }
        case .stroke(let st):
            return strokeNext(st, input, t)
        case .exploring(let e):
            return exploringNext(e, input, t)
        case .passingThrough(let k, var others):
            switch input {
            case .down(let o, _, _): others.insert(o)
            case .up(let o, _, _), .cancel(let o, _):
                if o == k { return (others.isEmpty ? .idle : .ignoring(others), []) }
                others.remove(o)
            case .move, .timer: break
            }
            return (.passingThrough(k, others: others), [])
        case .ignoring(var keys):
            switch input {
            case .down(let k, _, _): keys.insert(k)
            case .up(let k, _, _), .cancel(let k, _): keys.remove(k)
            case .move, .timer: break
            }
            return (keys.isEmpty ? .idle : .ignoring(keys), [])
        }
    }

    /// One finger starts exploring: what was pending is superseded (a waiting tap's focus
    /// would be replaced at once), except a two-finger tap's pause, which is said first.
    static func explore(_ st: ReaderStroke, _ f: ReaderFinger) -> (ReaderGesture, [ReaderAction]) {
        var actions: [ReaderAction] = []
        if case .twoFingerTap? = st.after { actions.append(.toggleSpeech) }
        return (.exploring(ReaderExploring(key: f.key, point: f.point, tapper: nil)), actions + [.focus(at: f.point)])
    }

    static func strokeNext(_ st: ReaderStroke, _ input: ReaderInput, _ t: ReaderTimings) -> (ReaderGesture, [ReaderAction]) {
        var st = st
        let pending = st.after.map { [$0.alone] } ?? []
        switch input {
        case .down(let k, let p, let time):
            // A fourth finger, a finger after one lifted, or one too late: the gesture fails
            // (a waiting tap means what it would have alone).
            if !st.lifted.isEmpty || st.count >= 3 || time - st.began > t.fingerWindow {
                return (.ignoring(st.keys.union([k])), pending)
            }
            st.fingers.append(ReaderFinger(key: k, start: p, point: p, began: time))
            return (.stroke(st), [])
        case .move(let k, let p, let time):
            guard let i = st.fingers.firstIndex(where: { $0.key == k }) else { return (.stroke(st), []) }
            st.fingers[i].point = p
            if st.count >= 2 {
                st.scrub.track(st.meanMove.x, leg: t.scrubLeg)
                return (.stroke(st), [])
            }
            let f = st.fingers[i]
            if !st.flick && f.moved >= t.flickDistance && time - st.began <= t.flickTime { st.flick = true }
            if st.flick {
                return time - st.began > t.swipeDuration ? explore(st, f) : (.stroke(st), [])
            }
            if f.moved > t.tapSlop && time - st.began > t.flickTime { return explore(st, f) }
            return (.stroke(st), [])
        case .up(let k, let p, let time):
            guard let i = st.fingers.firstIndex(where: { $0.key == k }) else { return (.stroke(st), []) }
            st.fingers[i].point = p
            if st.count == 1 && !st.flick && st.fingers[i].moved >= t.flickDistance && time - st.began <= t.flickTime { st.flick = true }
            st.lifted.append(st.fingers.remove(at: i))
            if st.count >= 2 { st.scrub.track(st.meanMove.x, leg: t.scrubLeg) }
            return st.fingers.isEmpty ? decide(st, time, t) : (.stroke(st), [])
        case .cancel(let k, _):
            let rest = st.keys.subtracting([k])
            return (rest.isEmpty ? .idle : .ignoring(rest), pending)
        case .timer(let now):
            guard let due = ReaderGesture.stroke(st).deadline(t), now >= due, let f = st.fingers.first else { return (.stroke(st), []) }
            if case .tap? = st.after, !st.flick, f.moved <= t.tapSlop {
                return (.passingThrough(f.key, others: []), [.passThrough(f.key, f.point)])
            }
            return explore(st, f)
        }
    }

    /// Every finger of the stroke lifted: what it was.
    static func decide(_ st: ReaderStroke, _ time: Int64, _ t: ReaderTimings) -> (ReaderGesture, [ReaderAction]) {
        let pending = st.after.map { [$0.alone] } ?? []
        let duration = time - st.began
        let still = st.lifted.allSatisfy { $0.moved <= t.tapSlop }
        let move = st.meanMove
        let swipe = duration <= t.swipeDuration && move.distance(to: .zero) >= t.flickDistance ? direction(move, t) : nil
        switch st.count {
        case 1:
            let f = st.lifted[0]
            if st.flick {
                guard duration <= t.swipeDuration, let d = direction(f.point - f.start, t) else { return (.idle, pending) }
                let a: ReaderAction
                switch d {
                case .right: a = .next
                case .left: a = .previous
                case .up: a = .adjust(up: true)
                case .down: a = .adjust(up: false)
                }
                return (.idle, pending + [a])
            }
            guard still else { return (.idle, pending + [.focus(at: f.point)]) }
            if case .tap? = st.after { return (.idle, [.activate]) }
            guard duration <= t.tapDuration else { return (.idle, pending + [.focus(at: f.point)]) }
            return (.waiting(.tap(f.point, time)), pending)
        case 2:
            if still && duration <= t.tapDuration {
                if case .twoFingerTap? = st.after { return (.idle, [.magicTap]) }
                return (.waiting(.twoFingerTap(time)), pending)
            }
            if st.scrub.legs >= t.scrubLegs && duration <= t.scrubDuration { return (.idle, pending + [.escape]) }
            switch swipe {
            case .up?: return (.idle, pending + [.readAll(fromTop: true)])
            case .down?: return (.idle, pending + [.readAll(fromTop: false)])
            default: return (.idle, pending)
            }
        default:
            return (.idle, pending + (swipe.map { [.scrollPage($0)] } ?? []))
        }
    }

    static func exploringNext(_ e: ReaderExploring, _ input: ReaderInput, _ t: ReaderTimings) -> (ReaderGesture, [ReaderAction]) {
        var e = e
        switch input {
        case .down(let k, let p, let time):
            // A third finger: the gesture is over.
            if let other = e.tapper { return (.ignoring([e.key, k, other.key]), []) }
            e.tapper = ReaderFinger(key: k, start: p, point: p, began: time)
            return (.exploring(e), [])
        case .move(let k, let p, _):
            if k == e.key {
                e.point = p
                return (.exploring(e), [.follow(at: p)])
            }
            if k == e.tapper?.key { e.tapper?.point = p }
            return (.exploring(e), [])
        case .up(let k, let p, let time):
            if k == e.key { return (e.tapper.map { .ignoring([$0.key]) } ?? .idle, []) }
            guard var tap = e.tapper, tap.key == k else { return (.exploring(e), []) }
            tap.point = p
            e.tapper = nil
            let tapped = time - tap.began <= t.tapDuration && tap.moved <= t.tapSlop
            return (.exploring(e), tapped ? [.activateUnder(e.point)] : [])
        case .cancel(let k, _):
            if k == e.key { return (e.tapper.map { .ignoring([$0.key]) } ?? .idle, []) }
            if k == e.tapper?.key { e.tapper = nil }
            return (.exploring(e), [])
        case .timer:
            return (.exploring(e), [])
        }
    }

    /// The axis a movement is along (`directness` times longer than across), else nil.
    static func direction(_ d: Point, _ t: ReaderTimings) -> GestureSettings.Direction? {
        let ax = abs(d.x), ay = abs(d.y)
        if ax > 0 && ax >= t.directness * ay { return d.x > 0 ? .right : .left }
        if ay > 0 && ay >= t.directness * ax { return d.y > 0 ? .down : .up }
        return nil
    }
}
