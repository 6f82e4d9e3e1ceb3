/// Gesture recognizers: UIKit's model. Each recognizer is a small state machine fed the touches
/// that landed on its view (or inside it) before the view sees them; the engine's arbiter
/// decides between them (requireToFail, simultaneousWith, cancelsTouchesInView, delays). Time
/// is the input's own (event timestamps; a real timer between events in a live run), so a
/// replay recognizes the same gestures every time.

public enum GestureState: String, Sendable, Equatable {
    case possible, began, changed, ended, cancelled, failed, recognized
}

/// What a recognizer asks for after a touch change or a timer.
public enum GestureRequest: Sendable, Equatable {
    case none
    case begin        // continuous: possible → began
    case change
    case end
    case cancel
    case fail
    case recognize    // discrete: possible → recognized
}

/// A touch as a recognizer sees it.
public struct GestureTouch: Sendable, Equatable {
    public var id: Int
    public var phase: Phase
    public var location: Point    // window coordinates
    public var screen: Point      // screen coordinates (for screen edges)
    public init(id: Int, phase: Phase, location: Point, screen: Point? = nil) {
        self.id = id; self.phase = phase; self.location = location; self.screen = screen ?? location
    }
}

/// What a recognizer is, fixed when the engine builds it.
public struct RecognizerConfig: Sendable {
    public let id: String
    public let view: ViewIndex
    public let kind: GestureSettings.Kind
    public let cancelsTouchesInView: Bool
    public let delaysTouchesBegan: Bool
    public let delaysTouchesEnded: Bool
    /// Set only for a scroll view's own pan.
    public let scroll: ScrollPan?
    /// The screen's size (screen-edge pans).
    public var screen = Size(800, 480)
    public internal(set) var requireToFail: [RecognizerIndex] = []
    public internal(set) var simultaneousWith: Set<RecognizerIndex> = []

    public init(settings s: GestureSettings, view: ViewIndex) {
        id = s.id
        self.view = view
        kind = s.kind
        cancelsTouchesInView = s.cancelsTouchesInView
        delaysTouchesBegan = s.delaysTouchesBegan
        delaysTouchesEnded = s.delaysTouchesEnded
        scroll = nil
    }

    /// A scroll view's pan: named "<view>.pan", delays began as delaysContentTouches says,
    /// never delays ended, cancels the content's touches only when canCancelContentTouches.
    public init(scrollViewID: String, view: ViewIndex, spec: ScrollSpec) {
        id = scrollViewID + ".pan"
        self.view = view
        kind = .pan(GestureSettings.Pan())
        cancelsTouchesInView = spec.canCancelContentTouches
        delaysTouchesBegan = spec.delaysContentTouches
        delaysTouchesEnded = false
        scroll = ScrollPan(canCancelContentTouches: spec.canCancelContentTouches, cancelsControlTouches: spec.cancelsControlTouches)
    }

    var isScrollView: Bool { scroll != nil }

    /// A one-tap, one-touch tap recognizer (the kind a control wins against).
    var isSingleTap: Bool {
        if case .tap(let t) = kind { return t.taps == 1 && t.touches == 1 }
        return false
    }
}

/// Tap and long press: the taps of a sequence.
struct TapState: Sendable {
    var tapIndex = 0
    var firstTapLocation: Point?
    var mostTouchesThisTap = 0
    /// This tap's fingers, each where it was last seen; the first tap's centroid.
    var tapPoints: [Int: Point] = [:]
    var firstTapCentroid: Point?
}

/// Pan and screen-edge pan: the travel of the fingers' centroid.
struct PanState: Sendable {
    var referenceCentroid = Point.zero
    var translation = Point.zero
    var velocity = Point.zero
    /// The fingers where they were before this frame (what those that stay moved counts when
    /// others land or lift).
    var lastDown: [Int: Point] = [:]
    /// The recent (time, translation) samples, oldest first: the velocity's window.
    var samples: [(time: Int64, translation: Point)] = []
    /// A screen-edge pan's edges the touch began near, then the one it moved away from.
    var nearEdges: [GestureSettings.Edge] = []
    var edge: GestureSettings.Edge?
}

