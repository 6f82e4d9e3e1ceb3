import TouchCore
import TouchSystem
import TouchInput
import TouchCapture

/// `touchd calibrate`: a device's calibration matrix from taps at known screen points.
struct CalibrateCommand: Command {
    static let name = "calibrate"
    static let summary = "compute a device's calibration matrix from taps at known points"
    static let operands = "(DEVICE | --capture CAPTURE --targets \"x,y;x,y;…\")"
    static let about = """
    Resistive panels and mis-mounted screens need a calibration matrix. Live, on DEVICE
    (/dev/input/eventN): five targets (the corners a tenth in, and the middle) are drawn one at
    a time on the framebuffer (/dev/fb0) where there is one, otherwise their places are
    printed, in points and as fractions of the screen; tap each (the median of each tap's
    samples counts). A tap at the place of an earlier target, or far from where the other taps
    predict it (--tolerance), restarts its target. Offline, --capture reads the taps from a
    recording, one per target in the order of --targets (screen points).

    The fit is a least-squares affine matrix (it fixes shear and small rotations too, not only
    scale and offset), in libinput's convention, applied before the config's swapXY, flips and
    rotation (taken from the device's entry in --config, with the screen size). Prints the
    config entry {"calibration":[a,b,c,d,e,f]} as its first line, then the udev line for
    libinput, then the residual error in points.

    With several displays, or one turned, the targets are points of the device's output as it
    is turned (--output ID, else the device's devices[].output, else the first output): the
    fit takes the output's rotation after the device's, as the daemon maps it, and the matrix
    stays right when the output turns. The framebuffer is drawn in the panel's natural
    orientation.
    """
    static var options: [Option<CalibrateCommand>] {
        [.optionalConfig(\.config, help: "the configuration (screen size, the device's rotation/flips)"),
         Option(["--capture"], value: "CAPTURE", help: "read the taps from a recording instead of a device") { c, v throws(UsageError) in c.capture = v },
         .deviceInfo(\.deviceInfos),
         Option(["--targets"], value: "\"x,y;…\"", help: "the screen points tapped, in order (required with --capture; live, default: the five targets)") { c, v throws(UsageError) in
             c.targets = try CalibrateCommand.parseTargets(v)
         },
         Option(["--output"], value: "ID", help: "the display the targets are on, an outputs[] id of --config\n(default: the device's devices[].output, else the first)") { c, v throws(UsageError) in c.outputID = v },
         Option(["--tolerance"], value: "POINTS", help: "a tap this far from where the others predict it is a misclick\n(default 5% of the screen's diagonal)") { c, v throws(UsageError) in
             guard let t = decimal(v), t >= 1, t <= 100_000 else { throw UsageError("--tolerance: expected points from 1 to 100000, got \"\(v)\"") }
             c.tolerance = t
         }]
    }

    var config: String?
    var capture: String?
    var deviceInfos: [String] = []
    var targets: [Point]?
    var tolerance: Double?
    var outputID: String?
    var device: String?

    mutating func validate(operands: [String]) throws(UsageError) {
        if capture != nil {
            guard operands.isEmpty else { throw UsageError("give a DEVICE or --capture, not both") }
            guard targets != nil else { throw UsageError("--capture needs --targets: the screen points tapped, in order") }
        } else {
            guard operands.count == 1 else { throw UsageError("give the DEVICE to calibrate (e.g. /dev/input/event5), or --capture with --targets") }
            device = operands[0]
        }
    }

