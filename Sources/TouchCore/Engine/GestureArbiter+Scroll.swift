/// The scroll views' side of the arbiter: a pan that moves content, the motion after the
/// lift (ScrollPhysics), a touch that stops it, and the `scroll` messages with their flags.
extension GestureArbiter {
    /// A touch landing on a scroll view that moves on stops it there (UIKit: a tap on a
    /// decelerating scroll view stops it and is not delivered to the content). True when it did.
    mutating func stopScrolling(seenBy recognizers: [RecognizerIndex]) -> Bool {
        var stopped = false
        for r in recognizers where self[r].config.isScrollView && physics.isMoving(self[r].view) {
            physics.stop(self[r].view)
            stopped = true
        }
        return stopped
    }

    /// `scroll` goes out when the offset changes, and also when `dragging` or `decelerating`
    /// turns false without it (UIScrollView.isDragging / isDecelerating): a drag that ends
    /// without motion, a touch that stops a decelerating view, a motion whose last step did not
    /// move it. The message repeats the offset with the flags as they now are.
    mutating func correctScrollFlags(time: Int64, scene: Scene, out: inout Outbox) {
        // Checked first without sorting: during a drag this runs every frame and finds nothing.
        guard scrollFlags.contains(where: { flagTurnedFalse($0.key, said: $0.value) != nil }) else { return }
        for (v, said) in scrollFlags.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let now = flagTurnedFalse(v, said: said) else { continue }
            out.publish(.scroll(ScrollMessage(seq: 0, time: time, view: v, offset: scene[v].boundsOrigin,
                                              dragging: now.dragging, decelerating: now.decelerating)))
            scrollFlags[v] = now.dragging || now.decelerating ? now : nil
        }
    }

    /// The view's flags now, when one that its last message said true has turned false (a drag
    /// handing over to a motion is not one: the motion's first frame, 16 ms on, says so).
    private func flagTurnedFalse(_ v: ViewIndex, said: ScrollPhysics.Flags) -> ScrollPhysics.Flags? {
        let dragging = v.rawValue < viewRecognizers.count
            && viewRecognizers[v.rawValue].contains { self[$0].config.isScrollView && self[$0].active }
        let now = ScrollPhysics.Flags(dragging: dragging, decelerating: physics.isMoving(v))
        if now.decelerating && !now.dragging { return nil }
        return (said.dragging && !now.dragging) || (said.decelerating && !now.decelerating) ? now : nil
    }

    /// Whether another of the view's recognizers still has a finger down (two scroll-view pans
    /// on one view are not made, but a view may have a scroll view pan and other recognizers).
    func touchesHeld(on v: ViewIndex) -> Bool {
        guard v.rawValue < viewRecognizers.count else { return false }
        return viewRecognizers[v.rawValue].contains { !self[$0].state.down.isEmpty }
    }

    /// Whether a scroll view's pan may begin: only along an axis the view can be dragged on
    /// (ScrollPhysics.draggable) — the one the fingers moved farther along, either when they
    /// moved as far along both. So a vertical drag over a strip that scrolls only sideways fails
    /// the strip's pan and the list around it takes the drag, and a drag along an axis whose
    /// content fits leaves the touch to the content (UIKit nests scroll views at right angles:
    /// Scroll View Programming Guide, "Nesting Scroll Views").
    func scrollsAlongDrag(_ r: RecognizerIndex, scene: Scene) -> Bool {
        let v = self[r].view
        guard let spec = scene[v].scroll else { return false }
        let d = ScrollPhysics.draggable(spec, scene[v].frame.size)
        let t = self[r].state.translation
        if abs(t.x) > abs(t.y) { return d.x }
        if abs(t.y) > abs(t.x) { return d.y }
        return d.x || d.y
    }

    /// A scroll view's pan moved its content: bounds origin = start − translation, stretched
    /// past the edges when it bounces (ScrollPhysics).
    mutating func scroll(_ r: RecognizerIndex, time: Int64, scene: inout Scene, out: inout Outbox) {
        let v = self[r].view
        guard let spec = scene[v].scroll, let start = scrollStart[r] else { return }
        let offset = ScrollPhysics.dragOffset(start: start, translation: self[r].state.translation, spec: spec, size: scene[v].frame.size)
        guard offset != scene[v].boundsOrigin else { return }
        scene.setBoundsOrigin(offset, of: v)
        out.publish(.scroll(ScrollMessage(seq: 0, time: time, view: v, offset: offset, dragging: true, decelerating: false)))
        scrollFlags[v] = ScrollPhysics.Flags(dragging: true, decelerating: false)
    }

    /// The drag is over: the content moves on with the finger's velocity (or springs back).
    mutating func release(_ r: RecognizerIndex, time: Int64, scene: Scene, velocity: Point? = nil) {
        let v = self[r].view
        guard let spec = scene[v].scroll else { return }
        let finger = velocity ?? self[r].state.velocity
        physics.release(v, offset: scene[v].boundsOrigin, velocity: Point(-finger.x, -finger.y), spec: spec,
                        size: scene[v].frame.size, time: time)
    }

    /// A client set a scroll view's keys (`update`, `set.scroll`). Its pan takes the touch keys
    /// (delaysContentTouches, canCancelContentTouches, cancelsControlTouches) for the touches to
    /// come. Unless a finger drags it (the drag goes on against the new size: past an end it
    /// stretches, and springs back on release), a motion under way stops and an offset past the
    /// new end is clamped at once, with a `scroll` message: not animated, as UIKit's setting
    /// contentSize is not (UIKit leaves the offset until the next layout; touchd has none).
    mutating func scrollKeysChanged(_ v: ViewIndex, time: Int64, scene: inout Scene, out: inout Outbox) {
        guard let spec = scene[v].scroll, v.rawValue < viewRecognizers.count else { return }
        var dragging = false
        for r in viewRecognizers[v.rawValue] where self[r].config.isScrollView {
            let old = self[r].config
            var c = RecognizerConfig(scrollViewID: scene[v].id, view: v, spec: spec)
            c.screen = old.screen
            c.requireToFail = old.requireToFail
            c.simultaneousWith = old.simultaneousWith
            recognizers[r.rawValue].config = c
            if self[r].active { dragging = true }
        }
        if dragging { return }
        let wasMoving = physics.isMoving(v)
        physics.stop(v)
        let m = ScrollPhysics.maxOffset(spec, scene[v].frame.size)
        let o = scene[v].boundsOrigin
        let inBounds = Point(min(max(o.x, 0), m.x), min(max(o.y, 0), m.y))
        guard inBounds != o || wasMoving else { return }
        scene.setBoundsOrigin(inBounds, of: v)
        out.publish(.scroll(ScrollMessage(seq: 0, time: time, view: v, offset: inBounds, dragging: false, decelerating: false)))
        scrollFlags[v] = nil
    }
}
