/// How scroll views move like iOS's: a drag past the content's edge stretches (rubber band)
/// when the view bounces; after the finger lifts, the content keeps the drag's velocity and
/// slows down by the deceleration rate every millisecond (UIScrollView.DecelerationRate:
/// normal 0.998, fast 0.99), springs back when it went past an edge, and with paging settles
/// on a multiple of the view's size. Motion is simulated in whole milliseconds of event time
/// (the same in a replay and live) and published every 16 ms (62.5 times a second) until it rests.
struct ScrollPhysics {
    /// One axis of a moving scroll view.
    struct Axis: Equatable {
        var position: Double
        /// Points per millisecond.
        var velocity: Double
        var maximum: Double
        /// nil: decelerating; a value: springing to it.
        var target: Double?
        var resting = false
    }

    struct Motion {
        var view: ViewIndex
        var x: Axis
        var y: Axis
        var rate: Double
        var bounces: Bool
        /// Simulated up to here (µs, a whole millisecond after the start).
        var time: Int64
        var started: Int64
        var nextFrame: Int64
        var lastPublished: Point
    }

    private(set) var motions: [Motion] = []

    /// UIKit's rubber-band constant: the stretch is (1 − 1 / (x · c / d + 1)) · d.
    static let rubberBand = 0.55
    /// The spring back and the settling of a page: critically damped, ω per second.
    static let springOmega = 12.0
    /// Slower than this (points per second), a motion has come to rest.
    static let restSpeed = 10.0
    /// A flick faster than this (points per second) turns the page; slower settles on the nearest.
    static let pageFlickSpeed = 300.0
    /// Published every 16 ms: a whole number of the simulation's milliseconds, so every frame
    /// moves by exactly 16 steps (62.5 frames a second, about a display's 60).
    static let frameInterval: Int64 = 16_000
    /// No motion lasts longer (an absurd flick or rate cannot keep a timer running).
    static let maximumDuration: Int64 = 10_000_000

    var isEmpty: Bool { motions.isEmpty }
    func isMoving(_ v: ViewIndex) -> Bool { motions.contains { $0.view == v } }
    var nextDeadline: Int64? { motions.map(\.nextFrame).min() }

    /// How far content can scroll on each axis (0 where it fits: that axis does not move).
    static func maxOffset(_ spec: ScrollSpec, _ size: Size) -> Point {
        Point(max(0, spec.contentSize.width - size.width), max(0, spec.contentSize.height - size.height))
    }

    /// The axes a drag moves: those whose content is larger than the view, and those that
    /// always bounce (UIScrollView.alwaysBounceHorizontal/Vertical, with `bounces`). A pan does
    /// not begin along any other (UIKit's scroll views nested at right angles).
    static func draggable(_ spec: ScrollSpec, _ size: Size) -> (x: Bool, y: Bool) {
        let m = maxOffset(spec, size)
        return (m.x > 0 || (spec.bounces && spec.alwaysBounceHorizontal), m.y > 0 || (spec.bounces && spec.alwaysBounceVertical))
    }

    /// The offset while dragging: start − translation, stretched past the edges when the view
    /// bounces (on the axes it can be dragged along), clamped otherwise.
    static func dragOffset(start: Point, translation: Point, spec: ScrollSpec, size: Size) -> Point {
        let m = maxOffset(spec, size)
        let d = draggable(spec, size)
        func axis(_ raw: Double, _ maximum: Double, _ dimension: Double, _ draggable: Bool) -> Double {
            guard draggable else { return 0 }
            guard spec.bounces else { return min(max(raw, 0), maximum) }
            if raw < 0 { return -stretch(-raw, dimension) }
            if raw > maximum { return maximum + stretch(raw - maximum, dimension) }
            return raw
        }
        return Point(axis(start.x - translation.x, m.x, size.width, d.x), axis(start.y - translation.y, m.y, size.height, d.y))
    }

    static func stretch(_ x: Double, _ dimension: Double) -> Double {
        guard dimension > 0 else { return 0 }
        return (1 - 1 / (x * rubberBand / dimension + 1)) * dimension
    }

    /// The drag past the edge that `stretch` turns into `s`: a drag that starts while the
    /// content is out of bounds (a finger catching a spring back) starts from there, so the
    /// content stays under the finger instead of being stretched a second time.
    static func unstretch(_ s: Double, _ dimension: Double) -> Double {
        guard dimension > 0, s > 0 else { return 0 }
        let f = min(s / dimension, 0.999_999)
        return f / (1 - f) * dimension / rubberBand
    }

