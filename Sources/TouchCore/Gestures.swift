/// Gesture recognizers: UIKit's model. Each recognizer is a small state machine fed the touches
/// that landed on its view (or inside it) before the view sees them; the engine arbitrates
/// between them (requireToFail, simultaneousWith, cancelsTouchesInView, delays). Time is the
/// input's own (event timestamps; a real timer between events in a live run), so a replay
/// recognizes the same gestures every time.

public enum GestureKind: String, Sendable, Equatable {
    case tap, longPress, pan, swipe, pinch, rotation

    public var isDiscrete: Bool { self == .tap || self == .swipe }
}

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
    public init(id: Int, phase: Phase, location: Point) { self.id = id; self.phase = phase; self.location = location }
}

public struct GestureRecognizer: Sendable {
    // Configuration (UIKit's defaults where UIKit has them).
    public let id: String
    public let kind: GestureKind
    public let view: Int
    public var tapsRequired = 1
    public var touchesRequired = 1
    public var movementTolerance = 10.0           // tap: how far a finger may move
    public var maximumInterval: Int64 = 350_000   // tap: between one tap's lift and the next tap
    public var minimumDuration: Int64 = 500_000   // long press
    public var allowableMovement = 10.0           // long press
    public var minimumTouches = 1                 // pan
    public var maximumTouches = Int.max           // pan
    public var hysteresis = 10.0                  // pan: movement before it begins
    public var directions: Set<String> = ["right"]   // swipe
    public var minimumDistance = 50.0             // swipe
    public var maximumDuration: Int64 = 500_000   // swipe
    public var cancelsTouchesInView = true
    public var delaysTouchesBegan = false
    public var delaysTouchesEnded = true
    public var requireToFail: [Int] = []          // recognizer indices
    public var simultaneousWith: Set<Int> = []
    /// A scroll view's own pan: holds `began` for `contentDelay` at most (delaysContentTouches).
    public var scrollView = false
    public var contentDelay: Int64 = 150_000
    public var canCancelContentTouches = true

    // State.
    public internal(set) var state: GestureState = .possible
    public internal(set) var touches: [Int] = []
    var down: [Int: Point] = [:]
    var start: [Int: Point] = [:]
    var tapIndex = 0
    var firstTapLocation: Point?
    var mostTouchesThisTap = 0
    public internal(set) var deadline: Int64?
    var startTime: Int64 = 0
    var referenceCentroid = Point.zero
    public internal(set) var translation = Point.zero
    public internal(set) var velocity = Point.zero
    var lastCentroid = Point.zero
    var lastTime: Int64 = 0
    var initialDistance = 0.0
    var initialAngle = 0.0
    var lastAngle = 0.0
    public internal(set) var scale = 1.0
    public internal(set) var rotation = 0.0
    public internal(set) var scalarVelocity = 0.0
    public internal(set) var direction: String?
    var lastScalar = 0.0
    /// A recognition waiting for the recognizers it requires to fail.
    var pending: GestureRequest?
    /// Touches that ended; the recognizer resets when every touch it saw is gone.
    var gone: Set<Int> = []

    public init(id: String, kind: GestureKind, view: Int) {
        self.id = id
        self.kind = kind
        self.view = view
        if kind == .pinch || kind == .rotation { touchesRequired = 2 }
        if kind == .longPress { tapsRequired = 0 }
    }

    public init(spec: GestureSpec, view: Int) {
        self.init(id: spec.id, kind: GestureKind(rawValue: spec.kind) ?? .tap, view: view)
        if let v = spec.numbers["taps"] { tapsRequired = Int(v) }
        if let v = spec.numbers["touches"] { touchesRequired = max(1, Int(v)) }
        if let v = spec.numbers["movementTolerance"] { movementTolerance = v }
        if let v = spec.numbers["maximumInterval"] { maximumInterval = Int64(v * 1_000_000) }
        if let v = spec.numbers["minimumDuration"] { minimumDuration = Int64(v * 1_000_000) }
        if let v = spec.numbers["allowableMovement"] { allowableMovement = v }
        if let v = spec.numbers["minimumTouches"] { minimumTouches = max(1, Int(v)) }
        if let v = spec.numbers["maximumTouches"] { maximumTouches = max(1, Int(v)) }
        if let v = spec.numbers["minimumDistance"] { minimumDistance = v }
        if let v = spec.numbers["maximumDuration"] { maximumDuration = Int64(v * 1_000_000) }
        if let d = spec.lists["directions"] { directions = Set(d) }
        if let b = spec.flags["cancelsTouchesInView"] { cancelsTouchesInView = b }
        if let b = spec.flags["delaysTouchesBegan"] { delaysTouchesBegan = b }
        if let b = spec.flags["delaysTouchesEnded"] { delaysTouchesEnded = b }
    }

