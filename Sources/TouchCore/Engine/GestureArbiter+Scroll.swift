/// The arbiter's side of scroll views: their pans' drags, as events for ScrollViews (which
/// moves the content), a client's new scroll keys for the pans, and what arbitration asks of a
/// scroll view (whether its pan may begin along the drag, whether it is dragged); and, the other
/// scene change that reaches recognizers' settings, outputs turned at run time.
extension GestureArbiter {
    /// The outputs turned: each screen-edge pan takes its output's edges as they are now.
    mutating func outputsChanged(scene: Scene) {
        for k in recognizers.indices where recognizers[k].config.view.rawValue < scene.views.count {
            recognizers[k].config.screen = scene.outputSize(of: recognizers[k].config.view)
        }
    }

    /// A scroll view's pan moved: its content follows the translation.
    func drag(_ r: RecognizerIndex, _ c: ArbiterContext, _ out: inout [ArbiterAction]) {
        out.append(.scroll(.dragged(r, view: self[r].view, translation: self[r].state.translation, time: c.time)))
    }

    /// A scroll view's drag is over: the content goes on with the pan's velocity (or `velocity`).
    func release(_ r: RecognizerIndex, _ c: ArbiterContext, _ out: inout [ArbiterAction], velocity: Point? = nil) {
        out.append(.scroll(.released(r, view: self[r].view, velocity: velocity ?? self[r].state.velocity, time: c.time)))
    }

    /// A client set a scroll view's keys (`update`, `set.scroll`): its pan takes the touch keys
    /// (delaysContentTouches, canCancelContentTouches, cancelsControlTouches) for the touches to
    /// come. True when a finger drags the view now.
    mutating func scrollSpecChanged(_ v: ViewIndex, scene: Scene) -> Bool {
        guard let spec = scene[v].scroll, v.rawValue < viewRecognizers.count else { return false }
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
        return dragging
    }

    /// Whether a scroll view's pan is dragging it now (UIScrollView.isDragging).
    func isDragging(_ v: ViewIndex) -> Bool {
        v.rawValue < viewRecognizers.count && viewRecognizers[v.rawValue].contains { self[$0].config.isScrollView && self[$0].active }
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
}
