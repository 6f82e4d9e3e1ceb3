/// What the arbiter decided, for the engine to carry out in order (the arbiter reads the scene
/// and the touches, and changes neither): a message to publish, a touch a recognizer takes from
/// the views (cancelsTouchesInView), a scroll view's drag for ScrollViews, recognizer ids the
/// scene's settings no longer name.
enum ArbiterAction {
    case publish(Message)
    case take(touch: Int)
    case scroll(ScrollEvent)
    case forget(view: ViewIndex, recognizers: Set<String>)
}

/// What every decision of one step reads: the touches and the scene as the engine has them when
/// it asks, and the step's time (an event's, or a timer's deadline). A value the engine builds
/// per call (`Engine.arbiterContext`): the arbiter changes neither, and the actions it returns
/// are carried out only after the call, so it never sees one half done.
struct ArbiterContext {
    let touches: TouchTable
    let scene: Scene
    let time: Int64
}

/// The gesture recognizers of a scene and the rules between them, as in UIKit: recognizers on
/// the hit view and its ancestors see a touch first (the deepest decides first); when one
/// recognizes (or begins), the others sharing a touch with it fail unless declared
/// simultaneous, and those requiring it to fail fail too; one that requires others waits until
/// they fail; a control wins its own tap; a scroll view's pan drags its content (ScrollViews
/// moves it). Decisions only: each entry point (feed, cancel, remove, fireTimers, settle,
/// resetFinished) takes its step's `ArbiterContext` and returns what follows as
/// `ArbiterAction`s, in the order they happen; the functions that decide inside a step append to
/// that step's list (`out`). The arbiter keeps no actions between calls.
struct GestureArbiter {
    internal(set) var recognizers: [GestureRecognizer] = []
    /// Per view (by index), the recognizers attached to it.
    private(set) var viewRecognizers: [[RecognizerIndex]] = []

    /// Recognizers are numbered so that their order never depends on how the config lists
    /// them: deeper views first (a view's recognizers before its ancestors', as they see a touch),
    /// and on one view a scroll view's own pan first, then the others by id. UIKit sets no order
    /// ("there is no set order for which gesture recognizers receive a touch first"); touchd's is
    /// fixed, so the same input always has the same winner.
    /// Recognizers by id (for requireToFail and simultaneousWith).
    private(set) var byID: [String: RecognizerIndex] = [:]
    private var free: [RecognizerIndex] = []
    private(set) var liveCount = 0

    init(scene: Scene) {
        // Parents come before their children in a config's scene: reversed, every view comes
        // after all of its descendants.
        add(views: scene.viewIndices.reversed(), scene: scene)
    }

    /// Recognizers for views that joined the scene (a scroll view's pan, then the others by
    /// id); their references are resolved against every recognizer there is.
    mutating func add(views: [ViewIndex], scene: Scene) {
        if viewRecognizers.count < scene.views.count {
            viewRecognizers += Array(repeating: [], count: scene.views.count - viewRecognizers.count)
        }
        var added: [(RecognizerIndex, GestureSettings)] = []
        for v in views {
            let node = scene[v]
            if let scroll = node.scroll { add(RecognizerConfig(scrollViewID: node.id, view: v, spec: scroll)) }
            for g in node.gestures.sorted(by: { $0.id < $1.id }) {
                var c = RecognizerConfig(settings: g, view: v)
                c.screen = scene.outputSize(of: v)   // its output's edges
                let r = add(c)
                byID[g.id] = r
                added.append((r, g))
            }
        }
        for (r, g) in added {
            recognizers[r.rawValue].config.requireToFail = g.requireToFail.compactMap { byID[$0] }
            recognizers[r.rawValue].config.simultaneousWith = Set(g.simultaneousWith.compactMap { byID[$0] })
        }
    }

    @discardableResult
    private mutating func add(_ c: RecognizerConfig) -> RecognizerIndex {
        liveCount += 1
        let r: RecognizerIndex
        if let slot = free.popLast() {
            r = slot
            recognizers[r.rawValue] = GestureRecognizer(c)
        } else {
            r = RecognizerIndex(recognizers.count)
            recognizers.append(GestureRecognizer(c))
        }
        viewRecognizers[c.view.rawValue].append(r)
        return r
    }