    /// The drag's start in unstretched content coordinates for an offset on screen, so that
    /// `dragOffset(start:translation: .zero …)` gives the offset back.
    static func dragStart(offset: Point, spec: ScrollSpec, size: Size) -> Point {
        guard spec.bounces else { return offset }
        let m = maxOffset(spec, size)
        let d = draggable(spec, size)
        func axis(_ o: Double, _ maximum: Double, _ dimension: Double, _ draggable: Bool) -> Double {
            guard draggable else { return o }
            if o < 0 { return -unstretch(-o, dimension) }
            if o > maximum { return maximum + unstretch(o - maximum, dimension) }
            return o
        }
        return Point(axis(offset.x, m.x, size.width, d.x), axis(offset.y, m.y, size.height, d.y))
    }

    /// The finger lifted: the content goes on with `velocity` (points per second, content
    /// coordinates) from `offset`.
    mutating func release(_ v: ViewIndex, offset: Point, velocity: Point, spec: ScrollSpec, size: Size, time: Int64) {
        stop(v)
        let m = ScrollPhysics.maxOffset(spec, size)
        var x = Axis(position: offset.x, velocity: m.x > 0 ? velocity.x / 1000 : 0, maximum: m.x)
        var y = Axis(position: offset.y, velocity: m.y > 0 ? velocity.y / 1000 : 0, maximum: m.y)
        if spec.pagingEnabled {
            x.target = ScrollPhysics.page(offset.x, velocity.x, page: size.width, maximum: m.x)
            y.target = ScrollPhysics.page(offset.y, velocity.y, page: size.height, maximum: m.y)
        }
        for k in 0..<2 {
            var a = k == 0 ? x : y
            // A page settle from within the content; from past an edge, a spring back.
            let paged = a.target != nil && a.position >= 0 && a.position <= a.maximum
            if a.target == nil && (a.position < 0 || a.position > a.maximum) { a.target = min(max(a.position, 0), a.maximum) }
            if a.target == nil && abs(a.velocity) * 1000 < ScrollPhysics.restSpeed { a.resting = true }
            if let t = a.target { a.velocity = ScrollPhysics.settleVelocity(a.velocity, toward: t - a.position, page: paged) }
            // Already where a spring would take it, and still: nothing to move.
            if let t = a.target, t == a.position, a.velocity == 0 { a.target = nil; a.resting = true }
            if k == 0 { x = a } else { y = a }
        }
        if x.resting && y.resting { return }
        motions.append(Motion(view: v, x: x, y: y, rate: spec.decelerationRate, bounces: spec.bounces,
                              time: time, started: time, nextFrame: time + ScrollPhysics.frameInterval, lastPublished: offset))
    }

    /// The page to settle on: the nearest one, or for a flick the next one its way.
    static func page(_ offset: Double, _ velocity: Double, page: Double, maximum: Double) -> Double? {
        guard page > 0, maximum > 0 else { return nil }
        var k = (offset / page).rounded()
        if velocity > pageFlickSpeed { k = (offset / page).rounded(.down) + 1 }
        if velocity < -pageFlickSpeed { k = (offset / page).rounded(.up) - 1 }
        return min(max(k * page, 0), maximum)
    }

    /// The velocity a spring (a page settle, a spring back) starts with, toward `distance`
    /// (target − position, points): toward the target at most ω · distance, with which a
    /// critically damped spring comes to the target without passing it. A flick's full speed
    /// would swing a page settle into the next page (39 % of it after an 8,000 points a second
    /// flick) and, without bounces, past the content's end; UIKit's page settle decelerates into
    /// its page. Away from the target: none for a page settle (it only ever moves toward its
    /// page), kept for a spring back from past an edge (the content runs on out a little and
    /// comes back, never into the content).
    static func settleVelocity(_ velocity: Double, toward distance: Double, page: Bool) -> Double {
        guard velocity * distance > 0 else { return page ? 0 : velocity }
        let most = springOmega / 1000 * distance
        return distance > 0 ? min(velocity, most) : max(velocity, most)
    }

    /// A touch landed on a moving scroll view: it stops where it is.
    mutating func stop(_ v: ViewIndex) { motions.removeAll { $0.view == v } }

    /// A client changed a moving view's scroll keys or its size (`update`): the motion goes on
    /// against them (ScrollPhysics.retarget(_:maximum:page:bounces:), axis by axis). Nil when the
    /// view does not move; otherwise where it is now and whether it still moves.
    mutating func retarget(_ v: ViewIndex, spec: ScrollSpec, size: Size) -> (offset: Point, moving: Bool)? {
        guard let k = motions.firstIndex(where: { $0.view == v }) else { return nil }
        var m = motions[k]
        let maximum = ScrollPhysics.maxOffset(spec, size)
        m.rate = spec.decelerationRate
        m.bounces = spec.bounces
        ScrollPhysics.retarget(&m.x, maximum: maximum.x, page: spec.pagingEnabled ? size.width : nil, bounces: spec.bounces)
        ScrollPhysics.retarget(&m.y, maximum: maximum.y, page: spec.pagingEnabled ? size.height : nil, bounces: spec.bounces)
        let offset = Point(m.x.position, m.y.position)
        m.lastPublished = offset
        guard !(m.x.resting && m.y.resting) else {
            motions.remove(at: k)
            return (offset, false)
        }
        motions[k] = m
        return (offset, true)
    }

