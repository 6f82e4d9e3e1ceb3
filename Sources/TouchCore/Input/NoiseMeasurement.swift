/// `touchd measure`: what a panel's noise looks like, from a recording of fingers held still,
/// tapped and lifted (libinput measure's and tslib's ts_calibrate's job for the filters of
/// docs/config.md "Conditioning"), and the `filter` that would remove it. Pure: the events of one
/// device in, figures out. Contacts are followed by the tracker alone (no filter), so the noise
/// is the panel's.
public struct NoiseMeasurement {
    public struct Figures: Sendable, Equatable {
        public var p50 = 0.0, p95 = 0.0, max = 0.0
        public var count = 0
        init(_ samples: [Double]) {
            count = samples.count
            guard !samples.isEmpty else { return }
            let s = samples.sorted()
            p50 = s[s.count / 2]
            p95 = s[Swift.min(s.count - 1, (s.count * 95 + 99) / 100 - 1)]
            max = s[s.count - 1]
        }
    }

    /// A lift followed by a touch-down on the same device: how long and how far.
    public struct Gap: Sendable, Equatable {
        public var seconds: Double
        public var points: Double
    }

    /// Movements no bigger than this (points per frame) count as noise of a still finger.
    public static let stillStep = 6.0

    public private(set) var noiseX: Figures
    public private(set) var noiseY: Figures
    /// The shortest gaps, shortest first (at most ten).
    public private(set) var gaps: [Gap]
    public private(set) var pressureDown: Figures?
    public private(set) var pressureLift: Figures?
    public private(set) var sizes: Figures?
    public private(set) var contacts = 0

    public init(events: [InputEvent], device: DeviceInfo, settings: DeviceSettings = DeviceSettings(), screen: Size) {
        let proto = device.touchProtocol ?? .b
        var tracker = ContactTracker(device: device, protocol: proto == .a ? .b : proto, xCode: settings.xAxis, yCode: settings.yAxis)
        let single = tracker.touchProtocol == .single
        let mapping = DeviceMapping(x: device.abs[tracker.xCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.width) - 1),
                                    y: device.abs[tracker.yCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.height) - 1),
                                    pressure: single ? device.abs[ABS.PRESSURE] : device.abs[ABS.MT_PRESSURE],
                                    major: single ? nil : device.abs[ABS.MT_TOUCH_MAJOR], settings: settings, screen: screen)
        var last: [Int: Point] = [:]
        var lastPressure: [Int: Double] = [:]
        var dx: [Double] = [], dy: [Double] = []
        var downs: [Double] = [], lifts: [Double] = [], majors: [Double] = []
        var lifted: (time: Int64, at: Point)?
        var gaps: [Gap] = []
        var changes: [ContactChange] = []
        var count = 0
        for e in events {
            changes.removeAll(keepingCapacity: true)
            guard tracker.feed(e, into: &changes) else { continue }
            for ch in changes {
                let p = mapping.map(x: ch.sample.x, y: ch.sample.y)
                if mapping.hasMajor && ch.sample.major > 0 { majors.append(mapping.major(ch.sample.major)) }
                switch ch.kind {
                case .began:
                    count += 1
                    if let l = lifted { gaps.append(Gap(seconds: Double(e.time - l.time) / 1_000_000, points: p.distance(to: l.at))) }
                    lifted = nil
                    last[ch.slot] = p
                    if mapping.hasPressure {
                        downs.append(mapping.pressure(ch.sample.pressure))
                        lastPressure[ch.slot] = mapping.pressure(ch.sample.pressure)
                    }
                case .moved:
                    if let q = last[ch.slot] {
                        let (ax, ay) = (abs(p.x - q.x), abs(p.y - q.y))
                        if Swift.max(ax, ay) <= NoiseMeasurement.stillStep && (ax > 0 || ay > 0) {
                            dx.append(ax)
                            dy.append(ay)
                        }
                    }
                    last[ch.slot] = p
                    if mapping.hasPressure { lastPressure[ch.slot] = mapping.pressure(ch.sample.pressure) }
                case .ended, .cancelled:
                    if let pr = lastPressure.removeValue(forKey: ch.slot) { lifts.append(pr) }
                    lifted = (e.time, last.removeValue(forKey: ch.slot) ?? p)
                }
            }
        }
        contacts = count
        noiseX = Figures(dx)
        noiseY = Figures(dy)
        self.gaps = Array(gaps.sorted { $0.seconds < $1.seconds }.prefix(10))
        pressureDown = downs.isEmpty ? nil : Figures(downs)
        pressureLift = lifts.isEmpty ? nil : Figures(lifts)
        sizes = majors.isEmpty ? nil : Figures(majors)
    }

    /// Gaps shorter than this, landing this near, are bounces rather than a new tap (a double
    /// tap's second tap comes 100 ms or more after the first lifts).
    public static let bounceTime = 0.05, bounceDistance = 20.0

    /// The `filter` that removes what was measured: a debounce a little over the longest bounce,
    /// a hysteresis circle a little over the noise, pressure thresholds under the lightest
    /// touch-down, a palm size over the biggest finger. Keys with nothing to remove are left out.
    public var suggestion: ConditioningSettings {
        var c = ConditioningSettings()
        let bounces = gaps.filter { $0.seconds < NoiseMeasurement.bounceTime && $0.points <= NoiseMeasurement.bounceDistance }
        if let longest = bounces.map(\.seconds).max() {
            c.debounce = Swift.min((longest * 1.5 * 100).rounded(.up) / 100, 0.1)
            c.debounceDistance = Swift.max(20, (bounces.map(\.points).max() ?? 0) * 2).rounded(.up)
        }
        let noise = Swift.max(noiseX.p95, noiseY.p95)
        if noise >= 0.5 { c.hysteresis = .points((noise * 1.5 * 2).rounded(.up) / 2) }
        if let d = pressureDown, d.count >= 3 {
            let down = ((d.p50 * 0.5) * 100).rounded(.down) / 100
            if down > 0 { c.pressure = .init(down: down, up: (down * 0.5 * 100).rounded(.down) / 100) }
        }
        if let s = sizes, s.count >= 3 { c.palmSize = (s.max * 1.5).rounded(.up) }
        return c
    }

    /// The suggestion as the config's JSON (`{"filter":{…}}`).
    public var suggestionJSON: String {
        let c = suggestion
        var parts: [String] = []
        func num(_ v: Double) -> String {
            var b: [UInt8] = []
            JSONWriter.appendDouble(v, digits: 3, to: &b)
            var s = String(decoding: b, as: UTF8.self)
            while s.contains(".") && (s.hasSuffix("0") || s.hasSuffix(".")) { s.removeLast() }
            return s
        }
        if c.debounce > 0 {
            parts.append("\"debounce\":\(num(c.debounce))")
            parts.append("\"debounceDistance\":\(num(c.debounceDistance))")
        }
        switch c.hysteresis {
        case .fuzz: parts.append("\"hysteresis\":\"fuzz\"")
        case .points(let r): parts.append("\"hysteresis\":\(num(r))")
        }
        if let p = c.pressure { parts.append("\"pressure\":{\"down\":\(num(p.down)),\"up\":\(num(p.up))}") }
        if let s = c.palmSize { parts.append("\"palmSize\":\(num(s))") }
        return "{\"filter\":{" + parts.joined(separator: ",") + "}}"
    }
}