    /// The recognizers of views that leave the scene: one that began is cancelled, one still
    /// deciding fails — all of them first, and quietly for one another (removing a view with a
    /// double tap and a single tap waiting on it must not make the single tap fire). Then they
    /// are gone with every reference to them, in the arbiter and (`forget` actions) in the
    /// scene's settings (a reload rebuilds recognizers from those), and survivors that waited on
    /// one go ahead. Returns the recognizers removed (ScrollViews forgets their drags) and the
    /// actions.
    mutating func remove(views: [ViewIndex], _ c: ArbiterContext) -> (removed: [RecognizerIndex], actions: [ArbiterAction]) {
        var gone: [RecognizerIndex] = []
        for v in views where v.rawValue < viewRecognizers.count {
            gone += viewRecognizers[v.rawValue]
            viewRecognizers[v.rawValue] = []
        }
        guard !gone.isEmpty else { return ([], []) }
        var out: [ArbiterAction] = []
        let set = Set(gone)
        for r in gone where !self[r].terminal && !self[r].touches.isEmpty {
            recognizers[r.rawValue].state.phase = self[r].active ? .cancelled : .failed
            recognizers[r.rawValue].state.pending = nil
            recognizers[r.rawValue].state.deadline = nil
            publish(r, c, &out)
        }
        let goneIDs = Set(gone.map { self[$0].id })
        let waiting = indices.filter { !set.contains($0) && self[$0].state.pending != nil && self[$0].config.requireToFail.contains(where: set.contains) }
        for r in gone {
            if byID[self[r].id] == r { byID[self[r].id] = nil }
            recognizers[r.rawValue].removed = true
            recognizers[r.rawValue].reset()
            free.append(r)
            liveCount -= 1
        }
        var forgetting: [ViewIndex] = []
        for i in recognizers.indices where !recognizers[i].removed {
            let refers = recognizers[i].config.requireToFail.contains(where: set.contains) || !recognizers[i].config.simultaneousWith.isDisjoint(with: set)
            guard refers else { continue }
            recognizers[i].config.requireToFail.removeAll { set.contains($0) }
            recognizers[i].config.simultaneousWith.subtract(set)
            if !forgetting.contains(recognizers[i].view) { forgetting.append(recognizers[i].view) }
        }
        for v in forgetting { out.append(.forget(view: v, recognizers: goneIDs)) }
        for o in waiting where !self[o].removed {
            guard let p = self[o].state.pending, !waitsForRequired(o) else { continue }
            recognizers[o.rawValue].state.pending = nil
            apply(p, to: o, c, &out)
        }
        return (gone, out)
    }

    /// Touches whose view went away: the recognizers still following them (those of views that
    /// stay) see them cancelled, as a device's cancellation would show them.
    mutating func cancel(touches list: [Int], _ c: ArbiterContext) -> [ArbiterAction] {
        guard liveCount > 0 else { return [] }
        var out: [ArbiterAction] = []
        var grouped = TouchesByRecognizer()
        for i in list {
            let t = c.touches[i]
            for r in t.recognizers where !self[r].removed && self[r].touches.contains(t.id) {
                grouped.append(GestureTouch(id: t.id, phase: .cancelled, location: t.location, screen: t.location + t.windowOrigin), to: r)
            }
        }
        for (r, list) in grouped.groups {
            let request = recognizers[r.rawValue].update(list, time: c.time)
            apply(request, to: r, c, &out)
        }
        return out
    }

    var isEmpty: Bool { liveCount == 0 }
    subscript(r: RecognizerIndex) -> GestureRecognizer { _read { yield recognizers[r.rawValue] } }
    var indices: [RecognizerIndex] { recognizers.indices.filter { !recognizers[$0].removed }.map(RecognizerIndex.init) }

    // MARK: Feeding

    /// Feeds the recognizers the touches of device `d` that changed in this frame.
    mutating func feed(device d: DeviceIndex, _ c: ArbiterContext) -> [ArbiterAction] {
        guard liveCount > 0 else { return [] }
        var out: [ArbiterAction] = []
        var grouped = TouchesByRecognizer()
        for i in c.touches.slots(of: d) where c.touches[i].phase != .stationary {
            let t = c.touches[i]
            for r in t.recognizers {
                if t.phase == .began && self[r].terminal { continue }
                if t.phase != .began && !self[r].touches.contains(t.id) { continue }
                grouped.append(GestureTouch(id: t.id, phase: t.phase, location: t.location, screen: t.location + t.windowOrigin), to: r)
            }
        }
        // In the touches' order: the hit view's recognizers before its ancestors'.
        for (r, list) in grouped.groups {
            let request = recognizers[r.rawValue].update(list, time: c.time)
            apply(request, to: r, c, &out)
        }
        return out
    }

    /// When the next timer is due: a recognizer's deadline, or a scroll view's content delay
    /// for a touch it still holds (ignored touches are never held; a delay already past is not
    /// a timer any more, whoever else holds the touch).
    func nextDeadline(touches: TouchTable, after lastTime: Int64) -> Int64? {
        guard liveCount > 0 else { return nil }
        var best: Int64?
        for g in recognizers { if let d = g.state.deadline, best.map({ d < $0 }) ?? true { best = d } }
        // A touch whose began is held is one the table notes for a look every step.
        touches.forEachNeedingLook { t in
            guard t.viewState == .pending && !t.undelivered else { return }
            for r in t.recognizers {
                let g = self[r]
                guard let scroll = g.config.scroll, g.config.delaysTouchesBegan, g.undecided else { continue }
                let d = DeliveryGate.contentDelayEnd(g, scroll)
                if d > lastTime && best.map({ d < $0 }) ?? true { best = d }
            }
        }
        return best
    }