    /// One axis of a motion whose view changed (`page`: the page size when it pages). Keys that
    /// did not change leave it exactly as it was. A new content size keeps the motion: only an
    /// offset now past the end (or, without bounces, any past an end) is clamped there at once,
    /// and that axis stops; a spring back with bounces goes on to the end as it now is. Paging
    /// turned on settles on a page (the next one the way it moves, as a flick does); paging
    /// turned off lets a page settle decelerate from where it is; a new page size settles on
    /// the new pages.
    static func retarget(_ a: inout Axis, maximum: Double, page: Double?, bounces: Bool) {
        a.maximum = maximum
        let inside = min(max(a.position, 0), maximum)
        if a.position != inside && !(bounces && a.target != nil && !a.resting) {
            a.position = inside
            a.velocity = 0
            a.target = nil
            a.resting = true
        }
        let old = a.target
        let paged = page != nil && page! > 0 && maximum > 0 && a.position >= 0 && a.position <= maximum
        if let page, page > 0, maximum > 0 {
            let valid = { (t: Double) in t >= 0 && t <= maximum && (t == maximum || t == (t / page).rounded() * page) }
            if a.resting {
                guard !valid(a.position) else { return }
                a.resting = false
                a.velocity = 0
                a.target = ScrollPhysics.page(a.position, 0, page: page, maximum: maximum)
            } else if a.target.map(valid) != true {
                a.target = ScrollPhysics.page(a.position, a.velocity * 1000, page: page, maximum: maximum)
            }
        } else if !a.resting && a.target != nil {
            // Not paging: a spring back goes to the nearest end; inside the content, a page
            // settle turns into a deceleration.
            a.target = a.position != inside ? inside : nil
        }
        if let t = a.target, t != old { a.velocity = settleVelocity(a.velocity, toward: t - a.position, page: paged) }
    }

    /// What the last `scroll` message of a view said besides its offset.
    struct Flags: Equatable {
        var dragging: Bool
        var decelerating: Bool
    }

    /// A frame of a motion: where the content is at `time`, and whether the motion is over.
    struct Frame {
        var view: ViewIndex
        var time: Int64
        var offset: Point
        var done: Bool
    }

    /// Simulates every motion up to `time`: the frames due whose offset changed, in order.
    mutating func advance(to time: Int64) -> [Frame] {
        var out: [Frame] = []
        var k = 0
        while k < motions.count {
            var m = motions[k]
            while m.nextFrame <= time {
                let frame = m.nextFrame
                let done = ScrollPhysics.simulate(&m, until: frame) || frame - m.started >= ScrollPhysics.maximumDuration
                let offset = Point(m.x.position, m.y.position)
                if offset != m.lastPublished {
                    out.append(Frame(view: m.view, time: frame, offset: offset, done: done))
                    m.lastPublished = offset
                }
                if done {
                    m.nextFrame = .max
                    break
                }
                m.nextFrame = frame + ScrollPhysics.frameInterval
            }
            if m.nextFrame == .max { motions.remove(at: k) } else { motions[k] = m; k += 1 }
        }
        return out
    }

    /// Millisecond steps up to `time`; true when both axes rest (the position is then exact).
    static func simulate(_ m: inout Motion, until time: Int64) -> Bool {
        while m.time + 1000 <= time {
            m.time += 1000
            step(&m.x, rate: m.rate, bounces: m.bounces)
            step(&m.y, rate: m.rate, bounces: m.bounces)
            if m.x.resting && m.y.resting { return true }
        }
        return m.x.resting && m.y.resting
    }

    static func step(_ a: inout Axis, rate: Double, bounces: Bool) {
        guard !a.resting else { return }
        if let target = a.target {
            // Critically damped spring, semi-implicit Euler over 1 ms.
            let w = springOmega / 1000
            a.velocity += -w * w * (a.position - target) - 2 * w * a.velocity
            a.position += a.velocity
            if abs(a.position - target) < 0.5 && abs(a.velocity) * 1000 < restSpeed {
                a.position = target
                a.velocity = 0
                a.resting = true
            }
            return
        }
        a.velocity *= rate
        a.position += a.velocity
        if a.position < 0 || a.position > a.maximum {
            let edge = a.position < 0 ? 0 : a.maximum
            if bounces { a.target = edge } else { a.position = edge; a.velocity = 0; a.resting = true }
            return
        }
        if abs(a.velocity) * 1000 < restSpeed {
            a.velocity = 0
            a.resting = true
        }
    }
}
