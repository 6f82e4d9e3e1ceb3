import TouchCore
import TouchSystem
import TouchInput
import TouchCapture

/// `touchd measure`: a panel's noise, bounces, pressures and contact sizes, and the
/// devices[].filter that removes them (docs/config.md "Conditioning").
struct MeasureCommand: Command {
    static let name = "measure"
    static let summary = "measure a panel's noise and suggest its input filter"
    static let operands = "(DEVICE | --capture CAPTURE)"
    static let about = """
    Live, on DEVICE (/dev/input/eventN), it says what to do step by step, as libinput measure
    and tslib's ts_calibrate do: hold a finger still, tap quickly, press lightly and lift —
    a few seconds each (--seconds). Offline, --capture reads a recording of the same. The
    contacts are followed without any filter, so what it measures is the panel's own noise.

    Prints how long fingers were still and how long they moved (noise is measured only where a
    finger was still: motion is never taken for noise, and without a still finger no
    hysteresis is suggested), the noise of a still finger per axis (points: p50, p95, max), the
    shortest lift-to-touch gaps (a bounce is a short gap landing near the lift), phantom
    contacts (a contact in fewer than 3 frames lasting under 50 ms, or one under 100 ms
    150 points from every other) and whether the suggested minimumDuration removes them and
    keeps every other touch-down, the pressures at touch-down and at the lift, the contact sizes
    (touch-major, points), a warning for each number clamped into the range check-config
    allows, and as its last line the suggested {"filter":{…}} for the device's entry in the
    config.
    """
    static var options: [Option<MeasureCommand>] {
        [.optionalConfig(\.config, help: "the configuration (screen size, the device's rotation/flips/axes)"),
         Option(["--capture"], value: "CAPTURE", help: "measure a recording instead of a device") { c, v throws(UsageError) in c.capture = v },
         .deviceInfo(\.deviceInfos),
         Option(["--output"], value: "ID", help: "the display whose points the figures are in, an outputs[] id of --config\n(default: the device's devices[].output, else the first)") { c, v throws(UsageError) in c.outputID = v },
         Option(["--seconds"], value: "S", help: "live: seconds per step (default 5)") { c, v throws(UsageError) in
             guard let s = decimal(v), s >= 1, s <= 120 else { throw UsageError("--seconds: expected 1 to 120, got \"\(v)\"") }
             c.seconds = s
         }]
    }

    var config: String?
    var capture: String?
    var deviceInfos: [String] = []
    var seconds = 5.0
    var outputID: String?
    var device: String?

