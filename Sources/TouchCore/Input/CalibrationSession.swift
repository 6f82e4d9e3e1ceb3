/// One calibration, target by target: the taps taken so far, what to ask next, misclicks and
/// taps at an earlier target's place sending their target back. `touchd calibrate` (one device
/// read directly) and a calibration from the socket (CalibrationSession) both run on it. Pure.
public struct CalibrationRun: Sendable {
    public let targets: [Point]
    /// The points the targets are in (the output as the device maps onto it).
    public let screen: Size
    let axes: Calibration.Axes
    /// The device's swap, flips and rotation (its old calibration is what is replaced: unused).
    let settings: DeviceSettings
    let tolerance: Double
    var taken: [Int: Calibration.Sample] = [:]
    /// The targets still to tap, the one to show now first.
    public private(set) var todo: [Int]

    /// `tolerance`: a tap this far (points) from where the others predict it is a misclick
    /// (default 5 % of the screen's diagonal, as `touchd calibrate`'s).
    public init(targets: [Point], screen: Size, axes: Calibration.Axes, settings: DeviceSettings, tolerance: Double? = nil) {
        self.targets = targets
        self.screen = screen
        self.axes = axes
        var s = settings
        s.calibration = [1, 0, 0, 0, 1, 0]
        self.settings = s
        self.tolerance = tolerance ?? 0.05 * (screen.width * screen.width + screen.height * screen.height).squareRoot()
        todo = Array(targets.indices)
    }

    /// Why a tap did not count, or sent an earlier target back.
    public struct Retry: Sendable, Equatable {
        /// "same-place", "misclick" or "no-fit".
        public var reason: String
        public var message: String
    }

    public enum Step: Sendable {
        /// Show target `index` (again when `retry` says why).
        case target(index: Int, retry: Retry?)
        /// Every target tapped and the fit made.
        case done(Calibration.Fit, samples: [Calibration.Sample])
    }

    /// The target to show first.
    public var first: Int { todo.first ?? 0 }

    /// A tap (device units, the median of its samples) for the target shown now.
    public mutating func tap(_ raw: (x: Double, y: Double)) -> Step {
        guard let k = todo.first else { return .target(index: 0, retry: nil) }
        taken[k] = Calibration.Sample(raw: raw, target: targets[k])
        let sorted = taken.sorted { $0.key < $1.key }
        let order = sorted.map(\.key)
        let trial = sorted.map(\.value)
        var retry: Retry?
        if case .samePlace(let a, let b)? = Calibration.samePlace(trial, axes: axes) {
            taken[k] = nil
            let other = order[a - 1] == k ? order[b - 1] : order[a - 1]
            retry = Retry(reason: "same-place", message: "that tap was at the place of target \(other + 1): tap target \(k + 1) where it is shown")
        } else {
            todo.removeFirst()
            if case .misclick(let t, let off)? = Calibration.misclick(trial, axes: axes, settings: settings, screen: screen, tolerance: tolerance) {
                let target = order[t - 1]
                taken[target] = nil
                todo.insert(target, at: 0)
                retry = Retry(reason: "misclick", message: "target \(target + 1) looks like a misclick (\(Calibration.wholePoints(off)) points from where the other taps put it): tap it again")
            }
        }
        if let next = todo.first { return .target(index: next, retry: retry) }
        let samples = targets.indices.compactMap { taken[$0] }
        do {
            return .done(try Calibration.fit(samples, axes: axes, settings: settings, screen: screen), samples: samples)
        } catch {
            // Cannot happen with targets checked first (spread, apart); all again if it does.
            taken = [:]
            todo = Array(targets.indices)
            return .target(index: 0, retry: Retry(reason: "no-fit", message: "\(error): every target again"))
        }
    }

