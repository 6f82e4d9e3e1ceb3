/// A scroll view's drag as the arbiter decided it, for ScrollViews to carry out: the drag
/// began (its pan recognized), the fingers moved it, it ended (the content goes on with a
/// velocity, in points per second of the fingers).
enum ScrollEvent {
    case began(RecognizerIndex, view: ViewIndex)
    case dragged(RecognizerIndex, view: ViewIndex, translation: Point, time: Int64)
    case released(RecognizerIndex, view: ViewIndex, velocity: Point, time: Int64)
}

/// What a part asks of the scene and the outbox (the engine carries it out, in order): a
/// scroll view's new bounds origin, a message.
enum SceneEffect {
    case bounds(ViewIndex, Point)
    case publish(Message)
}

/// The scroll views' behaviour: a drag moves the content under the fingers (stretched past the
/// edges, ScrollPhysics), the motion after the lift, a touch that stops it, a client that
/// changes a scroll view's keys, and the `scroll` messages with their flags (isDragging,
/// isDecelerating). It reads the scene and the arbiter and changes neither: what it does to
/// them comes back as `SceneEffect`s.
struct ScrollViews {
    /// Where each dragged scroll view's content was when its pan began (unstretched).
    private var start: [RecognizerIndex: Point] = [:]
    /// The flags of each scroll view's last `scroll` message, while one of them is true.
    private var flags: [ViewIndex: ScrollPhysics.Flags] = [:]
    /// Scroll views moving on after the finger lifted.
    private(set) var physics = ScrollPhysics()

    var isMoving: Bool { !physics.isEmpty }
    func isMoving(_ v: ViewIndex) -> Bool { physics.isMoving(v) }
    var nextDeadline: Int64? { physics.nextDeadline }

    /// Carries out a drag event: the effects on the scene and the outbox, in order.
    mutating func handle(_ e: ScrollEvent, scene: Scene) -> [SceneEffect] {
        switch e {
        case .began(let r, let v):
            physics.stop(v)
            start[r] = scene[v].scroll.map { ScrollPhysics.dragStart(offset: scene[v].boundsOrigin, spec: $0, size: scene[v].frame.size) }
                ?? scene[v].boundsOrigin
            return []
        case .dragged(let r, let v, let translation, let time):
            // bounds origin = start − translation, stretched past the edges when it bounces.
            guard let spec = scene[v].scroll, let s = start[r] else { return [] }
            let offset = ScrollPhysics.dragOffset(start: s, translation: translation, spec: spec, size: scene[v].frame.size)
            guard offset != scene[v].boundsOrigin else { return [] }
            flags[v] = ScrollPhysics.Flags(dragging: true, decelerating: false)
            return [.bounds(v, offset), .publish(.scroll(ScrollMessage(seq: 0, time: time, view: v, offset: offset, dragging: true, decelerating: false)))]
        case .released(_, let v, let finger, let time):
            guard let spec = scene[v].scroll else { return [] }
            physics.release(v, offset: scene[v].boundsOrigin, velocity: Point(-finger.x, -finger.y), spec: spec,
                            size: scene[v].frame.size, time: time)
            return []
        }
    }

    /// A touch landing on a scroll view that moves on stops it there (UIKit: a tap on a
    /// decelerating scroll view stops it and is not delivered to the content). The views it
    /// stopped.
    mutating func stop(seenBy recognizers: [RecognizerIndex], _ arbiter: GestureArbiter) -> [ViewIndex] {
        var stopped: [ViewIndex] = []
        for r in recognizers where arbiter[r].config.isScrollView && physics.isMoving(arbiter[r].view) {
            physics.stop(arbiter[r].view)
            stopped.append(arbiter[r].view)
        }
        return stopped
    }

    /// Recognizers and views that left the scene: their drags and motions are forgotten.
    mutating func forget(recognizers: [RecognizerIndex], views: [ViewIndex]) {
        for r in recognizers { start[r] = nil }
        for v in views {
            physics.stop(v)
            flags[v] = nil
        }
    }

    /// Moves the scroll views that move on up to `time`: their frames as effects.
    mutating func advance(to time: Int64) -> [SceneEffect] {
        guard !physics.isEmpty else { return [] }
        var out: [SceneEffect] = []
        for f in physics.advance(to: time) {
            out.append(.bounds(f.view, f.offset))
            out.append(.publish(.scroll(ScrollMessage(seq: 0, time: f.time, view: f.view, offset: f.offset, dragging: false, decelerating: !f.done))))
            flags[f.view] = f.done ? nil : ScrollPhysics.Flags(dragging: false, decelerating: true)
        }
        return out
    }

