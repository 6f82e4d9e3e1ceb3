/// Pan and swipe: the centroid of the fingers travelling.
extension GestureRecognizer {
    mutating func updatePan(_ s: GestureSettings.Pan, _ changed: [GestureTouch], time: Int64) -> GestureRequest {
        guard case .pan(var pan) = state.kind else { return .none }
        state.kind = .busy
        defer { state.kind = .pan(pan) }
        let c = state.centroid
        if changed.contains(where: { $0.phase == .began || $0.phase == .ended }) {
            // The touch set changed: keep the translation continuous (UIKit keeps it and the
            // velocity continuous across fingers landing and lifting; the raw centroid jumps, and
            // a lift made a spike of thousands of points a second, the wrong way). The velocity
            // is the translation's, so it stays continuous too.
            if !state.down.isEmpty {
                // The fingers that stay moved in this frame too: their mean step counts.
                var step = Point.zero, n = 0.0
                for (id, p) in state.down { if let q = pan.lastDown[id] { step = step + (p - q); n += 1 } }
                if n > 0 { pan.translation = pan.translation + Point(step.x / n, step.y / n) }
                pan.referenceCentroid = c - pan.translation
            }
            // A pan still deciding starts its velocity's window again with the new set of
            // fingers (movement made with too few of them is not the gesture's); one under way
            // keeps it — the translation is continuous, so are its samples.
            if !state.down.isEmpty && state.phase == .possible { pan.samples = [(time, pan.translation)] }
            if !state.down.isEmpty && state.touches.count > 1 { state.lastCentroid = c }
            if state.phase == .possible && state.down.count > s.maximumTouches { return .fail }
            if changed.contains(where: { $0.phase == .began }) && state.touches.count == 1 {
                pan.referenceCentroid = c
                state.lastCentroid = c
                state.lastTime = time
                pan.samples = [(time, .zero)]
            }
        }
        if state.down.isEmpty {
            // A finger that rested before it lifted does not fling: its velocity is spent.
            if time - state.lastTime > GestureSettings.Pan.restBeforeLift { pan.velocity = .zero }
            if active { return .end }
            return .fail
        }
        if active && state.down.count < s.minimumTouches {
            // Under way with fewer than its minimum down (a finger lifted): it keeps its fingers
            // until the last lifts and says nothing meanwhile; what the fingers left move is not
            // its translation (re-based, so a returning finger goes on from where it was).
            pan.referenceCentroid = c - pan.translation
            return .none
        }
        if state.phase == .possible && state.down.count < s.minimumTouches {
            // Too few fingers yet: what they move does not count. The translation (and the
            // hysteresis) starts when the last finger needed lands, the velocity too
            // (UIPanGestureRecognizer.minimumNumberOfTouches; issue 20, item 7).
            pan.referenceCentroid = c
            state.lastCentroid = c
            state.lastTime = time
            pan.translation = .zero
            pan.samples = [(time, .zero)]
            return .none
        }
        guard changed.contains(where: { $0.phase == .moved }) else { return .none }
        let newTranslation = c - pan.referenceCentroid
        pan.velocity = GestureRecognizer.recordVelocity(&pan, newTranslation, time: time)
        state.lastCentroid = c
        state.lastTime = time
        pan.translation = newTranslation
        if state.phase == .possible {
            guard state.down.count >= s.minimumTouches, state.down.count <= s.maximumTouches else { return .none }
            let t = pan.translation
            return (t.x * t.x + t.y * t.y).squareRoot() > GestureSettings.Pan.hysteresis ? .begin : .none
        }
        return .change
    }