    /// Targets a calibration cannot use: fewer than 3, two so close that their taps would be
    /// taken for one (within 3 % of each axis: `samePlace` refuses a tap within 2 % of an
    /// earlier one, so such a target would be asked for again and again), or all on one line.
    public static func problem(_ targets: [Point], screen: Size) -> String? {
        if targets.count < 3 { return Calibration.Failure.tooFew(targets.count).description }
        let w = max(screen.width - 1, 1), h = max(screen.height - 1, 1)
        for j in targets.indices {
            for i in 0..<j where abs(targets[i].x - targets[j].x) / w < 0.03 && abs(targets[i].y - targets[j].y) / h < 0.03 {
                return "targets \(i + 1) and \(j + 1) are too close (within 3 % of the output's width and height): their taps would be taken for one"
            }
        }
        var area = 0.0
        for i in targets.indices { for j in targets.indices where j > i { for k in targets.indices where k > j {
            let a = targets[i], b = targets[j], c = targets[k]
            area = max(area, abs((b.x - a.x) / w * (c.y - a.y) / h - (c.x - a.x) / w * (b.y - a.y) / h))
        } } }
        return area > 1e-4 ? nil : Calibration.Failure.collinear.description
    }
}

/// A calibration from the UI on the glass (`{"calibrate":{…}}`, issue 33 item 3): the
/// requesting client draws each target the session asks for; the engine feeds it the raw
/// contacts (device units, before the filter and mapping) of its device, which no window sees
/// meanwhile. It answers with messages for its client: a target to draw, then `calibrated` with
/// the matrix. Pure: the engine applies the matrix (Engine+Calibration.swift).
public struct CalibrationSession: Sendable {
    public let client: Int
    public let device: DeviceDescriptor
    public let output: String
    public private(set) var run: CalibrationRun
    var taps = Calibration.Taps()
    public private(set) var finished = false
    /// When it ends by itself (reason `timeout`) unless a tap comes first: the engine's clock,
    /// moved on by every tap (Engine+Calibration.swift).
    public var deadline: Int64 = .max
    /// How long it waits for each tap (microseconds).
    public var timeout: Int64 = 30_000_000

    public init(client: Int, device: DeviceDescriptor, output: String, run: CalibrationRun) {
        self.client = client
        self.device = device
        self.output = output
        self.run = run
    }

    /// The first target, the answer to the request.
    public var prompt: CalibrationMessage { target(run.first, retry: nil) }

    func target(_ k: Int, retry: CalibrationRun.Retry?) -> CalibrationMessage {
        .target(device: device.id, output: output, index: k, count: run.targets.count, point: run.targets[k], retry: retry)
    }

    /// A frame of its device's contact changes (device units): what to tell the client. The
    /// last message is `calibrated` when the last target is taken (then the session is over).
    public mutating func feed(_ changes: [ContactChange]) -> [CalibrationMessage] {
        var out: [CalibrationMessage] = []
        for raw in taps.take(changes) where !finished {
            switch run.tap(raw) {
            case .target(let k, let retry): out.append(target(k, retry: retry))
            case .done(let fit, _):
                finished = true
                let matrix = fit.matrix.map { abs($0) < 5e-7 ? 0 : $0 }
                out.append(.calibrated(device: device.id, output: output, matrix: matrix, rms: fit.rms, max: fit.maxError, match: device))
            }
        }
        return out
    }
}

/// What a calibration tells its client (docs/protocol.md, "Calibration from the glass"). Not
/// numbered: like a reply, it is the asker's alone.
public enum CalibrationMessage: Sendable, Equatable {
    /// Draw target `index` (0-based, of `count`) at `point`, in `output`'s points as the device
    /// maps onto it now; `retry` says why a target is asked again.
    case target(device: String, output: String, index: Int, count: Int, point: Point, retry: CalibrationRun.Retry?)
    /// The fitted matrix (applied now, until the next reload), its residual in points and the
    /// config entry to save (matching the device by name, vendor and product).
    case calibrated(device: String, output: String, matrix: [Double], rms: Double, max: Double, match: DeviceDescriptor)
    /// Over with nothing changed: `cancelled`, `device-removed`, `output-changed`, `reload`,
    /// `shutdown`.
    case ended(device: String, reason: String)

