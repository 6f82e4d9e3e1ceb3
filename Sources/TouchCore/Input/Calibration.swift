/// `touchd calibrate`: a device's calibration matrix from taps at known screen points, as
/// tslib's ts_calibrate does — several samples per tap (their median), a least-squares affine
/// fit (so shear and a small rotation are fixed too, not only scale and offset), misclicks
/// refused. The matrix is libinput's: applied to the position normalised by the axis ranges,
/// before the config's swap, flips and rotation (Mapping.swift). Pure.
public enum Calibration {
    /// One target: the raw tap (median of its samples, device units) and where it should be.
    public struct Sample: Sendable, Equatable {
        public var raw: (x: Double, y: Double)
        public var target: Point
        public init(raw: (x: Double, y: Double), target: Point) { self.raw = raw; self.target = target }
        public static func == (a: Sample, b: Sample) -> Bool { a.raw == b.raw && a.target == b.target }
    }

    public struct Fit: Sendable {
        /// [a, b, c, d, e, f]: calibrated = (a·x + b·y + c, d·x + e·y + f) on normalised x, y.
        public var matrix: [Double]
        /// Per target: the distance in screen points between where the fitted mapping puts its
        /// tap and the target.
        public var errors: [Double]
        public var rms: Double { (errors.reduce(0) { $0 + $1 * $1 } / Double(max(errors.count, 1))).squareRoot() }
        public var maxError: Double { errors.max() ?? 0 }
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case tooFew(Int)
        case collinear
        /// Two targets tapped at (nearly) the same place: numbers of the targets (1-based).
        case samePlace(Int, Int)
        /// A tap far from where the others predict it: the target (1-based) and by how much.
        case misclick(target: Int, off: Double)

        public var description: String {
            switch self {
            case .tooFew(let n): return "\(n) target(s): at least 3 are needed (5 are better)"
            case .collinear: return "the targets are on one line: a calibration needs them spread over the screen (at least 3 not in a line)"
            case .samePlace(let a, let b): return "targets \(a) and \(b) were tapped at the same place: tap each where it is shown"
            case .misclick(let t, let off): return "target \(t) looks like a misclick: its tap is \(Calibration.wholePoints(off)) points from where the other taps put it"
            }
        }
    }

    /// The axis ranges a raw tap is normalised by.
    public struct Axes: Sendable {
        public var x: AbsInfo, y: AbsInfo
        public init(x: AbsInfo, y: AbsInfo) { self.x = x; self.y = y }
        func normalise(_ raw: (x: Double, y: Double)) -> (Double, Double) {
            ((raw.x - Double(x.minimum)) / Double(max(Int64(x.maximum) - Int64(x.minimum), 1)),
             (raw.y - Double(y.minimum)) / Double(max(Int64(y.maximum) - Int64(y.minimum), 1)))
        }
    }

    /// The config's swap, flips and rotation on normalised coordinates (as Mapping applies them).
    static func forward(_ p: (Double, Double), _ s: DeviceSettings) -> (Double, Double) {
        var (x, y) = p
        if s.swapXY { (x, y) = (y, x) }
        if s.flipX { x = 1 - x }
        if s.flipY { y = 1 - y }
        switch s.rotation {
        case .r0: break
        case .r90: (x, y) = (1 - y, x)
        case .r180: (x, y) = (1 - x, 1 - y)
        case .r270: (x, y) = (y, 1 - x)
        }
        return (x, y)
    }

    /// Undoes `forward`.
    static func backward(_ p: (Double, Double), _ s: DeviceSettings) -> (Double, Double) {
        var (x, y) = p
        switch s.rotation {
        case .r0: break
        case .r90: (x, y) = (y, 1 - x)
        case .r180: (x, y) = (1 - x, 1 - y)
        case .r270: (x, y) = (1 - y, x)
        }
        if s.flipY { y = 1 - y }
        if s.flipX { x = 1 - x }
        if s.swapXY { (x, y) = (y, x) }
        return (x, y)
    }

