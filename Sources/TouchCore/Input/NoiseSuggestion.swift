/// The `filter` that removes what `touchd measure` measured (NoiseMeasurement): a debounce a
/// little over the longest bounce, a hysteresis circle a little over a still finger's noise
/// (never from motion), pressure thresholds under the lightest touch-down, a palm size over the
/// biggest finger, a minimumDuration over the longest phantom and under every other contact.
/// Every number is clamped into its range (ConditioningSettings), with a warning naming what
/// was clamped, so the suggestion always passes check-config; the minimumDuration is checked by
/// running the suggested filter over the recording through an engine.
extension NoiseMeasurement {
    /// Gaps shorter than this, landing this near, are bounces rather than a new tap (a double
    /// tap's second tap comes 100 ms or more after the first lifts).
    public static let bounceTime = 0.05, bounceDistance = 20.0

    public struct Suggestion: Sendable {
        public var filter = ConditioningSettings()
        /// Keys given in the JSON (those with nothing to remove are left out).
        public var hysteresis = false
        /// What was clamped into its range, or left out and why.
        public var warnings: [String] = []
        /// With phantoms: how many the suggested filter removes, and of the other contacts'
        /// touch-downs how many it keeps (of how many).
        public var phantomsRemoved = 0
        public var touchDownsKept = 0, touchDowns = 0

        /// As the config's JSON (`{"filter":{…}}`).
        public var json: String {
            let c = filter
            var parts: [String] = []
            if c.debounce > 0 {
                parts.append("\"debounce\":\(NoiseMeasurement.number(c.debounce))")
                parts.append("\"debounceDistance\":\(NoiseMeasurement.number(c.debounceDistance))")
            }
            if hysteresis {
                switch c.hysteresis {
                case .fuzz: parts.append("\"hysteresis\":\"fuzz\"")
                case .points(let r): parts.append("\"hysteresis\":\(NoiseMeasurement.number(r))")
                }
            }
            if let p = c.pressure { parts.append("\"pressure\":{\"down\":\(NoiseMeasurement.number(p.down)),\"up\":\(NoiseMeasurement.number(p.up))}") }
            if let s = c.palmSize { parts.append("\"palmSize\":\(NoiseMeasurement.number(s))") }
            if c.minimumDuration > 0 { parts.append("\"minimumDuration\":\(NoiseMeasurement.number(c.minimumDuration))") }
            return "{\"filter\":{" + parts.joined(separator: ",") + "}}"
        }
    }

    /// A number as the suggestion writes it: at most three decimals, no trailing zeros.
    static func number(_ v: Double) -> String {
        var b: [UInt8] = []
        JSONWriter.appendDouble(v, digits: 3, to: &b)
        var s = String(decoding: b, as: UTF8.self)
        while s.contains(".") && (s.hasSuffix("0") || s.hasSuffix(".")) { s.removeLast() }
        return s
    }

    public var suggestion: Suggestion {
        var out = Suggestion()
        var c = ConditioningSettings()
        func clamp(_ v: Double, _ range: ClosedRange<Double>, _ key: String) -> Double {
            let r = Swift.min(Swift.max(v.isNaN ? range.lowerBound : v, range.lowerBound), range.upperBound)
            if r != v {
                out.warnings.append("\(key) \(NoiseMeasurement.number(v)) is outside \(NoiseMeasurement.number(range.lowerBound))…\(NoiseMeasurement.number(range.upperBound)), the range check-config allows: suggested \(NoiseMeasurement.number(r))")
            }
            return r
        }
        let bounces = gaps.filter { $0.seconds < NoiseMeasurement.bounceTime && $0.points <= NoiseMeasurement.bounceDistance }
        if let longest = bounces.map(\.seconds).max() {
            c.debounce = clamp(Swift.min((longest * 1.5 * 100).rounded(.up) / 100, 0.1), ConditioningSettings.debounceRange, "debounce")
            c.debounceDistance = clamp(Swift.max(20, (bounces.map(\.points).max() ?? 0) * 2).rounded(.up),
                                       ConditioningSettings.debounceDistanceRange, "debounceDistance")
        }
        if measuredNoise {
            out.hysteresis = true
            let noise = Swift.max(noiseX.p95, noiseY.p95)
            if noise >= 0.5 { c.hysteresis = .points(clamp((noise * 1.5 * 2).rounded(.up) / 2, ConditioningSettings.hysteresisRange, "hysteresis")) }
        }
        if let d = pressureDown, d.count >= 3 {
            let down = clamp(((d.p50 * 0.5) * 100).rounded(.down) / 100, ConditioningSettings.pressureRange, "pressure.down")
            if down > 0 { c.pressure = .init(down: down, up: (down * 0.5 * 100).rounded(.down) / 100) }
        }
        if let s = sizes, s.count >= 3 { c.palmSize = clamp((s.max * 1.5).rounded(.up), ConditioningSettings.palmSizeRange, "palmSize") }
        out.filter = c
        if !phantoms.isEmpty { suggestMinimumDuration(&out) }
        return out
    }