    /// Fires the recognizers' timers due at the step's time.
    mutating func fireTimers(_ c: ArbiterContext) -> [ArbiterAction] {
        var out: [ArbiterAction] = []
        for r in indices where self[r].state.deadline.map({ $0 <= c.time }) == true {
            let request = recognizers[r.rawValue].timerFired(time: c.time)
            apply(request, to: r, c, &out)
        }
        return out
    }

    /// Every recognizer that holds touches ends now: those that began are cancelled, those
    /// still deciding fail.
    mutating func settle(_ c: ArbiterContext) -> [ArbiterAction] {
        var out: [ArbiterAction] = []
        for r in indices where !self[r].terminal && !self[r].touches.isEmpty {
            if self[r].active {
                recognizers[r.rawValue].state.phase = .cancelled
                publish(r, c, &out)
                if self[r].config.isScrollView { release(r, c, &out, velocity: .zero) }
            } else {
                fail(r, c, &out)
            }
        }
        return out
    }

    /// Recognizers whose sequence is over get a fresh state. A scroll view whose fingers have
    /// all lifted and that does not move on (its pan never began: a touch caught a spring back
    /// or a page settle and lifted without dragging) springs back into bounds or settles on a
    /// page from where it is: UIKit never leaves a scroll view past an edge or between pages
    /// once no finger is down. `moving`: the scroll views moving on now.
    mutating func resetFinished(time: Int64, moving: (ViewIndex) -> Bool) -> [ArbiterAction] {
        var out: [ArbiterAction] = []
        for i in recognizers.indices where !recognizers[i].touches.isEmpty && !recognizers[i].removed {
            let v = recognizers[i].view
            if recognizers[i].config.isScrollView && recognizers[i].state.down.isEmpty && !moving(v) && !touchesHeld(on: v) {
                out.append(.scroll(.released(RecognizerIndex(i), view: v, velocity: .zero, time: time)))
            }
            recognizers[i].resetIfDone()
        }
        return out
    }

    // MARK: Decisions

    func shareTouches(_ a: RecognizerIndex, _ b: RecognizerIndex) -> Bool {
        !Set(self[a].touches).isDisjoint(with: self[b].touches)
    }

    func simultaneous(_ a: RecognizerIndex, _ b: RecognizerIndex) -> Bool {
        self[a].config.simultaneousWith.contains(b) || self[b].config.simultaneousWith.contains(a)
    }

    func publish(_ r: RecognizerIndex, _ c: ArbiterContext, _ out: inout [ArbiterAction]) {
        let g = self[r]
        out.append(.publish(.gesture(GestureMessage(seq: 0, time: c.time, recognizer: g.id, view: g.view,
                                            state: g.phase, touches: g.touches, location: g.location, values: g.values))))
    }

    /// The rule of requireToFail: a recognizer that requires others waits while one of them is
    /// undecided and has touches (UIGestureRecognizer.require(toFail:)).
    func waitsForRequired(_ r: RecognizerIndex) -> Bool {
        self[r].config.requireToFail.contains { self[$0].undecided && !self[$0].touches.isEmpty }
    }

    mutating func apply(_ request: GestureRequest, to r: RecognizerIndex, _ c: ArbiterContext, _ out: inout [ArbiterAction]) {
        switch request {
        case .none:
            return
        case .fail:
            fail(r, c, &out)
        case .change:
            guard self[r].active else { return }
            recognizers[r.rawValue].state.phase = .changed
            publish(r, c, &out)
            if self[r].config.isScrollView { drag(r, c, &out) }
        case .end:
            guard self[r].active else { fail(r, c, &out); return }
            recognizers[r.rawValue].state.phase = .ended
            if self[r].config.isScrollView { drag(r, c, &out) }
            publish(r, c, &out)
            if self[r].config.isScrollView { release(r, c, &out) }
        case .cancel:
            guard self[r].active else { fail(r, c, &out); return }
            recognizers[r.rawValue].state.phase = .cancelled
            publish(r, c, &out)
            if self[r].config.isScrollView { release(r, c, &out, velocity: .zero) }
        case .begin, .recognize:
            guard self[r].phase == .possible else { return }
            if mustFail(r, c) {
                fail(r, c, &out)
                return
            }
            if waitsForRequired(r) {
                recognizers[r.rawValue].state.pending = request
                return
            }
            succeed(r, request, c, &out)
        }
    }