    /// The least-squares matrix for the samples, and how far each tap lands from its target.
    public static func fit(_ samples: [Sample], axes: Axes, settings: DeviceSettings, screen: Size) throws(Failure) -> Fit {
        guard samples.count >= 3 else { throw .tooFew(samples.count) }
        let w = max(screen.width - 1, 1), h = max(screen.height - 1, 1)
        let n = samples.map { axes.normalise($0.raw) }
        // Where each target is before the swap, flips and rotation: what the matrix must give.
        let c = samples.map { backward(($0.target.x / w, $0.target.y / h), settings) }
        if let e = samePlace(samples, axes: axes) { throw e }
        // Collinear targets leave the fit undetermined.
        var area = 0.0
        for i in c.indices { for j in c.indices where j > i { for k in c.indices where k > j {
            area = max(area, abs((c[j].0 - c[i].0) * (c[k].1 - c[i].1) - (c[k].0 - c[i].0) * (c[j].1 - c[i].1)))
        } } }
        guard area > 1e-4 else { throw .collinear }
        guard let (abc, def) = solve(n, c) else { throw .collinear }
        let matrix = abc + def
        let errors = samples.indices.map { k -> Double in
            let cal = (abc[0] * n[k].0 + abc[1] * n[k].1 + abc[2], def[0] * n[k].0 + def[1] * n[k].1 + def[2])
            let s = forward(cal, settings)
            return Point(s.0 * w, s.1 * h).distance(to: samples[k].target)
        }
        return Fit(matrix: matrix, errors: errors)
    }

    /// Two taps at one place (within 2 % of each axis): the later target was not looked at.
    public static func samePlace(_ samples: [Sample], axes: Axes) -> Failure? {
        let n = samples.map { axes.normalise($0.raw) }
        for j in n.indices {
            for i in 0..<j where abs(n[i].0 - n[j].0) < 0.02 && abs(n[i].1 - n[j].1) < 0.02 { return .samePlace(i + 1, j + 1) }
        }
        return nil
    }

    /// Fits on all but each target in turn: the target without which the others agree best is
    /// the suspect, and a misclick if the others place it more than `tolerance` points from its
    /// tap. Needs 5 targets or more (any 3 fit exactly, so with 4 a bad one cannot be told
    /// from a good one).
    public static func misclick(_ samples: [Sample], axes: Axes, settings: DeviceSettings, screen: Size, tolerance: Double) -> Failure? {
        guard samples.count >= 5 else { return nil }
        var best: (k: Int, rms: Double, off: Double)?
        for k in samples.indices {
            var others = samples
            others.remove(at: k)
            // Without tap k the rest may not fit (collinear): then k is not the odd one out.
            let f: Fit
            do { f = try fit(others, axes: axes, settings: settings, screen: screen) } catch { continue }
            let n = axes.normalise(samples[k].raw)
            let m = f.matrix
            let s = forward((m[0] * n.0 + m[1] * n.1 + m[2], m[3] * n.0 + m[4] * n.1 + m[5]), settings)
            let off = Point(s.0 * max(screen.width - 1, 1), s.1 * max(screen.height - 1, 1)).distance(to: samples[k].target)
            if best.map({ f.rms < $0.rms }) ?? true { best = (k, f.rms, off) }
        }
        guard let b = best, b.off > tolerance else { return nil }
        return .misclick(target: b.k + 1, off: b.off)
    }

    /// Least squares for c ≈ M·(n, 1), each output coordinate on its own (normal equations).
    static func solve(_ n: [(Double, Double)], _ c: [(Double, Double)]) -> ([Double], [Double])? {
        var ata = [[Double]](repeating: [0, 0, 0], count: 3)
        var atx = [0.0, 0, 0], aty = [0.0, 0, 0]
        for (p, q) in zip(n, c) {
            let row = [p.0, p.1, 1]
            for i in 0..<3 {
                for j in 0..<3 { ata[i][j] += row[i] * row[j] }
                atx[i] += row[i] * q.0
                aty[i] += row[i] * q.1
            }
        }
        guard let x = gauss(ata, atx), let y = gauss(ata, aty) else { return nil }
        return (x, y)
    }

    /// Solves a 3×3 system by Gaussian elimination with partial pivoting; nil when singular.
    static func gauss(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        var m = a.indices.map { a[$0] + [b[$0]] }
        for col in 0..<3 {
            guard let pivot = (col..<3).max(by: { abs(m[$0][col]) < abs(m[$1][col]) }), abs(m[pivot][col]) > 1e-12 else { return nil }
            m.swapAt(col, pivot)
            for r in 0..<3 where r != col {
                let f = m[r][col] / m[col][col]
                for k in col..<4 { m[r][k] -= f * m[col][k] }
            }
        }
        return (0..<3).map { m[$0][3] / m[$0][$0] }
    }

    /// The default targets (tslib's five): the corners inset by a tenth of the screen, and the
    /// middle.
    public static func defaultTargets(_ screen: Size) -> [Point] {
        let w = screen.width - 1, h = screen.height - 1
        return [Point(w * 0.1, h * 0.1), Point(w * 0.9, h * 0.1), Point(w * 0.9, h * 0.9), Point(w * 0.1, h * 0.9), Point(w * 0.5, h * 0.5)]
    }

    /// The taps in a stream of contacts: per contact, the median of its samples; in order.
    public static func taps(_ events: [InputEvent], device: DeviceInfo) -> [(x: Double, y: Double)] {
        guard var collector = TapCollector(device: device) else { return [] }
        return events.flatMap { collector.feed($0) }
    }