/// Swipe: where it started and the way it went.
struct SwipeState: Sendable {
    var referenceCentroid = Point.zero
    var direction: GestureSettings.Direction?
}

/// Pinch and rotation: the pair's distance and angle.
struct PairState: Sendable {
    var initialDistance = 0.0
    var initialAngle = 0.0
    var lastAngle = 0.0
    var lastScalar = 0.0
    var scale = 1.0
    var rotation = 0.0
    var scalarVelocity = 0.0
}

/// What only one kind of recognizer keeps (swift-nio's habit: the data of each state in its
/// case), so no recognizer holds another kind's fields. `busy` stands in while a transition
/// works on the kind's state (it is never seen outside one: the state is moved out, not copied,
/// so its arrays are not copied every frame).
enum KindState: Sendable {
    case tap(TapState)        // tap, long press
    case pan(PanState)        // pan, screen-edge pan
    case swipe(SwipeState)
    case pair(PairState)      // pinch, rotation
    case busy

    init(_ kind: GestureSettings.Kind) {
        switch kind {
        case .tap, .longPress: self = .tap(TapState())
        case .pan, .screenEdgePan: self = .pan(PanState())
        case .swipe: self = .swipe(SwipeState())
        case .pinch, .rotation: self = .pair(PairState())
        }
    }
}

/// The state machine's values; `RecognizerState(kind)` is a recognizer ready for a new sequence.
public struct RecognizerState: Sendable {
    public internal(set) var phase: GestureState = .possible
    /// Every touch it has seen in this sequence, in the order they came.
    public internal(set) var touches: [Int] = []
    var down: [Int: Point] = [:]
    var start: [Int: Point] = [:]
    /// Touches that ended; the recognizer resets when every touch it saw is gone.
    var gone: Set<Int> = []
    public internal(set) var deadline: Int64?
    /// A recognition waiting for the recognizers it requires to fail.
    var pending: GestureRequest?
    var startTime: Int64 = 0
    var lastTime: Int64 = 0
    var lastCentroid = Point.zero
    /// Where the gesture is once recognized, when UIKit fixes it: a tap's first tap (the
    /// centroid of its fingers), a swipe's start.
    var fixedLocation: Point?
    /// The kind's own values.
    var kind: KindState

    init(_ kind: GestureSettings.Kind) { self.kind = KindState(kind) }

    /// A pan's translation and velocity (zero for other kinds).
    public var translation: Point { if case .pan(let p) = kind { return p.translation }; return .zero }
    public var velocity: Point { if case .pan(let p) = kind { return p.velocity }; return .zero }

    var centroid: Point {
        guard !down.isEmpty else { return lastCentroid }
        var x = 0.0, y = 0.0
        for p in down.values { x += p.x; y += p.y }
        return Point(x / Double(down.count), y / Double(down.count))
    }

    /// The two touches of a pinch or rotation, in the order they came.
    var pair: (Point, Point)? {
        let points = touches.compactMap { down[$0] }
        guard points.count >= 2 else { return nil }
        return (points[0], points[1])
    }
}

public struct GestureRecognizer: Sendable {
    public internal(set) var config: RecognizerConfig
    public internal(set) var state: RecognizerState
    /// Its view left the scene (the slot waits to be reused).
    public internal(set) var removed = false

    public init(_ config: RecognizerConfig) {
        self.config = config
        state = RecognizerState(config.kind)
    }

    /// Ready for a new sequence.
    mutating func reset() { state = RecognizerState(config.kind) }

    public var id: String { config.id }
    public var view: ViewIndex { config.view }
    public var phase: GestureState { state.phase }
    public var touches: [Int] { state.touches }

    /// Still deciding (or waiting on requireToFail): it may yet take the touches.
    public var undecided: Bool { state.phase == .possible }
    public var active: Bool { state.phase == .began || state.phase == .changed }
    /// It recognized (or began) in this touch sequence.
    public var won: Bool {
        state.phase == .recognized || state.phase == .began || state.phase == .changed || state.phase == .ended
    }
    public var terminal: Bool {
        state.phase == .failed || state.phase == .recognized || state.phase == .ended || state.phase == .cancelled
    }