    /// Still deciding (or waiting on requireToFail): it may yet take the touches.
    public var undecided: Bool { state == .possible }
    public var active: Bool { state == .began || state == .changed }
    public var terminal: Bool { state == .failed || state == .recognized || state == .ended || state == .cancelled }

    var centroid: Point {
        guard !down.isEmpty else { return lastCentroid }
        var x = 0.0, y = 0.0
        for p in down.values { x += p.x; y += p.y }
        return Point(x / Double(down.count), y / Double(down.count))
    }

    /// The two touches of a pinch or rotation, in the order they came.
    var pair: (Point, Point)? {
        let ids = touches.filter { down[$0] != nil }
        guard ids.count >= 2 else { return nil }
        return (down[ids[0]]!, down[ids[1]]!)
    }

    mutating func reset() {
        let keep = self
        self = GestureRecognizer(id: keep.id, kind: keep.kind, view: keep.view)
        self.tapsRequired = keep.tapsRequired; self.touchesRequired = keep.touchesRequired
        self.movementTolerance = keep.movementTolerance; self.maximumInterval = keep.maximumInterval
        self.minimumDuration = keep.minimumDuration; self.allowableMovement = keep.allowableMovement
        self.minimumTouches = keep.minimumTouches; self.maximumTouches = keep.maximumTouches
        self.hysteresis = keep.hysteresis; self.directions = keep.directions
        self.minimumDistance = keep.minimumDistance; self.maximumDuration = keep.maximumDuration
        self.cancelsTouchesInView = keep.cancelsTouchesInView; self.delaysTouchesBegan = keep.delaysTouchesBegan
        self.delaysTouchesEnded = keep.delaysTouchesEnded; self.requireToFail = keep.requireToFail
        self.simultaneousWith = keep.simultaneousWith; self.scrollView = keep.scrollView
        self.contentDelay = keep.contentDelay; self.canCancelContentTouches = keep.canCancelContentTouches
    }

    /// After a sequence: ready for the next one once no touch it saw is down and nothing is
    /// pending (a tap waiting for its next tap keeps its state).
    public mutating func resetIfDone() {
        guard down.isEmpty else { return }
        if terminal || (state == .possible && deadline == nil && pending == nil && !touches.isEmpty) { reset() }
    }

    /// Feeds this recognizer's touches that changed in one frame. Returns its request.
    public mutating func update(_ changed: [GestureTouch], time: Int64) -> GestureRequest {
        var request = GestureRequest.none
        for t in changed {
            switch t.phase {
            case .began:
                if terminal { continue }
                if !touches.contains(t.id) { touches.append(t.id) }
                if down.isEmpty && touches.count == 1 || (kind != .tap && down.isEmpty) { startTime = time }
                down[t.id] = t.location
                start[t.id] = t.location
            case .moved, .stationary:
                if down[t.id] != nil { down[t.id] = t.location }
            case .ended, .cancelled:
                down[t.id] = nil
                gone.insert(t.id)
            }
        }
        // A decided recognizer only keeps count of its fingers until they are all up.
        if terminal { return .none }
        if changed.contains(where: { $0.phase == .cancelled }) {
            return active ? .cancel : (state == .possible ? .fail : .none)
        }
        switch kind {
        case .tap: request = updateTap(changed, time: time)
        case .longPress: request = updateLongPress(changed, time: time)
        case .pan: request = updatePan(changed, time: time)
        case .swipe: request = updateSwipe(changed, time: time)
        case .pinch, .rotation: request = updateTwoFinger(changed, time: time)
        }
        return request
    }

