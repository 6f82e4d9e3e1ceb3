/// Pinch and rotation: the distance and the angle between two fingers.
extension GestureRecognizer {
    var isPinch: Bool { if case .pinch = config.kind { return true }; return false }

    mutating func updateTwoFinger(_ changed: [GestureTouch], time: Int64) -> GestureRequest {
        guard case .pair(var two) = state.kind else { return .none }
        state.kind = .busy
        defer { state.kind = .pair(two) }
        if state.phase == .possible && state.down.count > 2 { return .fail }
        if changed.contains(where: { $0.phase == .ended }) {
            // UIPinchGestureRecognizer and UIRotationGestureRecognizer go on until every finger
            // has lifted: with one finger left the scale and rotation hold (and the location
            // stays the pair's last centroid); a finger landing again continues from them.
            guard active else { return .fail }
            if state.down.isEmpty { return .end }
            two.scalarVelocity = 0
            state.lastTime = time
            if state.pair == nil { return .none }
        }
        guard let (a, b) = state.pair else { return .none }
        let dx = b.x - a.x, dy = b.y - a.y
        let distance = (dx * dx + dy * dy).squareRoot()
        let angle = atan2Approx(dy, dx)
        if active && (changed.contains(where: { $0.phase == .began }) || changed.contains(where: { $0.phase == .ended })) {
            // A new pair under way: the same scale and rotation from here on.
            two.initialDistance = max(distance, 1) / max(two.scale, 1e-6)
            two.lastAngle = angle
            two.lastScalar = isPinch ? two.scale : two.rotation
            state.lastTime = time
            state.lastCentroid = state.centroid
            return .none
        }
        if changed.contains(where: { $0.phase == .began }) {
            two.initialDistance = max(distance, 1)
            two.initialAngle = angle
            two.lastAngle = angle
            two.rotation = 0
            two.scale = 1
            two.lastScalar = isPinch ? 1 : 0
            state.lastTime = time
            state.lastCentroid = state.centroid
            return .none
        }
        guard changed.contains(where: { $0.phase == .moved }) else { return .none }
        // Unwrap the angle so a turn past ±π keeps counting.
        var delta = angle - two.lastAngle
        while delta > Double.pi { delta -= 2 * Double.pi }
        while delta < -Double.pi { delta += 2 * Double.pi }
        two.lastAngle = angle
        two.rotation += delta
        two.scale = distance / two.initialDistance
        let value = isPinch ? two.scale : two.rotation
        let dt = Double(max(time - state.lastTime, 1)) / 1_000_000
        two.scalarVelocity = (value - two.lastScalar) / dt
        two.lastScalar = value
        state.lastTime = time
        state.lastCentroid = state.centroid
        if state.phase == .possible {
            let moved = isPinch ? abs(distance - two.initialDistance) > 8 : abs(two.rotation) > 0.05
            return moved ? .begin : .none
        }
        return .change
    }
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
