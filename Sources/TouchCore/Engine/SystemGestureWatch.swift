/// System gestures as state machines (interface.md, "Kiosk session"): each watches the contacts
/// of its output, in the output's points as turned now, and takes nothing from anyone — it never
/// binds, delays, cancels or withholds a touch; it only says when it recognized. One machine per
/// kind — `TapWatch`, `PressWatch`, `EdgeWatch`, each an enum whose cases hold their data — and
/// `SystemGestureWatcher.next` the only transition, returning when it recognized (nil: it did
/// not) — a value, not an array: a frame's every contact goes through every watcher, and none
/// allocates.
/// SystemGestureTransitionTableTests walks every (state, input) pair of each.

enum WatchInput: Sendable, Equatable {
    case down(ContactKey, Point, Int64)
    case moved(ContactKey, Point, Int64)
    case up(ContactKey, Point, Int64)
    case cancelled(ContactKey, Int64)
    /// The engine's clock reached this time.
    case timer(Int64)
}

/// A tap sequence's progress: its fingers down now (where each began), the most down at once in
/// this tap, the taps done, and when the whole sequence must be over.
struct TapProgress: Sendable, Equatable {
    var deadline: Int64
    var taps = 0
    var down: [ContactKey: Point] = [:]
    var most = 0
}

enum TapWatch: Sendable, Equatable {
    /// Nothing down, no sequence.
    case ready
    case tapping(TapProgress)
    /// Not this time: waits for these fingers to lift before a new sequence may start.
    case failed(down: Set<ContactKey>)
}

enum PressWatch: Sendable, Equatable {
    case ready
    /// Fewer fingers down than it takes, each where it landed.
    case gathering([ContactKey: Point])
    /// As many as it takes, held still until `deadline`.
    case pressing([ContactKey: Point], deadline: Int64)
    /// Recognized or failed: waits for these fingers to lift.
    case done(Set<ContactKey>)
}

enum EdgeWatch: Sendable, Equatable {
    case ready
    /// One finger that landed near the edge.
    case tracking(ContactKey, start: Point)
    /// Recognized or failed: waits for these fingers to lift.
    case done(Set<ContactKey>)
}

enum WatchState: Sendable, Equatable {
    case tap(TapWatch)
    case longPress(PressWatch)
    case edgeSwipe(EdgeWatch)

    init(_ kind: SystemGestureSettings.Kind) {
        switch kind {
        case .tap: self = .tap(.ready)
        case .longPress: self = .longPress(.ready)
        case .edgeSwipe: self = .edgeSwipe(.ready)
        }
    }
}

/// One system gesture on one output.
struct SystemGestureWatcher: Sendable, Equatable {
    /// How far a tap's finger may travel (UIKit's tap: the engine's tapDistance), and a long
    /// press's (UILongPressGestureRecognizer.allowableMovement), in points.
    static let tapMovement = 45.0
    static let pressMovement = 10.0

    let name: String
    /// The output watched, by index in the scene's outputs.
    let output: Int
    let kind: SystemGestureSettings.Kind
    private(set) var state: WatchState

    init(name: String, output: Int, kind: SystemGestureSettings.Kind, state: WatchState? = nil) {
        self.name = name; self.output = output; self.kind = kind
        self.state = state ?? WatchState(kind)
    }

    var deadline: Int64? {
        switch state {
        case .tap(.tapping(let p)): return p.deadline
        case .longPress(.pressing(_, let d)): return d
        default: return nil
        }
    }

    /// The only transition: when it recognized (publish `systemGesture` with that time), or
    /// nil. `bounds` is the output's point size as it is turned now.
    mutating func next(_ input: WatchInput, bounds: Size) -> Int64? {
        var recognized: Int64?
        switch (state, kind) {
        case (.tap(let s), .tap(let taps, let touches, let within, let region)):
            state = .tap(SystemGestureWatcher.tap(s, input, taps: taps, touches: touches, within: within, region: region, into: &recognized))
        case (.longPress(let s), .longPress(let touches, let duration)):
            state = .longPress(SystemGestureWatcher.press(s, input, touches: touches, duration: duration, into: &recognized))
        case (.edgeSwipe(let s), .edgeSwipe(let edge, let distance)):
            state = .edgeSwipe(SystemGestureWatcher.edge(s, input, edge: edge, distance: distance, bounds: bounds, into: &recognized))
        default:
            state = WatchState(kind)
        }
        return recognized
    }

    /// Fails whatever is under way (its output turned): waits for every finger it knows to lift.
    mutating func abandon() {
        switch state {
        case .tap(.tapping(let p)): state = p.down.isEmpty ? .tap(.ready) : .tap(.failed(down: Set(p.down.keys)))
        case .longPress(.gathering(let d)), .longPress(.pressing(let d, _)): state = .longPress(.done(Set(d.keys)))
        case .edgeSwipe(.tracking(let k, _)): state = .edgeSwipe(.done([k]))
        default: break
        }
    }

    /// Waiting for `down` to lift: ready once none is left.
    static func waiting(_ down: Set<ContactKey>, _ input: WatchInput) -> Set<ContactKey> {
        var down = down
        switch input {
        case .down(let k, _, _): down.insert(k)
        case .up(let k, _, _), .cancelled(let k, _): down.remove(k)
        case .moved, .timer: break
        }
        return down
    }