    mutating func updateTap(_ changed: [GestureTouch], time: Int64) -> GestureRequest {
        guard state == .possible, pending == nil else { return .none }
        let beganNow = changed.filter { $0.phase == .began }.count
        if beganNow > 0 { deadline = nil }
        for t in changed where t.phase == .began {
            if down.count == beganNow && t.id == changed.first(where: { $0.phase == .began })!.id {
                // A new tap of the sequence (its fingers may land in one frame).
                mostTouchesThisTap = 0
                if let first = firstTapLocation, first.distance(to: t.location) > max(45, movementTolerance) { return .fail }
                if firstTapLocation == nil { firstTapLocation = t.location; lastCentroid = t.location }
            }
            mostTouchesThisTap = max(mostTouchesThisTap, down.count)
            if down.count > touchesRequired { return .fail }
        }
        for t in changed where t.phase == .moved {
            if let s = start[t.id], s.distance(to: t.location) > movementTolerance { return .fail }
        }
        if changed.contains(where: { $0.phase == .ended }) && down.isEmpty {
            guard mostTouchesThisTap == touchesRequired else { return .fail }
            tapIndex += 1
            lastCentroid = changed.last { $0.phase == .ended }!.location
            if tapIndex >= tapsRequired { return .recognize }
            deadline = time + maximumInterval
        }
        return .none
    }

    mutating func updateLongPress(_ changed: [GestureTouch], time: Int64) -> GestureRequest {
        if state == .possible {
            if changed.contains(where: { $0.phase == .began }) {
                lastCentroid = centroid
                if down.count > touchesRequired { return .fail }
                deadline = down.count == touchesRequired ? time + minimumDuration : nil
            }
            for t in changed where t.phase == .moved {
                if let s = start[t.id], s.distance(to: t.location) > allowableMovement { return .fail }
            }
            if changed.contains(where: { $0.phase == .ended }) { return .fail }
            lastCentroid = centroid
            return .none
        }
        // Began: moves are changes, a lift ends it.
        lastCentroid = centroid
        if changed.contains(where: { $0.phase == .ended }) { return .end }
        if changed.contains(where: { $0.phase == .moved }) { return .change }
        return .none
    }

    mutating func updatePan(_ changed: [GestureTouch], time: Int64) -> GestureRequest {
        let c = centroid
        if changed.contains(where: { $0.phase == .began || $0.phase == .ended }) {
            // The touch set changed: keep the translation continuous.
            referenceCentroid = down.isEmpty ? referenceCentroid : c - translation
            if state == .possible && down.count > maximumTouches { return .fail }
            if changed.contains(where: { $0.phase == .began }) && touches.count == 1 { referenceCentroid = c; lastCentroid = c; lastTime = time }
        }
        if down.isEmpty {
            if active { return .end }
            return .fail
        }
        if active && down.count < minimumTouches { return .end }
        guard changed.contains(where: { $0.phase == .moved }) else { return .none }
        let newTranslation = c - referenceCentroid
        let dt = Double(max(time - lastTime, 1)) / 1_000_000
        velocity = Point((c.x - lastCentroid.x) / dt, (c.y - lastCentroid.y) / dt)
        lastCentroid = c
        lastTime = time
        translation = newTranslation
        if state == .possible {
            guard down.count >= minimumTouches, down.count <= maximumTouches else { return .none }
            let d = (translation.x * translation.x + translation.y * translation.y).squareRoot()
            return d > hysteresis ? .begin : .none
        }
        return .change
    }

    mutating func updateSwipe(_ changed: [GestureTouch], time: Int64) -> GestureRequest {
        guard state == .possible else { return .none }
        if changed.contains(where: { $0.phase == .began }) {
            if down.count > touchesRequired { return .fail }
            if touches.count == 1 { referenceCentroid = centroid; lastCentroid = centroid; deadline = time + maximumDuration }
            if down.count == touchesRequired { referenceCentroid = centroid }
        }
        if changed.contains(where: { $0.phase == .ended }) { return .fail }
        guard changed.contains(where: { $0.phase == .moved }), down.count == touchesRequired else { return .none }
        if time - startTime > maximumDuration { return .fail }
        let c = centroid
        lastCentroid = c
        let d = c - referenceCentroid
        let dist = (d.x * d.x + d.y * d.y).squareRoot()
        guard dist >= minimumDistance else { return .none }
        let dir = abs(d.x) >= abs(d.y) ? (d.x > 0 ? "right" : "left") : (d.y > 0 ? "down" : "up")
        guard directions.contains(dir) else { return .fail }
        direction = dir
        return .recognize
    }