    /// After a sequence: ready for the next one once no touch it saw is down and nothing is
    /// pending (a tap waiting for its next tap keeps its state).
    public mutating func resetIfDone() {
        guard state.down.isEmpty else { return }
        if terminal || (state.phase == .possible && state.deadline == nil && state.pending == nil && !state.touches.isEmpty) {
            reset()
        }
    }

    /// Feeds this recognizer's touches that changed in one frame. Returns its request.
    public mutating func update(_ changed: [GestureTouch], time: Int64) -> GestureRequest {
        // A pan counts what the fingers that stay moved in a frame where others land or lift:
        // their places before the frame are kept then (only then: not a copy every frame).
        if case .pan(var p) = state.kind, changed.contains(where: { $0.phase != .moved && $0.phase != .stationary }) {
            state.kind = .busy
            p.lastDown = state.down
            state.kind = .pan(p)
        }
        for t in changed {
            switch t.phase {
            case .began:
                if terminal { continue }
                if !state.touches.contains(t.id) { state.touches.append(t.id) }
                if state.down.isEmpty && state.touches.count == 1 || (!config.kind.isTap && state.down.isEmpty) { state.startTime = time }
                state.down[t.id] = t.location
                state.start[t.id] = t.location
            case .moved, .stationary:
                if state.down[t.id] != nil { state.down[t.id] = t.location }
            case .ended, .cancelled:
                state.down[t.id] = nil
                state.gone.insert(t.id)
            }
        }
        // A decided recognizer only keeps count of its fingers until they are all up.
        if terminal { return .none }
        if changed.contains(where: { $0.phase == .cancelled }) {
            return active ? .cancel : (state.phase == .possible ? .fail : .none)
        }
        switch config.kind {
        case .tap(let s): return updateTap(s, changed, time: time)
        case .longPress(let s): return updateLongPress(s, changed, time: time)
        case .pan(let s): return updatePan(s, changed, time: time)
        case .swipe(let s): return updateSwipe(s, changed, time: time)
        case .pinch, .rotation: return updateTwoFinger(changed, time: time)
        case .screenEdgePan(let s): return updateScreenEdgePan(s, changed, time: time)
        }
    }

    /// A deadline passed (tap interval, long-press duration, swipe duration).
    public mutating func timerFired(time: Int64) -> GestureRequest {
        state.deadline = nil
        guard state.phase == .possible, state.pending == nil else { return .none }
        switch config.kind {
        case .tap, .swipe: return .fail
        case .longPress(let s):
            // The press held long enough (after its taps); a tap held too long, or no touch
            // after a tap in time, fails.
            guard case .tap(let t) = state.kind else { return .fail }
            if t.tapIndex >= s.taps && state.down.count == s.touches { state.lastCentroid = state.centroid; return .begin }
            return .fail
        default: return .none
        }
    }

    /// The values a `gesture` message carries for this kind.
    public var values: GestureValues {
        switch (config.kind, state.kind) {
        case (.tap(let s), _): return .tap(taps: s.taps)
        case (.longPress, _): return .longPress
        case (.pan, .pan(let p)): return .pan(translation: p.translation, velocity: p.velocity)
        case (.swipe, .swipe(let w)): return .swipe(direction: w.direction)
        case (.pinch, .pair(let q)): return .pinch(scale: q.scale, velocity: q.scalarVelocity)
        case (.rotation, .pair(let q)): return .rotation(rotation: q.rotation, velocity: q.scalarVelocity)
        case (.screenEdgePan, .pan(let p)): return .screenEdgePan(translation: p.translation, velocity: p.velocity, edge: p.edge)
        case (.pan, _), (.swipe, _), (.pinch, _), (.rotation, _), (.screenEdgePan, _):
            preconditionFailure("recognizer \(config.id): its state is not its kind's")
        }
    }

    public var location: Point {
        if let fixed = state.fixedLocation { return fixed }
        // A pinch or rotation left with one finger stays at its pair's last centroid.
        let holdsPair: Bool
        switch config.kind {
        case .pinch, .rotation: holdsPair = state.down.count < 2
        default: holdsPair = false
        }
        return state.down.isEmpty || holdsPair ? state.lastCentroid : state.centroid
    }
}

extension GestureSettings.Kind {
    var isTap: Bool { if case .tap = self { return true }; return false }
}