    static func parseTargets(_ text: String) throws(UsageError) -> [Point] {
        var out: [Point] = []
        for (k, pair) in text.split(separator: ";").enumerated() {
            let xy = pair.split(separator: ",").map { String($0).trimmingCharacters() }
            guard xy.count == 2, let x = Double(xy[0]), let y = Double(xy[1]), x.isFinite, y.isFinite else {
                throw UsageError("--targets: target \(k + 1) (\"\(pair)\") is not \"x,y\"")
            }
            guard abs(x) <= 1_000_000 && abs(y) <= 1_000_000 else {
                throw UsageError("--targets: target \(k + 1) (\"\(pair)\") is off any screen: points from -1000000 to 1000000")
            }
            out.append(Point(x, y))
        }
        return out
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try config.map { (path) throws(CommandFailure) in try loadConfig(path) }
        if outputID != nil && cfg == nil { throw CommandFailure("--output needs --config: the outputs are the config's", code: 2) }   // before a live device waits
        let samples: [Calibration.Sample]
        let info: DeviceInfo
        let output: Output
        if let capture {
            let devices: [CaptureDevice]
            do { devices = try CaptureLoader.load(paths: [capture], deviceInfos: deviceInfos, format: nil) { ThisProcess.writeError("touchd calibrate: \($0)\n") } } catch {
                throw CommandFailure(error.description)
            }
            guard let d = devices.first else { throw CommandFailure("\(capture): no device") }
            info = d.info
            guard let proto = info.touchProtocol, proto != .a else {
                throw CommandFailure("\(capture): \(info.touchProtocol == nil ? "not a touch device" : "protocol A captures are not supported by calibrate (record with touchd record)")")
            }
            let taps = Calibration.taps(d.events, device: info)
            let want = targets ?? []
            guard taps.count == want.count else {
                throw CommandFailure("\(capture): \(taps.count) tap(s) for \(want.count) target(s): one tap per target, in order")
            }
            samples = zip(taps, want).map { Calibration.Sample(raw: $0, target: $1) }
            output = try self.output(cfg, info)
            if let m = Calibration.misclick(samples, axes: axes(info), settings: settings(cfg, info, on: output), screen: output.pointSize, tolerance: tolerance(output)) {
                throw CommandFailure("\(capture): \(m)")
            }
        } else if let device {
            (samples, info, output) = try live(device, cfg: cfg)
        } else {
            throw CommandFailure("give the DEVICE to calibrate, or --capture with --targets")   // validate(operands:) sets one
        }
        let fit: Calibration.Fit
        do { fit = try Calibration.fit(samples, axes: axes(info), settings: settings(cfg, info, on: output), screen: output.pointSize) } catch {
            throw CommandFailure(error.description)
        }
        let numbers = fit.matrix.map { fixed(abs($0) < 5e-7 ? 0 : $0, 6) }
        let out = OutputWriter.standardOutput()
        out.write("{\"calibration\":[\(numbers.joined(separator: ","))]}\n")
        // libinput has no swap, flips or rotation of its own: they are folded into its matrix. The
        // output's rotation is not: compositors turn touches with their output's transform.
        let st = settings(cfg, info)
        let folded = Calibration.libinputMatrix(fit.matrix, settings: st).map { fixed(abs($0) < 5e-7 ? 0 : $0, 6) }
        out.write("ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(folded.joined(separator: " "))\"\n")
        if folded != numbers {
            out.write("(the libinput line has the device's \([st.swapXY ? "swapXY" : nil, st.flipX ? "flipX" : nil, st.flipY ? "flipY" : nil, st.rotation != .r0 ? "rotation \(st.rotation.rawValue)" : nil].compactMap { $0 }.joined(separator: ", ")) folded in; touchd's own entry keeps them apart)\n")
        }
        let worst = fit.errors.indices.max { fit.errors[$0] < fit.errors[$1] } ?? 0
        out.write("residual: rms \(fixed(fit.rms, 2)) points, max \(fixed(fit.maxError, 2)) points (target \(worst + 1)) over \(samples.count) targets\n")
        out.flush()
        return 0
    }

    func axes(_ info: DeviceInfo) -> Calibration.Axes {
        let single = info.touchProtocol == .single
        let x = info.abs[single ? ABS.X : ABS.MT_POSITION_X] ?? AbsInfo(minimum: 0, maximum: 1)
        let y = info.abs[single ? ABS.Y : ABS.MT_POSITION_Y] ?? AbsInfo(minimum: 0, maximum: 1)
        return Calibration.Axes(x: x, y: y)
    }

    /// The device's swap, flips and rotation from its config entry (its old calibration is what
    /// is being replaced: not used).
    func settings(_ cfg: Config?, _ info: DeviceInfo) -> DeviceSettings {
        var s = cfg?.deviceEntry(name: info.name, vendor: Int(info.vendor), product: Int(info.product))?.settings ?? DeviceSettings()
        s.calibration = [1, 0, 0, 0, 1, 0]
        return s
    }