    /// Reasons a recognizer that wants to recognize (or begin) fails instead.
    func mustFail(_ r: RecognizerIndex, _ c: ArbiterContext) -> Bool {
        let g = self[r]
        let touches = c.touches, scene = c.scene
        if g.config.isScrollView && !scrollsAlongDrag(r, scene: scene) { return true }
        // A scroll view whose content already has the touch (delivered after the content delay)
        // scrolls only if it may take it back: canCancelContentTouches, and for a control
        // touchesShouldCancel(in:) — false by default, so a tracking button keeps its touch and
        // the view does not scroll (UIScrollView.touchesShouldCancel(in:)).
        if let scroll = g.config.scroll {
            for t in g.touches.compactMap({ touches.slot(ofID: $0).map { touches[$0] } }) where t.view != g.view && (t.viewState == .active || t.viewState == .endHeld) {
                if !scroll.canCancelContentTouches { return true }
                if let v = t.view, scene[v].control != nil, !scroll.cancelsControlTouches { return true }
            }
        }
        // Controls win their own taps (UIKit since iOS 6): a single-tap recognizer above a
        // control does not take the control's tap.
        if g.config.isSingleTap, g.touches.contains(where: { id in
            guard let i = touches.slot(ofID: id), let v = touches[i].view, v != g.view else { return false }
            return scene[v].control != nil && scene[v].enabled && scene.isDescendant(v, of: g.view)
        }) {
            return true
        }
        // Another recognizer already won these touches (recognized, or began — and not over
        // until the sequence is): one winner per touch sequence, unless declared simultaneous.
        for o in indices where o != r && self[o].won {
            if shareTouches(r, o) && !simultaneous(r, o) { return true }
        }
        // A required recognizer that succeeded rules this one out.
        return g.config.requireToFail.contains(where: { self[$0].won })
    }

    mutating func succeed(_ r: RecognizerIndex, _ request: GestureRequest, _ c: ArbiterContext, _ out: inout [ArbiterAction]) {
        recognizers[r.rawValue].state.pending = nil
        recognizers[r.rawValue].state.deadline = nil
        recognizers[r.rawValue].state.phase = request == .begin ? .began : .recognized
        // A new drag takes over where the content is (a motion under way stops there).
        if self[r].config.isScrollView { out.append(.scroll(.began(r, view: self[r].view))) }
        publish(r, c, &out)
        // By default one recognizer's success makes the others that share its touches fail.
        for o in indices where o != r && self[o].undecided && shareTouches(r, o) && !simultaneous(r, o) {
            fail(o, c, &out)
        }
        // Those waiting for this one to fail cannot succeed now.
        for o in indices where self[o].state.pending != nil && self[o].config.requireToFail.contains(r) {
            fail(o, c, &out)
        }
        let g = self[r]
        let touches = c.touches
        let ids = Set(g.touches)
        if g.config.isScrollView {
            // A drag that starts before the content delay is the scroll view's alone: content
            // touches not yet delivered are taken whatever canCancelContentTouches says, so a
            // flick scrolls or presses, never both; those the content has are taken back only
            // when it may cancel them.
            // And like any pan it cancels the touches in its own view (cancelsTouchesInView): a
            // drag that starts on the scroll view's background is not a tap on it (or, up the
            // responder chain, on the root) once the view scrolls.
            for i in ids.compactMap(touches.slot(ofID:)) {
                let content = touches[i].view != g.view
                if g.config.cancelsTouchesInView || (content && touches[i].viewState == .pending) { out.append(.take(touch: touches[i].id)) }
            }
        } else {
            // cancelsTouchesInView takes every touch from the view; delaysTouchesBegan discards
            // those it still held, whatever cancelsTouchesInView says ("if the gesture recognizer
            // subsequently recognizes its gesture, these touch objects are discarded").
            for i in ids.compactMap(touches.slot(ofID:))
            where g.config.cancelsTouchesInView || (g.config.delaysTouchesBegan && touches[i].viewState == .pending) {
                out.append(.take(touch: touches[i].id))
            }
        }
        if g.config.isScrollView { drag(r, c, &out) }
    }

    mutating func fail(_ r: RecognizerIndex, _ c: ArbiterContext, _ out: inout [ArbiterAction]) {
        guard !self[r].terminal else { return }
        recognizers[r.rawValue].state.phase = .failed
        recognizers[r.rawValue].state.pending = nil
        recognizers[r.rawValue].state.deadline = nil
        publish(r, c, &out)
        // Those that waited for this one to fail may go ahead.
        for o in indices where self[o].config.requireToFail.contains(r) {
            if let p = self[o].state.pending, !waitsForRequired(o) {
                recognizers[o.rawValue].state.pending = nil
                apply(p, to: o, c, &out)
            }
        }
    }
}