    static func tap(_ s: TapWatch, _ input: WatchInput, taps: Int, touches: Int, within: Int64, region: Rect?,
                    into recognized: inout Int64?) -> TapWatch {
        func failed(_ down: Set<ContactKey>) -> TapWatch { down.isEmpty ? .ready : .failed(down: down) }
        switch s {
        case .ready:
            guard case .down(let k, let p, let t) = input else { return .ready }
            guard region?.contains(p) ?? true else { return .failed(down: [k]) }
            return .tapping(TapProgress(deadline: t + within, down: [k: p], most: 1))
        case .failed(let down):
            return failed(waiting(down, input))
        case .tapping(var p):
            switch input {
            case .down(let k, let at, _):
                p.down[k] = at
                guard region?.contains(at) ?? true, p.down.count <= touches else { return .failed(down: Set(p.down.keys)) }
                p.most = max(p.most, p.down.count)
                return .tapping(p)
            case .moved(let k, let at, _):
                guard let start = p.down[k] else { return .tapping(p) }
                return start.distance(to: at) > tapMovement ? .failed(down: Set(p.down.keys)) : .tapping(p)
            case .up(let k, let at, let t):
                guard let start = p.down.removeValue(forKey: k) else { return .tapping(p) }
                if start.distance(to: at) > tapMovement || t > p.deadline { return failed(Set(p.down.keys)) }
                guard p.down.isEmpty else { return .tapping(p) }
                // A tap is over: it had exactly `touches` fingers at once.
                guard p.most == touches else { return .ready }
                p.taps += 1
                p.most = 0
                if p.taps < taps { return .tapping(p) }
                recognized = t
                return .ready
            case .cancelled(let k, _):
                guard p.down.removeValue(forKey: k) != nil else { return .tapping(p) }
                return failed(Set(p.down.keys))
            case .timer(let t):
                return t >= p.deadline ? failed(Set(p.down.keys)) : .tapping(p)
            }
        }
    }

    static func press(_ s: PressWatch, _ input: WatchInput, touches: Int, duration: Int64, into recognized: inout Int64?) -> PressWatch {
        func done(_ down: Set<ContactKey>) -> PressWatch { down.isEmpty ? .ready : .done(down) }
        func gathered(_ d: [ContactKey: Point], _ t: Int64) -> PressWatch {
            if d.count > touches { return .done(Set(d.keys)) }
            return d.count == touches ? .pressing(d, deadline: t + duration) : .gathering(d)
        }
        switch s {
        case .ready:
            guard case .down(let k, let p, let t) = input else { return .ready }
            return gathered([k: p], t)
        case .done(let down):
            return done(waiting(down, input))
        case .gathering(var d), .pressing(var d, _):
            switch input {
            case .down(let k, let p, let t):
                d[k] = p
                // A finger joining a press under way is one too many.
                if case .pressing = s { return .done(Set(d.keys)) }
                return gathered(d, t)
            case .moved(let k, let p, _):
                guard let start = d[k], start.distance(to: p) > pressMovement else { return s }
                return .done(Set(d.keys))
            case .up(let k, _, _), .cancelled(let k, _):
                guard d.removeValue(forKey: k) != nil else { return s }
                return done(Set(d.keys))
            case .timer(let t):
                guard case .pressing(_, let deadline) = s, t >= deadline else { return s }
                recognized = deadline
                return .done(Set(d.keys))
            }
        }
    }

    static func edge(_ s: EdgeWatch, _ input: WatchInput, edge: GestureSettings.Edge, distance: Double, bounds: Size,
                     into recognized: inout Int64?) -> EdgeWatch {
        func done(_ down: Set<ContactKey>) -> EdgeWatch { down.isEmpty ? .ready : .done(down) }
        switch s {
        case .ready:
            guard case .down(let k, let p, _) = input else { return .ready }
            return inward(edge, from: p, to: p, bounds: bounds) == nil ? .done([k]) : .tracking(k, start: p)
        case .done(let down):
            return done(waiting(down, input))
        case .tracking(let key, let start):
            switch input {
            case .down(let k, _, _):
                return .done([key, k])   // a second finger: not an edge swipe
            case .moved(let k, let p, let t):
                guard k == key, let travel = inward(edge, from: start, to: p, bounds: bounds), travel >= distance else { return s }
                recognized = t
                return .done([key])
            case .up(let k, _, _), .cancelled(let k, _):
                return k == key ? .ready : s
            case .timer:
                return s
            }
        }
    }

    /// How far `p` has gone from `start` away from `edge`, when `start` is within the edge's
    /// band (ScreenEdgePan's 20 points); nil when it is not.
    static func inward(_ edge: GestureSettings.Edge, from start: Point, to p: Point, bounds: Size) -> Double? {
        let band = GestureSettings.ScreenEdgePan.edgeWidth
        switch edge {
        case .left: return start.x < band ? p.x - start.x : nil
        case .right: return start.x >= bounds.width - band ? start.x - p.x : nil
        case .top: return start.y < band ? p.y - start.y : nil
        case .bottom: return start.y >= bounds.height - band ? start.y - p.y : nil
        }
    }
}