    mutating func validate(operands: [String]) throws(UsageError) {
        if capture != nil {
            guard operands.isEmpty else { throw UsageError("give a DEVICE or --capture, not both") }
        } else {
            guard operands.count == 1 else { throw UsageError("give the DEVICE to measure (e.g. /dev/input/event5), or --capture CAPTURE") }
            device = operands[0]
        }
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try config.map { (path) throws(CommandFailure) in try loadConfig(path) }
        if outputID != nil && cfg == nil { throw CommandFailure("--output needs --config: the outputs are the config's", code: 2) }
        let events: [InputEvent], info: DeviceInfo, label: String
        if let capture {
            let devices: [CaptureDevice]
            do { devices = try CaptureLoader.load(paths: [capture], deviceInfos: deviceInfos, format: nil) { ThisProcess.writeError("touchd measure: \($0)\n") } } catch {
                throw CommandFailure(error.description)
            }
            guard let d = devices.first else { throw CommandFailure("\(capture): no device") }
            guard d.info.touchProtocol != nil else { throw CommandFailure("\(capture): not a touch device") }
            (events, info, label) = (d.events, d.info, capture)
        } else if let device {
            (events, info) = try live(device)
            label = device
        } else {
            throw CommandFailure("give the DEVICE to measure, or --capture")   // validate(operands:) sets one
        }
        // Points of the device's output as it is turned: its rotation after the device's, as the
        // daemon maps it.
        let output = try deviceOutput(cfg, info, id: outputID)
        var settings = cfg?.deviceEntry(name: info.name, vendor: Int(info.vendor), product: Int(info.product))?.settings ?? DeviceSettings()
        settings.rotation = settings.rotation.then(output.rotation)
        let m = NoiseMeasurement(events: events, device: info, settings: settings, screen: output.pointSize)
        let suggestion = m.suggestion
        let out = OutputWriter.standardOutput()
        func figures(_ f: NoiseMeasurement.Figures, _ digits: Int = 2) -> String {
            "p50 \(fixed(f.p50, digits))  p95 \(fixed(f.p95, digits))  max \(fixed(f.max, digits))  (\(f.count) samples)"
        }
        let frames = m.contacts.map(\.frames).sorted()
        let perContact = frames.isEmpty ? "" : " in \(frames[frames.count / 2]) frame(s) each (median)"
        out.write("\(label): \"\(info.name)\", \(m.contacts.count) contact(s)\(perContact)\n")
        out.write("still finger: \(fixed(m.stillSeconds, 1)) s in \(m.stillStretches) stretch(es); moving: \(fixed(m.movingSeconds, 1)) s; "
                  + "too brief to tell (under \(NoiseMeasurement.stillSamples) samples): \(fixed(m.briefSeconds, 1)) s\n")
        if m.measuredNoise {
            out.write("noise of a still finger (points per frame):\n  x  \(figures(m.noiseX))\n  y  \(figures(m.noiseY))\n")
        } else {
            out.write("noise of a still finger: not measured — no finger was held still long enough (\(m.noiseX.count) still samples, "
                      + "\(NoiseMeasurement.enoughNoise) needed), and motion is never taken for noise: no hysteresis is suggested; hold one finger still for a few seconds\n")
        }
        if m.gaps.isEmpty {
            out.write("lift-to-touch gaps: none (tap a few times to measure bounces)\n")
        } else {
            out.write("shortest lift-to-touch gaps:\n")
            for g in m.gaps.prefix(5) {
                let bounce = g.seconds < NoiseMeasurement.bounceTime && g.points <= NoiseMeasurement.bounceDistance
                out.write("  \(fixed(g.seconds * 1000, 1)) ms, \(fixed(g.points, 1)) points\(bounce ? "  (a bounce)" : "")\n")
            }
        }
        if m.phantoms.isEmpty {
            out.write("phantom contacts: none\n")
        } else {
            out.write("phantom contacts: \(m.phantoms.count) (a contact in fewer than \(NoiseMeasurement.phantomFrames) frames lasting under "
                      + "\(fixed(NoiseMeasurement.phantomTime * 1000, 0)) ms, or one under \(fixed(NoiseMeasurement.isolatedTime * 1000, 0)) ms "
                      + "\(fixed(NoiseMeasurement.isolatedDistance, 0)) points from every other):\n")
            let start = events.first?.time ?? 0
            for p in m.phantoms.prefix(10) {
                let c = m.contacts[p.index]
                out.write("  at \(fixed(Double(c.down - start) / 1_000_000, 3)) s, (\(fixed(c.at.x, 0)), \(fixed(c.at.y, 0))): "
                          + "\(fixed(c.seconds * 1000, 1)) ms, \(c.frames) frame(s)\(p.reason == .isolated ? ", alone" : "")\n")
            }
            if suggestion.filter.minimumDuration > 0 {
                out.write("with the suggested filter: \(suggestion.phantomsRemoved) of \(m.phantoms.count) phantom(s) removed, "
                          + "\(suggestion.touchDownsKept) of \(suggestion.touchDowns) other touch-down(s) kept\n")
            }
        }
        if let d = m.pressureDown, let l = m.pressureLift {
            out.write("pressure (fraction of the axis):\n  at touch-down  \(figures(d, 3))\n  at the lift    \(figures(l, 3))\n")
        } else {
            out.write("pressure: the device reports none\n")
        }
        if let s = m.sizes { out.write("contact size (touch-major, points): \(figures(s, 1))\n") } else { out.write("contact size: the device reports none\n") }
        for w in suggestion.warnings { out.write("warning: \(w)\n") }
        out.write(suggestion.json + "\n")
        out.flush()
        return 0
    }

    /// Records the three steps on a live device, telling the user what to do.
    func live(_ path: String) throws(CommandFailure) -> ([InputEvent], DeviceInfo) {
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: path) } catch { throw CommandFailure(error.description) }
        guard dev.info.touchProtocol != nil else { throw CommandFailure("\(path): not a touch device") }
        let epoll: Epoll
        do {
            epoll = try Epoll()
            try epoll.add(dev.descriptor)
        } catch { throw CommandFailure("\(error)") }
        let steps = ["hold one finger still on the screen", "tap quickly, ten times or so, in one place",
                     "press lightly, then firmly, and lift — a few times"]
        var events: [InputEvent] = []
        for (k, step) in steps.enumerated() {
            ThisProcess.writeError("touchd measure: step \(k + 1) of \(steps.count): \(step) (\(fixed(seconds, 0)) s)\n")
            let end = Clock.monotonicMicros() + Int64(seconds * 1_000_000)
            while Clock.monotonicMicros() < end {
                let left = Int32(max(1, min((end - Clock.monotonicMicros()) / 1000, 1000)))
                do { _ = try epoll.wait(timeoutMS: left) } catch { throw CommandFailure("\(error)") }
                drain: while true {
                    switch dev.next() {
                    case .event(let e): events.append(e)
                    case .drained: break drain
                    case .dropped, .resyncEvent, .resyncDone: continue
                    case .gone(let e): throw CommandFailure("\(path): \(e)")
                    }
                }
            }
        }
        ThisProcess.writeError("touchd measure: done\n")
        return (events, dev.info)
    }
}
