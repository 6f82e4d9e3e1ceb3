/// Tap and long press: discrete fingers down and up, measured against movement and time.
extension GestureRecognizer {
    mutating func updateTap(_ s: GestureSettings.Tap, _ changed: [GestureTouch], time: Int64) -> GestureRequest {
        guard state.phase == .possible, state.pending == nil, case .tap(var tap) = state.kind else { return .none }
        state.kind = .busy
        defer { state.kind = .tap(tap) }
        let beganNow = changed.filter { $0.phase == .began }.count
        if beganNow > 0 { state.deadline = nil }
        let firstBegan = changed.first { $0.phase == .began }?.id
        for t in changed where t.phase == .began {
            if state.down.count == beganNow && t.id == firstBegan {
                // A new tap of the sequence (its fingers may land in one frame).
                tap.mostTouchesThisTap = 0
                if let first = tap.firstTapLocation, first.distance(to: t.location) > max(45, s.movementTolerance) { return .fail }
                if tap.firstTapLocation == nil { tap.firstTapLocation = t.location; state.lastCentroid = t.location }
            }
            tap.mostTouchesThisTap = max(tap.mostTouchesThisTap, state.down.count)
            if state.down.count > s.touches { return .fail }
        }
        for t in changed where t.phase == .moved {
            if let start = state.start[t.id], start.distance(to: t.location) > s.movementTolerance { return .fail }
        }
        for t in changed where t.phase != .cancelled { tap.tapPoints[t.id] = t.location }
        if changed.contains(where: { $0.phase == .ended }) && state.down.isEmpty {
            guard tap.mostTouchesThisTap == s.touches else { return .fail }
            // UITapGestureRecognizer's location: the centroid of a tap's fingers, and with
            // several taps, the first tap's.
            var x = 0.0, y = 0.0
            for p in tap.tapPoints.values { x += p.x; y += p.y }
            let n = Double(max(tap.tapPoints.count, 1))
            let centroid = Point(x / n, y / n)
            tap.tapPoints.removeAll(keepingCapacity: true)
            if tap.firstTapCentroid == nil { tap.firstTapCentroid = centroid }
            tap.tapIndex += 1
            state.lastCentroid = tap.firstTapCentroid ?? centroid
            if tap.tapIndex >= s.taps {
                state.fixedLocation = state.lastCentroid
                return .recognize
            }
            state.deadline = time + s.maximumInterval
        }
        return .none
    }

    mutating func updateLongPress(_ s: GestureSettings.LongPress, _ changed: [GestureTouch], time: Int64) -> GestureRequest {
        if state.phase == .possible, case .tap(var tap) = state.kind {
            state.kind = .busy
            defer { state.kind = .tap(tap) }
            // numberOfTapsRequired: that many taps first (each lifting within the tap interval,
            // the next landing within it), then the press held for minimumDuration.
            let pressing = tap.tapIndex >= s.taps
            if changed.contains(where: { $0.phase == .began }) {
                state.lastCentroid = state.centroid
                if state.down.count > s.touches { return .fail }
                if pressing {
                    state.deadline = state.down.count == s.touches ? time + s.minimumDuration : nil
                } else {
                    if state.down.count == changed.filter({ $0.phase == .began }).count { tap.mostTouchesThisTap = 0 }
                    tap.mostTouchesThisTap = max(tap.mostTouchesThisTap, state.down.count)
                    if let first = tap.firstTapLocation, let t = changed.first(where: { $0.phase == .began }),
                       first.distance(to: t.location) > max(45, s.allowableMovement) { return .fail }
                    if tap.firstTapLocation == nil { tap.firstTapLocation = changed.first { $0.phase == .began }?.location }
                    state.deadline = time + GestureSettings.LongPress.tapInterval   // a tap lifts by then
                }
            }
            for t in changed where t.phase == .moved {
                if let start = state.start[t.id], start.distance(to: t.location) > s.allowableMovement { return .fail }
            }
            if changed.contains(where: { $0.phase == .ended }) {
                if pressing { return .fail }            // lifted before the press was long enough
                if state.down.isEmpty {
                    guard tap.mostTouchesThisTap == s.touches else { return .fail }
                    tap.tapIndex += 1
                    state.deadline = time + GestureSettings.LongPress.tapInterval   // the next touch lands by then
                }
            }
            state.lastCentroid = state.centroid
            return .none
        }
        // Began: moves are changes, a lift ends it.
        state.lastCentroid = state.centroid
        if changed.contains(where: { $0.phase == .ended }) { return .end }
        if changed.contains(where: { $0.phase == .moved }) { return .change }
        return .none
    }
}