    /// The line, without its closing brace (a reply adds its `line`).
    public func encodeOpen(into out: inout [UInt8]) {
        switch self {
        case .target(let d, let o, let k, let n, let p, let retry):
            JSONWriter.appendRaw("{\"type\":\"calibration\",\"device\":", to: &out)
            JSONWriter.appendString(d, to: &out)
            JSONWriter.appendRaw(",\"output\":", to: &out)
            JSONWriter.appendString(o, to: &out)
            JSONWriter.appendRaw(",\"target\":", to: &out)
            JSONWriter.appendInt(k, to: &out)
            JSONWriter.appendRaw(",\"count\":", to: &out)
            JSONWriter.appendInt(n, to: &out)
            JSONWriter.appendRaw(",\"point\":", to: &out)
            JSONWriter.appendPoint(p, to: &out)
            if let retry {
                JSONWriter.appendRaw(",\"retry\":", to: &out)
                JSONWriter.appendString(retry.reason, to: &out)
                JSONWriter.appendRaw(",\"message\":", to: &out)
                JSONWriter.appendString(retry.message, to: &out)
            }
        case .calibrated(let d, let o, let m, let rms, let mx, let dev):
            JSONWriter.appendRaw("{\"type\":\"calibrated\",\"device\":", to: &out)
            JSONWriter.appendString(d, to: &out)
            JSONWriter.appendRaw(",\"output\":", to: &out)
            JSONWriter.appendString(o, to: &out)
            JSONWriter.appendRaw(",\"matrix\":", to: &out)
            CalibrationMessage.appendMatrix(m, to: &out)
            JSONWriter.appendRaw(",\"residual\":", to: &out)
            JSONWriter.appendDouble(rms, digits: 2, to: &out)
            JSONWriter.appendRaw(",\"maxResidual\":", to: &out)
            JSONWriter.appendDouble(mx, digits: 2, to: &out)
            JSONWriter.appendRaw(",\"entry\":{\"match\":{\"name\":", to: &out)
            JSONWriter.appendString(dev.name, to: &out)
            if dev.vendor != 0 || dev.product != 0 {
                JSONWriter.appendRaw(",\"vendor\":", to: &out)
                JSONWriter.appendString(CalibrationMessage.hex(dev.vendor), to: &out)
                JSONWriter.appendRaw(",\"product\":", to: &out)
                JSONWriter.appendString(CalibrationMessage.hex(dev.product), to: &out)
            }
            JSONWriter.appendRaw("},\"calibration\":", to: &out)
            CalibrationMessage.appendMatrix(m, to: &out)
            JSONWriter.appendRaw("}", to: &out)
        case .ended(let d, let reason):
            JSONWriter.appendRaw("{\"type\":\"calibrationEnded\",\"device\":", to: &out)
            JSONWriter.appendString(d, to: &out)
            JSONWriter.appendRaw(",\"reason\":", to: &out)
            JSONWriter.appendString(reason, to: &out)
        }
    }

    /// One NDJSON line; `client` names the client it is for (offline `replay --scene`).
    public func encode(client: String? = nil) -> [UInt8] {
        var out: [UInt8] = []
        encodeOpen(into: &out)
        if let client {
            JSONWriter.appendRaw(",\"client\":", to: &out)
            JSONWriter.appendString(client, to: &out)
        }
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }

    /// Six decimals, as `touchd calibrate` prints the matrix.
    static func appendMatrix(_ m: [Double], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, v) in m.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendDouble(v, digits: 6, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// "0x0eef", as devices[].match takes it.
    static func hex(_ v: Int) -> String {
        let digits = String(max(0, min(v, 0xffff)), radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