    mutating func updateTwoFinger(_ changed: [GestureTouch], time: Int64) -> GestureRequest {
        if state == .possible && down.count > 2 { return .fail }
        if changed.contains(where: { $0.phase == .ended }) {
            return active ? .end : .fail
        }
        guard let (a, b) = pair else { return .none }
        let dx = b.x - a.x, dy = b.y - a.y
        let distance = (dx * dx + dy * dy).squareRoot()
        let angle = atan2Approx(dy, dx)
        if changed.contains(where: { $0.phase == .began }) {
            initialDistance = max(distance, 1)
            initialAngle = angle
            lastAngle = angle
            rotation = 0
            scale = 1
            lastScalar = kind == .pinch ? 1 : 0
            lastTime = time
            lastCentroid = centroid
            return .none
        }
        guard changed.contains(where: { $0.phase == .moved }) else { return .none }
        // Unwrap the angle so a turn past ±π keeps counting.
        var delta = angle - lastAngle
        while delta > Double.pi { delta -= 2 * Double.pi }
        while delta < -Double.pi { delta += 2 * Double.pi }
        lastAngle = angle
        rotation += delta
        scale = distance / initialDistance
        let value = kind == .pinch ? scale : rotation
        let dt = Double(max(time - lastTime, 1)) / 1_000_000
        scalarVelocity = (value - lastScalar) / dt
        lastScalar = value
        lastTime = time
        lastCentroid = centroid
        if state == .possible {
            let moved = kind == .pinch ? abs(distance - initialDistance) > 8 : abs(rotation) > 0.05
            return moved ? .begin : .none
        }
        return .change
    }

    /// A deadline passed (tap interval, long-press duration, swipe duration).
    public mutating func timerFired(time: Int64) -> GestureRequest {
        deadline = nil
        guard state == .possible, pending == nil else { return .none }
        switch kind {
        case .tap, .swipe: return .fail
        case .longPress:
            if down.count == touchesRequired { lastCentroid = centroid; return .begin }
            return .fail
        default: return .none
        }
    }

    /// The values a `gesture` message carries for this kind.
    public var values: [(String, GestureValue)] {
        switch kind {
        case .tap: return [("taps", .number(Double(tapsRequired)))]
        case .longPress: return []
        case .pan: return [("translation", .point(translation)), ("velocity", .point(velocity))]
        case .swipe: return direction.map { [("direction", .string($0))] } ?? []
        case .pinch: return [("scale", .number(scale)), ("velocity", .number(scalarVelocity))]
        case .rotation: return [("rotation", .number(rotation)), ("velocity", .number(scalarVelocity))]
        }
    }

    public var location: Point { down.isEmpty ? lastCentroid : centroid }
}

/// atan2 without Foundation (TouchCore links only libm's basics through the standard library).
func atan2Approx(_ y: Double, _ x: Double) -> Double {
    if x == 0 && y == 0 { return 0 }
    let r = (x * x + y * y).squareRoot()
    // atan2(y, x) = 2 * atan(y / (r + x)) for x > -r; handle the negative x axis.
    if r + x == 0 { return Double.pi }
    return 2 * atanSeries(y / (r + x))
}

/// atan by argument reduction (half-angle steps) and a short series.
func atanSeries(_ t: Double) -> Double {
    // Reduce: atan(t) = π/2 - atan(1/t) for |t| > 1.
    if t > 1 { return Double.pi / 2 - atanSeries(1 / t) }
    if t < -1 { return -Double.pi / 2 - atanSeries(1 / t) }
    // Reduce further with atan(t) = 2 atan(t / (1 + sqrt(1 + t²))) until small, then a series.
    var x = t
    var factor = 1.0
    while abs(x) > 0.05 {
        x = x / (1 + (1 + x * x).squareRoot())
        factor *= 2
    }
    let x2 = x * x
    // atan(x) ≈ x - x³/3 + x⁵/5 - x⁷/7 + x⁹/9 - x¹¹/11 (|x| ≤ 0.05: error below 1e-16)
    let s = x * (1 - x2 * (1.0 / 3 - x2 * (1.0 / 5 - x2 * (1.0 / 7 - x2 * (1.0 / 9 - x2 / 11)))))
    return factor * s
}