    /// A client set a scroll view's keys (`update`, `set.scroll`) or its size. Unless a finger
    /// drags it (the drag goes on against the new size: past an end it stretches, and springs
    /// back on release): a motion under way goes on against the new keys (ScrollPhysics.
    /// retarget: a new content size keeps it, clamping only an offset now out of range; paging,
    /// bounces or a new size settle at a valid offset), with a `scroll` message when that moved
    /// the offset or ended the motion; a still view's offset past the new end is clamped at
    /// once, with a `scroll` message: not animated, as UIKit's setting contentSize is not (UIKit
    /// leaves the offset until the next layout; touchd has none).
    mutating func keysChanged(_ v: ViewIndex, dragging: Bool, time: Int64, scene: Scene) -> [SceneEffect] {
        guard let spec = scene[v].scroll, !dragging else { return [] }
        let o = scene[v].boundsOrigin
        if let now = physics.retarget(v, spec: spec, size: scene[v].frame.size) {
            guard now.offset != o || !now.moving else { return [] }
            flags[v] = now.moving ? ScrollPhysics.Flags(dragging: false, decelerating: true) : nil
            return [.bounds(v, now.offset), .publish(.scroll(ScrollMessage(seq: 0, time: time, view: v, offset: now.offset, dragging: false, decelerating: now.moving)))]
        }
        let m = ScrollPhysics.maxOffset(spec, scene[v].frame.size)
        let inBounds = Point(min(max(o.x, 0), m.x), min(max(o.y, 0), m.y))
        guard inBounds != o else { return [] }
        flags[v] = nil
        return [.bounds(v, inBounds), .publish(.scroll(ScrollMessage(seq: 0, time: time, view: v, offset: inBounds, dragging: false, decelerating: false)))]
    }

    /// A client set a moving scroll view's offset (`set.boundsOrigin`, already in the scene):
    /// as UIKit's setContentOffset(_:animated: false), the way to stop a fling, the motion stops
    /// there and subscribers hear of the new offset (scrollViewDidScroll), no longer
    /// decelerating. A still view's offset changes silently, as before.
    mutating func offsetSet(_ v: ViewIndex, time: Int64, scene: Scene) -> [SceneEffect] {
        guard physics.isMoving(v) else { return [] }
        physics.stop(v)
        flags[v] = nil
        return [.publish(.scroll(ScrollMessage(seq: 0, time: time, view: v, offset: scene[v].boundsOrigin, dragging: false, decelerating: false)))]
    }

    /// `scroll` goes out when the offset changes, and also when `dragging` or `decelerating`
    /// turns false without it (UIScrollView.isDragging / isDecelerating): a drag that ends
    /// without motion, a touch that stops a decelerating view, a motion whose last step did not
    /// move it. The message repeats the offset with the flags as they now are.
    mutating func correctFlags(time: Int64, scene: Scene, _ arbiter: GestureArbiter) -> [SceneEffect] {
        // Checked first without sorting: during a drag this runs every frame and finds nothing.
        guard flags.contains(where: { flagTurnedFalse($0.key, said: $0.value, arbiter) != nil }) else { return [] }
        var out: [SceneEffect] = []
        for (v, said) in flags.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let now = flagTurnedFalse(v, said: said, arbiter) else { continue }
            out.append(.publish(.scroll(ScrollMessage(seq: 0, time: time, view: v, offset: scene[v].boundsOrigin,
                                                      dragging: now.dragging, decelerating: now.decelerating))))
            flags[v] = now.dragging || now.decelerating ? now : nil
        }
        return out
    }

    var hasFlags: Bool { !flags.isEmpty }

    /// The view's flags now, when one that its last message said true has turned false (a drag
    /// handing over to a motion is not one: the motion's first frame, 16 ms on, says so).
    private func flagTurnedFalse(_ v: ViewIndex, said: ScrollPhysics.Flags, _ arbiter: GestureArbiter) -> ScrollPhysics.Flags? {
        let now = ScrollPhysics.Flags(dragging: arbiter.isDragging(v), decelerating: physics.isMoving(v))
        if now.decelerating && !now.dragging { return nil }
        return (said.dragging && !now.dragging) || (said.decelerating && !now.decelerating) ? now : nil
    }
}