    /// Those settings with the output's rotation after the device's: how the daemon maps the
    /// device onto the output's turned points (DeviceRegistry.mapping).
    func settings(_ cfg: Config?, _ info: DeviceInfo, on output: Output) -> DeviceSettings {
        var s = settings(cfg, info)
        s.rotation = s.rotation.then(output.rotation)
        return s
    }

    /// The output the targets are on: --output, else the device's entry's, else the first.
    func output(_ cfg: Config?, _ info: DeviceInfo) throws(CommandFailure) -> Output {
        try deviceOutput(cfg, info, id: outputID)
    }

    /// --tolerance, else 5% of the output's diagonal.
    func tolerance(_ output: Output) -> Double {
        let s = output.pointSize
        return tolerance ?? 0.05 * (s.width * s.width + s.height * s.height).squareRoot()
    }

    /// Taps on a live device, one target at a time, with misclicks restarting their target.
    func live(_ path: String, cfg: Config?) throws(CommandFailure) -> ([Calibration.Sample], DeviceInfo, Output) {
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: path) } catch { throw CommandFailure(error.description) }
        let output = try self.output(cfg, dev.info)
        let screen = output.pointSize, tolerance = tolerance(output)
        guard var collector = Calibration.TapCollector(device: dev.info) else {
            throw CommandFailure("\(path): \(dev.info.touchProtocol == nil ? "not a touch device" : "protocol A devices are not supported by calibrate")")
        }
        if let e = dev.grab() { ThisProcess.writeError("touchd calibrate: \(path): cannot grab it (\(e)); another reader also sees the taps\n") }
        let fb: Framebuffer?
        do { fb = try Framebuffer() } catch {
            // No framebuffer at all is ordinary (the targets' places are printed); one that is
            // there but cannot be drawn on is worth saying.
            if error.errno != .noSuchFile { ThisProcess.writeError("touchd calibrate: not drawing the targets: \(error)\n") }
            fb = nil
        }
        let want = targets ?? Calibration.defaultTargets(screen)
        if let problem = CalibrationRun.problem(want, screen: screen) { throw CommandFailure(problem) }
        let epoll: Epoll
        do {
            epoll = try Epoll()
            try epoll.add(dev.descriptor)
        } catch { throw CommandFailure("\(error)") }
        func show(_ k: Int) {
            let t = want[k]
            if let fb {
                fb.clear()
                // The framebuffer is the panel's own pixels: the target in its natural orientation.
                let n = output.naturalPoint(t)
                fb.target(x: Int((n.x / max(output.size.width, 1) * Double(fb.width)).rounded()), y: Int((n.y / max(output.size.height, 1) * Double(fb.height)).rounded()))
            }
            ThisProcess.writeError("touchd calibrate: target \(k + 1) of \(want.count): touch (\(fixed(t.x, 0)), \(fixed(t.y, 0))) points — \(fixed(t.x / screen.width * 100, 0))% from the left, \(fixed(t.y / screen.height * 100, 0))% from the top\(fb == nil ? "" : " (drawn on the framebuffer)")\n")
        }
        // The same run, misclicks and all, as a calibration from the socket (CalibrationRun).
        var run = CalibrationRun(targets: want, screen: screen, axes: axes(dev.info), settings: settings(cfg, dev.info, on: output), tolerance: tolerance)
        var result: [Calibration.Sample]?
        show(run.first)
        while result == nil {
            do { _ = try epoll.wait(timeoutMS: -1) } catch { throw CommandFailure("\(error)") }
            drain: while true {
                switch dev.next() {
                case .event(let e):
                    for raw in collector.feed(e) where result == nil {
                        switch run.tap(raw) {
                        case .target(let k, let retry):
                            if let retry { ThisProcess.writeError("touchd calibrate: \(retry.message)\n") }
                            show(k)
                        case .done(_, let samples):
                            result = samples
                        }
                    }
                case .drained: break drain
                case .dropped, .resyncEvent, .resyncDone: continue
                case .gone(let e): throw CommandFailure("\(path) went away: \(e)")
                }
            }
        }
        let samples = result ?? []
        fb?.clear()
        return (samples, dev.info, output)
    }
}