    /// Taps from a device's events as they come: each contact, from touch-down to lift, as the
    /// median of its samples (a cancelled contact is no tap). Protocol B and single-touch.
    public struct TapCollector {
        var tracker: ContactTracker
        var taps = Taps()
        var changes: [ContactChange] = []

        public init?(device: DeviceInfo) {
            guard let proto = device.touchProtocol, proto != .a else { return nil }
            tracker = ContactTracker(device: device, protocol: proto)
        }

        /// Feeds one event; the taps it finished (none until a frame's end).
        public mutating func feed(_ e: InputEvent) -> [(x: Double, y: Double)] {
            changes.removeAll(keepingCapacity: true)
            guard tracker.feed(e, into: &changes) else { return [] }
            return taps.take(changes)
        }
    }

    /// Taps from a tracker's contact changes: each contact, from touch-down to lift, as the
    /// median of its samples (a cancelled contact is no tap). `TapCollector` and a calibration
    /// from the socket (CalibrationSession, fed by the engine's tracker) both read taps so.
    public struct Taps: Sendable {
        var open: [Int: [(Double, Double)]] = [:]
        /// The most samples a tap keeps (a few seconds of a 200 Hz panel).
        public static let maxSamples = 1024
        public init() {}

        /// The taps these changes finished, in order.
        public mutating func take(_ changes: [ContactChange]) -> [(x: Double, y: Double)] {
            var done: [(x: Double, y: Double)] = []
            for ch in changes {
                let s = (Double(ch.sample.x), Double(ch.sample.y))
                switch ch.kind {
                case .began: open[ch.slot] = [s]
                case .moved:
                    // A finger resting for ever (a palm, a stuck contact) keeps its first
                    // samples only: memory stays bounded, the median is of those.
                    if open[ch.slot, default: []].count < Taps.maxSamples { open[ch.slot, default: []].append(s) }
                case .ended:
                    var samples = open.removeValue(forKey: ch.slot) ?? []
                    samples.append(s)
                    done.append(median(samples))
                case .cancelled: open[ch.slot] = nil
                }
            }
            return done
        }
    }

    public static func median(_ s: [(Double, Double)]) -> (x: Double, y: Double) {
        let xs = s.map(\.0).sorted(), ys = s.map(\.1).sorted()
        func mid(_ v: [Double]) -> Double { v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2 }
        return (mid(xs), mid(ys))
    }
}

extension Calibration {
    /// A distance as whole points for a message, whatever its size (never a trapping
    /// conversion: targets and taps come from users and recordings).
    public static func wholePoints(_ v: Double) -> String {
        guard v.isFinite else { return "∞" }
        guard abs(v) < 1e15 else { return v < 0 ? "< -10^15" : "> 10^15" }
        return String(Int64(v.rounded()))
    }
}

extension Calibration {
    /// The one matrix libinput needs for what touchd does in steps: the calibration, then the
    /// device's swapXY, flips and rotation (Mapping.swift's order), each an affine map of the
    /// normalised coordinates — so `LIBINPUT_CALIBRATION_MATRIX` puts a rotated panel's touches
    /// where touchd does, not 90° off. (An output's rotation is the compositor's transform.)
    public static func libinputMatrix(_ m: [Double], settings s: DeviceSettings) -> [Double] {
        // Rows [a, b, c; d, e, f] of (x, y, 1) → (x', y'); `then` applies `next` after `m`.
        func then(_ m: [Double], _ n: [Double]) -> [Double] {
            [n[0] * m[0] + n[1] * m[3], n[0] * m[1] + n[1] * m[4], n[0] * m[2] + n[1] * m[5] + n[2],
             n[3] * m[0] + n[4] * m[3], n[3] * m[1] + n[4] * m[4], n[3] * m[2] + n[4] * m[5] + n[5]]
        }
        var out = m.count == 6 ? m : [1, 0, 0, 0, 1, 0]
        if s.swapXY { out = then(out, [0, 1, 0, 1, 0, 0]) }
        if s.flipX { out = then(out, [-1, 0, 1, 0, 1, 0]) }
        if s.flipY { out = then(out, [1, 0, 0, 0, -1, 1]) }
        switch s.rotation {
        case .r0: break
        case .r90: out = then(out, [0, -1, 1, 1, 0, 0])      // (1 − y, x)
        case .r180: out = then(out, [-1, 0, 1, 0, -1, 1])    // (1 − x, 1 − y)
        case .r270: out = then(out, [0, 1, 0, -1, 0, 1])     // (y, 1 − x)
        }
        return out
    }
}