    /// A minimumDuration between the longest phantom and the shortest other contact, kept only
    /// if the filter with it, run over the recording, removes every phantom's touch-down and
    /// keeps every other one the filter without it delivers.
    func suggestMinimumDuration(_ out: inout Suggestion) {
        let phantomSet = Set(phantoms.map(\.index))
        let longest = phantoms.map { contacts[$0.index].seconds }.max() ?? 0
        let shortest = contacts.indices.filter { !phantomSet.contains($0) }.map { contacts[$0].seconds }.min()
        var d = (Swift.max(longest + 0.005, longest * 1.5) * 1000).rounded(.up) / 1000
        if let shortest, d >= shortest { d = ((longest + shortest) / 2 * 1000).rounded(.down) / 1000 }
        guard d > longest, shortest.map({ d < $0 }) ?? true else {
            out.warnings.append("minimumDuration left out: phantoms last as long as real contacts (\(NoiseMeasurement.number(longest * 1000)) ms), no duration tells them apart")
            return
        }
        let range = ConditioningSettings.minimumDurationRange
        guard range.contains(d) else {
            out.warnings.append("minimumDuration left out: \(NoiseMeasurement.number(d)) is outside \(NoiseMeasurement.number(range.lowerBound))…\(NoiseMeasurement.number(range.upperBound)), the range check-config allows")
            return
        }
        var with = out.filter
        with.minimumDuration = d
        let inPhantom = { (t: Int64) in self.phantoms.contains { t >= self.contacts[$0.index].down && t <= self.contacts[$0.index].up } }
        let before = touchDowns(with: out.filter).filter { !inPhantom($0) }
        let after = touchDowns(with: with)
        let kept = after.filter { !inPhantom($0) }
        out.touchDowns = before.count
        out.touchDownsKept = kept.count
        out.phantomsRemoved = phantoms.filter { p in !after.contains { $0 >= contacts[p.index].down && $0 <= contacts[p.index].up } }.count
        guard kept == before && out.phantomsRemoved == phantoms.count else {
            out.warnings.append("minimumDuration \(NoiseMeasurement.number(d)) left out: over this recording it would remove \(out.phantomsRemoved) of \(phantoms.count) phantoms and keep \(kept.count) of \(before.count) other touch-downs")
            return
        }
        out.filter = with
    }

    /// The touch-downs (their times) an engine with `filter` on this device delivers from the
    /// recording, a second of quiet after it included.
    func touchDowns(with filter: ConditioningSettings) -> [Int64] {
        var s = settings
        s.filter = filter
        let engine = Engine(scene: Scene(views: [], responders: [], screen: screen))
        let proto = device.touchProtocol ?? .b
        let d = engine.addDevice(DeviceDescriptor(id: "measure", name: device.name, vendor: 0, product: 0, touchProtocol: proto, slots: device.slotCount),
                                 info: device, trackerProtocol: proto == .a ? .b : proto, settings: s, time: events.first?.time ?? 0)
        var times: [Int64] = []
        var buffer: [EngineOutput] = []
        func drain() {
            engine.drain(into: &buffer)
            for o in buffer {
                if case .message(.frame(let f)) = o { for t in f.touches where t.phase == .began { times.append(t.timestamp) } }
            }
            buffer.removeAll(keepingCapacity: true)
        }
        for e in events {
            engine.process(e, device: d)
            if engine.hasOutput { drain() }
        }
        engine.advance(to: (events.last?.time ?? 0) + 1_000_000)
        engine.shutdown(time: engine.lastTime)
        drain()
        return times
    }
}
