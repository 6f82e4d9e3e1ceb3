/// `touchd measure`: what a panel's noise looks like, from a recording of fingers held still,
/// tapped and lifted (libinput measure's and tslib's ts_calibrate's job for the filters of
/// docs/config.md "Conditioning"); the `filter` that would remove it is NoiseSuggestion.swift's.
/// Pure: the events of one device in, figures out. Contacts are followed by the tracker alone
/// (no filter), so the noise is the panel's.
///
/// It checks its input: noise is measured only where a finger was still (a stretch of at least
/// `stillSamples` samples over `stillTime`, inside a box of 2·`stillRadius` points, that does
/// not drift), never from motion; contacts that cannot be fingers are set apart as phantoms.
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

    /// One contact as the tracker followed it.
    public struct Contact: Sendable, Equatable {
        /// Touch-down and lift (the end of the recording when it never lifted), µs.
        public var down: Int64
        public var up: Int64
        /// The device's frames it was in (its touch-down's frame is the first).
        public var frames = 1
        /// Where it landed, in points.
        public var at: Point
        public var lifted = false
        public var seconds: Double { Double(up - down) / 1_000_000 }
    }

    /// Why a contact is taken for a phantom.
    public enum PhantomReason: String, Sendable, Equatable {
        /// Fewer than `phantomFrames` frames and shorter than `phantomTime`.
        case short
        /// Shorter than `isolatedTime` and farther than `isolatedDistance` from every other
        /// contact (of at least three).
        case isolated
    }

    /// A still finger stays within a box of twice this (points)…
    public static let stillRadius = 8.0
    /// …for at least this many samples over at least this long (µs), and the mean of its
    /// second half is within half the radius of its first half's (a slow drag drifts).
    public static let stillSamples = 10
    public static let stillTime: Int64 = 100_000
    /// Noise figures need this many steps of still fingers; with fewer, none is given.
    public static let enoughNoise = 20
    /// Phantoms: in fewer frames than this and shorter than `phantomTime` (s) — real taps
    /// last 50 ms and more, and a panel that reports nothing while a finger rests gives
    /// them a single frame, so frames alone do not tell…
    public static let phantomFrames = 3, phantomTime = 0.05
    /// …or shorter than this (s) and farther than this (points) from every other contact.
    public static let isolatedTime = 0.1, isolatedDistance = 150.0

    /// Frame-to-frame steps of still fingers, per axis.
    public private(set) var noiseX: Figures
    public private(set) var noiseY: Figures
    /// Seconds of contact time in still stretches, in the rest of contacts long enough to
    /// tell (moving), and in contacts with too few samples to tell (taps, mostly).
    public private(set) var stillSeconds = 0.0
    public private(set) var movingSeconds = 0.0
    public private(set) var briefSeconds = 0.0
    public private(set) var stillStretches = 0
    /// The shortest gaps, shortest first (at most ten).
    public private(set) var gaps: [Gap]
    public private(set) var pressureDown: Figures?
    public private(set) var pressureLift: Figures?
    public private(set) var sizes: Figures?
    public private(set) var contacts: [Contact] = []
    /// Indices into `contacts`, with why.
    public private(set) var phantoms: [(index: Int, reason: PhantomReason)] = []
    /// What was measured from (kept for the suggestion's check).
    let events: [InputEvent]
    let device: DeviceInfo
    let settings: DeviceSettings
    let screen: Size
    let mapping: DeviceMapping

    /// Enough still samples to say what a still finger's noise is.
    public var measuredNoise: Bool { Swift.min(noiseX.count, noiseY.count) >= NoiseMeasurement.enoughNoise }

    public init(events: [InputEvent], device: DeviceInfo, settings: DeviceSettings = DeviceSettings(), screen: Size) {
        self.events = events
        self.device = device
        self.settings = settings
        self.screen = screen
        let proto = device.touchProtocol ?? .b
        var tracker = ContactTracker(device: device, protocol: proto == .a ? .b : proto, xCode: settings.xAxis, yCode: settings.yAxis)
        let single = tracker.touchProtocol == .single
        let mapping = DeviceMapping(x: device.abs[tracker.xCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.width) - 1),
                                    y: device.abs[tracker.yCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.height) - 1),
                                    pressure: single ? device.abs[ABS.PRESSURE] : device.abs[ABS.MT_PRESSURE],
                                    major: single ? nil : device.abs[ABS.MT_TOUCH_MAJOR], settings: settings, screen: screen)
        self.mapping = mapping
        var open: [Int: (contact: Int, samples: [(Int64, Point)])] = [:]
        var trails: [[(Int64, Point)]] = []
        var lastPressure: [Int: Double] = [:]
        var downs: [Double] = [], lifts: [Double] = [], majors: [Double] = []
        var lifted: (time: Int64, at: Point)?
        var gaps: [Gap] = []
        var changes: [ContactChange] = []
        var contacts: [Contact] = []
        func close(_ slot: Int, at time: Int64, lifted: Bool) {
            guard let o = open.removeValue(forKey: slot) else { return }
            contacts[o.contact].up = time
            contacts[o.contact].lifted = lifted
            trails[o.contact] = o.samples
        }
        for e in events {
            changes.removeAll(keepingCapacity: true)
            guard tracker.feed(e, into: &changes) else { continue }
            let before = contacts.count
            for ch in changes {
                let p = mapping.map(x: ch.sample.x, y: ch.sample.y)
                if mapping.hasMajor && ch.sample.major > 0 { majors.append(mapping.major(ch.sample.major)) }
                switch ch.kind {
                case .began:
                    if let l = lifted { gaps.append(Gap(seconds: Double(e.time - l.time) / 1_000_000, points: p.distance(to: l.at))) }
                    lifted = nil
                    close(ch.slot, at: e.time, lifted: false)
                    open[ch.slot] = (contacts.count, [(e.time, p)])
                    contacts.append(Contact(down: e.time, up: e.time, at: p))
                    trails.append([])
                    if mapping.hasPressure {
                        downs.append(mapping.pressure(ch.sample.pressure))
                        lastPressure[ch.slot] = mapping.pressure(ch.sample.pressure)
                    }
                case .moved:
                    open[ch.slot]?.samples.append((e.time, p))
                    if mapping.hasPressure { lastPressure[ch.slot] = mapping.pressure(ch.sample.pressure) }
                case .ended, .cancelled:
                    if let pr = lastPressure.removeValue(forKey: ch.slot) { lifts.append(pr) }
                    lifted = (e.time, open[ch.slot]?.samples.last?.1 ?? p)
                    close(ch.slot, at: e.time, lifted: true)
                }
            }
            // Every contact still down that began before this frame was in it too.
            for o in open.values where o.contact < before { contacts[o.contact].frames += 1 }
        }
        let end = events.last?.time ?? 0
        for slot in Array(open.keys) { close(slot, at: end, lifted: false) }
        var dx: [Double] = [], dy: [Double] = []
        for (c, trail) in trails.enumerated() {
            guard trail.count >= NoiseMeasurement.stillSamples else {
                briefSeconds += contacts[c].seconds
                continue
            }
            let still = NoiseMeasurement.stillStretches(trail)
            stillStretches += still.count
            var stillTime: Int64 = 0
            for r in still {
                stillTime += trail[r.upperBound].0 - trail[r.lowerBound].0
                for k in r.dropFirst() {
                    let (ax, ay) = (abs(trail[k].1.x - trail[k - 1].1.x), abs(trail[k].1.y - trail[k - 1].1.y))
                    if ax > 0 || ay > 0 { dx.append(ax); dy.append(ay) }
                }
            }
            stillSeconds += Double(stillTime) / 1_000_000
            movingSeconds += Double(contacts[c].up - contacts[c].down - stillTime) / 1_000_000
        }
        self.contacts = contacts
        noiseX = Figures(dx)
        noiseY = Figures(dy)
        self.gaps = Array(gaps.sorted { $0.seconds < $1.seconds }.prefix(10))
        pressureDown = downs.isEmpty ? nil : Figures(downs)
        pressureLift = lifts.isEmpty ? nil : Figures(lifts)
        sizes = majors.isEmpty ? nil : Figures(majors)
        phantoms = NoiseMeasurement.phantoms(contacts, trails: trails)
    }

    /// The still stretches of one contact's samples (index ranges): greedy, from each sample the
    /// longest run inside the box; a run long enough that does not drift is still.
    static func stillStretches(_ trail: [(Int64, Point)]) -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        var i = 0
        let side = 2 * stillRadius
        while i < trail.count {
            var (minX, maxX, minY, maxY) = (trail[i].1.x, trail[i].1.x, trail[i].1.y, trail[i].1.y)
            var j = i
            while j + 1 < trail.count {
                let p = trail[j + 1].1
                let box = (Swift.min(minX, p.x), Swift.max(maxX, p.x), Swift.min(minY, p.y), Swift.max(maxY, p.y))
                guard box.1 - box.0 <= side && box.3 - box.2 <= side else { break }
                (minX, maxX, minY, maxY) = box
                j += 1
            }
            if j - i + 1 >= stillSamples && trail[j].0 - trail[i].0 >= stillTime && drift(trail[i...j]) <= stillRadius / 2 {
                out.append(i...j)
                i = j + 1
            } else {
                i += 1
            }
        }
        return out
    }

    /// How far the mean of a run's second half is from its first half's.
    static func drift(_ run: ArraySlice<(Int64, Point)>) -> Double {
        let mid = run.startIndex + run.count / 2
        func mean(_ s: ArraySlice<(Int64, Point)>) -> Point {
            var x = 0.0, y = 0.0
            for (_, p) in s { x += p.x; y += p.y }
            let n = Double(Swift.max(s.count, 1))
            return Point(x / n, y / n)
        }
        return mean(run[run.startIndex..<mid]).distance(to: mean(run[mid...]))
    }

    static func phantoms(_ contacts: [Contact], trails: [[(Int64, Point)]]) -> [(index: Int, reason: PhantomReason)] {
        var out: [(index: Int, reason: PhantomReason)] = []
        for (k, c) in contacts.enumerated() where c.lifted {
            if c.frames < phantomFrames && c.seconds < phantomTime {
                out.append((k, .short))
            } else if c.seconds < isolatedTime && contacts.count >= 4 {
                let far = trails.indices.allSatisfy { o in o == k || trails[o].allSatisfy { $0.1.distance(to: c.at) > isolatedDistance } }
                if far { out.append((k, .isolated)) }
            }
        }
        return out
    }
}
