/// Calibration from the UI on the glass (`{"calibrate":{"device":ID,…}}`, issue 33 item 3).
/// While a calibration runs, its device's contacts are its own: the device's tracker still
/// follows them, but they go, raw (device units, before the filter and the mapping), to the
/// CalibrationSession — no hit test, no window, no frame, no uinput re-export; the touches down
/// on the device when it starts end for everyone (`cancelled`, reason `calibrating`). The
/// session's messages go to its client alone (`EngineOutput.calibration`). Its matrix replaces
/// the device's calibration in the running settings until the next reload. A cancel, the
/// client leaving, the device going, its output turning or a reload end it with nothing changed;
/// the fingers then down stay undelivered until they lift.
extension Engine {
    /// Starts calibrating device `id` (its descriptor's id) for `client`: the answer is the
    /// first target. Refused (nothing changes) for an unknown device, one already calibrating,
    /// or targets off its output, too few or on one line.
    func startCalibration(device id: String, targets: [Point]?, client: Int, limits: ClientLimits = ClientLimits(), time: Int64) -> Result<SceneReply, SceneRequestError> {
        guard let d = devices.activeIndices.first(where: { devices[$0].descriptor.id == id }) else {
            return .failure(SceneRequestError(path: "device", message: "no device has id \"\(id)\" (devices: \(devices.active.map(\.id).joined(separator: ", ")))"))
        }
        if let problem = limits.actProblem(scene.outputs[devices[d].outputIndex].id, "calibrating a device of") {
            return .failure(SceneRequestError(path: "device", message: problem))
        }
        if let running = calibrations[d] {
            return .failure(SceneRequestError(path: "device", message: "device \"\(id)\" is being calibrated already\(running.client == client ? "" : " (by another client)"): one calibration a device at a time"))
        }
        let e = devices[d]
        let output = scene.outputs[e.outputIndex]
        let screen = output.pointSize
        let want = targets ?? Calibration.defaultTargets(screen)
        for (i, p) in want.enumerated() where !(p.x >= 0 && p.y >= 0 && p.x <= screen.width - 1 && p.y <= screen.height - 1) {
            let hi = "x 0…\(Calibration.wholePoints(screen.width - 1)), y 0…\(Calibration.wholePoints(screen.height - 1))"
            return .failure(SceneRequestError(path: targets == nil ? "device" : "targets[\(i)]",
                                              message: "(\(Calibration.wholePoints(p.x)), \(Calibration.wholePoints(p.y))) is off output \"\(output.id)\", where device \"\(id)\" lands (its points: \(hi))"))
        }
        if let problem = CalibrationRun.problem(want, screen: screen) {
            return .failure(SceneRequestError(path: "targets", message: problem))
        }
        // The fit is in the points the device's touches land in now: its own swap, flips and
        // rotation, then its output's rotation (DeviceRegistry.mapping's order).
        var settings = e.settings
        settings.rotation = settings.rotation.then(output.rotation)
        let axes = Calibration.Axes(x: e.info.abs[e.tracker.xCode] ?? AbsInfo(minimum: 0, maximum: Int32(output.size.width) - 1),
                                    y: e.info.abs[e.tracker.yCode] ?? AbsInfo(minimum: 0, maximum: Int32(output.size.height) - 1))
        var session = CalibrationSession(client: client, device: e.descriptor, output: output.id,
                                         run: CalibrationRun(targets: want, screen: screen, axes: axes, settings: settings))
        session.timeout = limits.calibrationTimeout
        session.deadline = time + limits.calibrationTimeout
        // The touches down on it end for everyone now: from here its contacts are the session's.
        changes.removeAll(keepingCapacity: true)
        devices.suppressLive(d, .calibrating, time: time, into: &changes)
        if !changes.isEmpty { handleFrame(device: d, time: time) }
        // What the filter holds of this device goes on now (a lift ends, a touch-down still
        // counted is delivered, then cancelled above); other devices' holds keep their time: a
        // bounce held on another panel is still joined.
        if devices.holding {
            devices.held.settle(device: d)
            releaseHeldFrames()
        }
        calibrations[d] = session
        log?(.info, "\(id): calibrating for client \(client) on output \(output.id) (\(want.count) targets)")
        return .success(.calibration(session.prompt))
    }

    /// `{"calibrate":{"device":ID,"cancel":true}}` of the client whose calibration it is.
    func cancelCalibration(device id: String, client: Int) -> Result<SceneReply, SceneRequestError> {
        guard let d = calibrations.first(where: { $0.value.device.id == id && $0.value.client == client })?.key else {
            return .failure(SceneRequestError(path: "device", message: "no calibration of device \"\(id)\" is running for this client"))
        }
        endCalibration(d, reason: nil)
        return .success(.calibration(.ended(device: id, reason: "cancelled")))
    }

    /// Client `client` went away: its calibrations end, nothing changed (nobody to tell).
    public func calibrationClientGone(_ client: Int) {
        for (d, s) in calibrations.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where s.client == client {
            endCalibration(d, reason: nil)
        }
    }

    /// The first calibration to end by itself for want of a tap (nil: none runs).
    var calibrationDeadline: Int64? { calibrations.isEmpty ? nil : calibrations.values.map(\.deadline).min() }

    /// The calibrations whose time ran out by `due` end, nothing changed (reason `timeout`): a
    /// client cannot hold a device's touches for ever by never finishing (issue 40, item 1).
    func expireCalibrations(due: Int64) {
        guard let first = calibrationDeadline, first <= due else { return }
        for (d, s) in calibrations.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where s.deadline <= due {
            endCalibration(d, reason: "timeout")
        }
    }

    /// Whether device `d` is being calibrated (its contacts reach no window).
    public func isCalibrating(_ d: DeviceIndex) -> Bool { calibrations[d] != nil }

    /// Ends `d`'s calibration, if any, with nothing changed; its client is told why (`reason`,
    /// unless nil). Fingers down on the device stay undelivered until they lift.
    func endCalibration(_ d: DeviceIndex, reason: String?) {
        guard let s = calibrations.removeValue(forKey: d) else { return }
        devices.forgetLive(d)
        if let reason { outbox.calibration(client: s.client, .ended(device: s.device.id, reason: reason)) }
        log?(.info, "\(s.device.id): calibration ended (\(reason ?? "its client"))")
    }

    /// One event of a device being calibrated: its tracker's changes go to the session; its
    /// messages to its client; the last target's tap applies the matrix.
    func calibrate(_ event: InputEvent, device d: DeviceIndex) {
        changes.removeAll(keepingCapacity: true)
        let flushed = devices.feedTracker(event, device: d, into: &changes)
        if devices.hasIssues(d) { reportIssues(d) }
        guard flushed, !changes.isEmpty, var s = calibrations[d] else { return }
        let messages = s.feed(changes)
        // A tap (taken, or asked again) gives the user the whole time again for the next.
        if !messages.isEmpty { s.deadline = event.time + s.timeout }
        calibrations[d] = s
        for m in messages { outbox.calibration(client: s.client, m) }
        guard s.finished, case .calibrated(_, _, let matrix, let rms, let mx, _)? = messages.last else { return }
        calibrations[d] = nil
        devices.forgetLive(d)
        var settings = devices[d].settings
        settings.calibration = matrix
        updateDevice(d, settings: settings, info: devices[d].info)
        log?(.notice, "\(s.device.id): calibrated by client \(s.client) (residual rms \((rms * 100).rounded() / 100), max \((mx * 100).rounded() / 100) points): applied until the next reload")
    }
}