    /// The translation's velocity over the last `velocityWindow` (points a second). The
    /// translation is continuous across fingers landing and lifting, so is this; smoothed over a
    /// few events, one late or early event time does not make a spike.
    static func recordVelocity(_ pan: inout PanState, _ translation: Point, time: Int64) -> Point {
        if let last = pan.samples.last, time <= last.time {
            // No time has passed since the last sample (a finger landed or lifted in this same
            // frame, or the input's clock stepped back): the sample moves, the velocity stands.
            pan.samples[pan.samples.count - 1].translation = translation
            return pan.velocity
        }
        pan.samples.append((time, translation))
        while pan.samples.count > 2
                && (time - pan.samples[0].time > GestureSettings.Pan.velocityWindow
                    || pan.samples.count > GestureSettings.Pan.velocitySamples) {
            pan.samples.removeFirst()
        }
        let first = pan.samples[0]
        guard pan.samples.count > 1 else { return .zero }
        let dt = Double(max(time - first.time, 1)) / 1_000_000
        return Point((translation.x - first.translation.x) / dt, (translation.y - first.translation.y) / dt)
    }

    mutating func updateSwipe(_ s: GestureSettings.Swipe, _ changed: [GestureTouch], time: Int64) -> GestureRequest {
        guard state.phase == .possible, case .swipe(var swipe) = state.kind else { return .none }
        state.kind = .busy
        defer { state.kind = .swipe(swipe) }
        if changed.contains(where: { $0.phase == .began }) {
            if state.down.count > s.touches { return .fail }
            if state.touches.count == 1 {
                swipe.referenceCentroid = state.centroid
                state.lastCentroid = state.centroid
                state.deadline = time + s.maximumDuration
            }
            if state.down.count == s.touches { swipe.referenceCentroid = state.centroid }
        }
        if changed.contains(where: { $0.phase == .ended }) { return .fail }
        guard changed.contains(where: { $0.phase == .moved }), state.down.count == s.touches else { return .none }
        if time - state.startTime > s.maximumDuration { return .fail }
        let c = state.centroid
        state.lastCentroid = c
        let d = c - swipe.referenceCentroid
        guard (d.x * d.x + d.y * d.y).squareRoot() >= s.minimumDistance else { return .none }
        let dir: GestureSettings.Direction = abs(d.x) >= abs(d.y) ? (d.x > 0 ? .right : .left) : (d.y > 0 ? .down : .up)
        guard s.directions.contains(dir) else { return .fail }
        swipe.direction = dir
        // UISwipeGestureRecognizer's location(in:) is where the swipe began.
        state.fixedLocation = swipe.referenceCentroid
        state.lastCentroid = swipe.referenceCentroid
        return .recognize
    }

    /// A one-finger pan that must start near one of the edges and move away from it.
    mutating func updateScreenEdgePan(_ s: GestureSettings.ScreenEdgePan, _ changed: [GestureTouch], time: Int64) -> GestureRequest {
        if state.phase == .possible, state.touches.count == 1, let b = changed.first(where: { $0.phase == .began }), case .pan(var pan) = state.kind {
            let w = GestureSettings.ScreenEdgePan.edgeWidth
            let size = config.screen
            pan.nearEdges = GestureSettings.Edge.allCases.filter { e in
                guard s.edges.contains(e) else { return false }
                switch e {
                case .left: return b.screen.x < w
                case .right: return b.screen.x > size.width - 1 - w
                case .top: return b.screen.y < w
                case .bottom: return b.screen.y > size.height - 1 - w
                }
            }
            state.kind = .pan(pan)
            if pan.nearEdges.isEmpty { return .fail }
        }
        var oneFinger = GestureSettings.Pan()
        oneFinger.maximumTouches = 1
        let request = updatePan(oneFinger, changed, time: time)
        guard request == .begin, case .pan(var pan) = state.kind else { return request }
        // It began moving: only away from an edge it started near (into the screen) counts.
        let t = pan.translation
        let away = pan.nearEdges.first { e in
            switch e {
            case .left: return t.x > 0 && abs(t.x) >= abs(t.y)
            case .right: return t.x < 0 && abs(t.x) >= abs(t.y)
            case .top: return t.y > 0 && abs(t.y) >= abs(t.x)
            case .bottom: return t.y < 0 && abs(t.y) >= abs(t.x)
            }
        }
        guard let away else { return .fail }
        pan.edge = away
        state.kind = .pan(pan)
        return .begin
    }
}
