/// Input conditioning for noisy panels (`devices[].filter`, docs/config.md "Conditioning"): what
/// the hardware and firmware under iOS do before UIKit sees a touch, and libinput's defuzz or
/// tslib's filter chain do on Linux. A device's contact changes go through it after the tracker
/// flushes a frame and before they are mapped to the screen: pure, per device, its state kept
/// per hardware slot; what it holds back waits in the engine's one `HeldFrames` line.
///
/// - pressure: a contact is down once its pressure reaches `down` and up when it falls below
///   `up` (fractions of the pressure axis; up ≤ down): grazes are not touches.
/// - palmSize: a contact whose touch-major exceeds it (points) is a palm: never delivered if it
///   starts so, cancelled (reason palm) if it grows into one.
/// - deadZone: a contact that begins within these points of the screen's edges is ignored
///   until it lifts (tslib's crop).
/// - hysteresis: `.fuzz` applies the kernel's input_defuzz_abs_event rule on each axis with the
///   axis's fuzz (device units); points give libinput's circle hysteresis (an ellipse in device
///   units): the position stays until the finger leaves a circle of that radius around it,
///   then trails the finger at that distance.
/// - minimumDuration, minimumFrames: a touch-down is held until it has lasted that long (and
///   that many frames); one that lifts sooner is a ghost, never delivered.
/// - debounce: a lift is held up to `debounce`; a touch-down within `debounceDistance` of where
///   it lifted, before then, continues the same touch (same id: a move, no ended/began). Any
///   other touch-down lets every held lift go on at once.
///
/// A held change keeps its own time: the frames behind it wait with it (HeldFrames), so what
/// follows sees the touch exactly as without the filter, later. A change that moves nothing
/// after filtering (the same position and pressure) is dropped. Hardware slots can be
/// renumbered: a debounced re-touch on another slot is reported on the held touch's slot, so
/// slots here are the engine's, not always the kernel's.
public struct ContactFilter: Sendable {
    /// The settings in device units (see `init(settings:mapping:fuzz:slotCount:)`).
    struct Units: Sendable, Equatable {
        var pressureDown: Int32?
        var pressureUp: Int32?
        var palmMajor: Double?
        var fuzzX: Int32 = 0
        var fuzzY: Int32 = 0
        /// Circle hysteresis: the ellipse's radii in device units.
        var circle: (Double, Double)?
        var debounce: Int64 = 0
        var debounceRadii: (Double, Double) = (0, 0)
        var minimumDuration: Int64 = 0
        var minimumFrames = 0
        /// The screen's part outside the dead zone, in points, edges included (nil: no dead zone).
        var live: Rect?

        static func == (a: Units, b: Units) -> Bool {
            a.pressureDown == b.pressureDown && a.pressureUp == b.pressureUp && a.palmMajor == b.palmMajor
                && a.fuzzX == b.fuzzX && a.fuzzY == b.fuzzY && a.circle?.0 == b.circle?.0 && a.circle?.1 == b.circle?.1
                && a.debounce == b.debounce && a.debounceRadii == b.debounceRadii
                && a.minimumDuration == b.minimumDuration && a.minimumFrames == b.minimumFrames && a.live == b.live
        }

        var isActive: Bool {
            pressureDown != nil || palmMajor != nil || fuzzX > 0 || fuzzY > 0 || circle != nil || debounce > 0
                || minimumDuration > 0 || minimumFrames > 1 || live != nil
        }

        /// Touch-downs wait to be counted.
        var countsTouchDowns: Bool { minimumDuration > 0 || minimumFrames > 1 }
    }

    enum Link: Sendable, Equatable {
        /// Not delivered: before the pressure threshold, or after a pressure lift.
        case waiting
        /// Never delivered until it lifts: a palm, or a contact that began in the dead zone.
        case ignored
        /// Delivered on engine slot `out`.
        case delivering(out: Int)
    }

    struct HardwareSlot: Sendable {
        var link = Link.waiting
        /// The sample as last reported (began or moved), after filtering.
        var reported = ContactSample()
        var present = false
    }

    private(set) var units: Units
    var slots: [HardwareSlot]
    /// Device units → screen points, for the dead zone.
    private(set) var mapping: DeviceMapping
    /// Once active, the filter stays in the path until the device goes: the contacts it
    /// follows keep their engine slots (a reload that removes the filter must not strand them).
    public private(set) var isActive: Bool

    /// `fuzz`: the fuzz of the x and y axes in device units (the LIBINPUT_FUZZ_* udev property
    /// where libinput's rule moved it there, else the kernel's).
    public init(settings: ConditioningSettings, mapping: DeviceMapping, fuzz: (x: Int32, y: Int32), slotCount: Int) {
        var u = Units()
        if let p = settings.pressure, mapping.hasPressure {
            u.pressureDown = mapping.pressureValue(p.down)
            u.pressureUp = mapping.pressureValue(p.up)
        }
        if let palm = settings.palmSize, mapping.hasMajor { u.palmMajor = palm / max(mapping.pointsPerMajorUnit, 1e-12) }
        let (px, py) = mapping.pointsPerUnit
        switch settings.hysteresis {
        case .fuzz:
            u.fuzzX = max(fuzz.x, 0)
            u.fuzzY = max(fuzz.y, 0)
        case .points(let r) where r > 0:
            u.circle = (r / px, r / py)
        case .points:
            break
        }
        if settings.debounce > 0 {
            u.debounce = max(Int64((settings.debounce * 1_000_000).rounded()), 1)
            u.debounceRadii = (settings.debounceDistance / px, settings.debounceDistance / py)
        }
        u.minimumDuration = Int64((settings.minimumDuration * 1_000_000).rounded())
        u.minimumFrames = settings.minimumFrames
        if let z = settings.deadZone, !z.isZero {
            // check-config holds the zones to the output as the config sets it; the output this
            // device maps to now (another one, or this one turned) may be narrower: an axis the
            // zones would close keeps none, rather than a panel that ignores every touch.
            var (left, top, width, height) = (z.left, z.top, mapping.width - 1 - z.left - z.right, mapping.height - 1 - z.top - z.bottom)
            if width <= 0 { (left, width) = (0, mapping.width - 1) }
            if height <= 0 { (top, height) = (0, mapping.height - 1) }
            u.live = Rect(left, top, width, height)
        }
        units = u
        self.mapping = mapping
        isActive = u.isActive
        slots = Array(repeating: HardwareSlot(), count: max(slotCount, 1))
    }

    /// New settings (a reload): contacts in progress keep their state. A filter that comes
    /// into the path now takes the contacts down (`live`: hardware slot and its last sample)
    /// as delivered on their own slots.
    public mutating func reconfigure(_ other: ContactFilter, live: [(slot: Int, sample: ContactSample)]) {
        if !isActive && other.isActive {
            for (h, sample) in live where h >= 0 && h < slots.count {
                slots[h] = HardwareSlot(link: .delivering(out: h), reported: sample, present: true)
            }
        }
        units = other.units
        mapping = other.mapping
        isActive = isActive || other.isActive
        if other.slots.count > slots.count { slots += Array(repeating: HardwareSlot(), count: other.slots.count - slots.count) }
    }

    /// Filters one frame's changes of device `d` in place; holds go to `line` (the caller puts
    /// the frame in the line when anything holds it).
    mutating func filter(_ changes: inout [ContactChange], time: Int64, device d: DeviceIndex, line: inout HeldFrames) {
        var out: [ContactChange] = []
        out.reserveCapacity(changes.count)
        var touchDown = false
        for ch in changes {
            guard ch.slot >= 0 && ch.slot < slots.count else { out.append(ch); continue }
            let h = ch.slot
            switch ch.kind {
            case .began:
                slots[h] = HardwareSlot()
                slots[h].present = true
                if admit(h, ch.sample, time: time, device: d, line: &line, into: &out) { touchDown = true }
            case .moved:
                switch slots[h].link {
                case .ignored:
                    continue
                case .waiting:
                    if admit(h, ch.sample, time: time, device: d, line: &line, into: &out) { touchDown = true }
                case .delivering(let o):
                    if let palm = units.palmMajor, Double(ch.sample.major) > palm {
                        slots[h].link = .ignored
                        end(o, ContactChange(slot: o, kind: .cancelled(.palm), sample: ch.sample), device: d, line: &line, into: &out)
                    } else if let up = units.pressureUp, ch.sample.pressure < up {
                        slots[h].link = .waiting
                        lift(o, ch.sample, time: time, device: d, line: &line, into: &out)
                    } else {
                        let s = smoothed(ch.sample, from: slots[h].reported)
                        if s.x == slots[h].reported.x && s.y == slots[h].reported.y && s.pressure == slots[h].reported.pressure { continue }
                        slots[h].reported = s
                        out.append(ContactChange(slot: o, kind: .moved, sample: s))
                    }
                }
            case .ended:
                if case .delivering(let o) = slots[h].link {
                    lift(o, slots[h].reported.with(major: ch.sample.major), time: time, device: d, line: &line, into: &out)
                }
                slots[h] = HardwareSlot()
            case .cancelled:
                if case .delivering(let o) = slots[h].link {
                    end(o, ContactChange(slot: o, kind: ch.kind, sample: ch.sample), device: d, line: &line, into: &out)
                }
                slots[h] = HardwareSlot()
            }
        }
        if units.minimumFrames > 1 && !line.holds.isEmpty { line.countFrame(device: d, time: time) }
        // A new touch lets every held lift go on first: a bounce comes back near its lift, and
        // another finger must not wait behind one (nor be refused while it counts as down).
        if touchDown { line.settleLifts() }
        changes = out
    }

    /// A contact that may be delivered now: a palm stays out, a graze waits for its pressure,
    /// a touch-down near a held lift continues that touch, one in the dead zone is ignored.
    /// True when a new touch begins.
    mutating func admit(_ h: Int, _ sample: ContactSample, time: Int64, device d: DeviceIndex,
                        line: inout HeldFrames, into out: inout [ContactChange]) -> Bool {
        if let palm = units.palmMajor, Double(sample.major) > palm {
            slots[h].link = .ignored
            return false
        }
        if let down = units.pressureDown, sample.pressure < down {
            slots[h].link = .waiting
            return false
        }
        if units.debounce > 0, let k = line.lift(of: d, at: time, near: { near(sample, $0) }) {
            // The same touch goes on from where it was reported, through the hysteresis like
            // any move (a bounce that lands within it moves nothing), on the held touch's slot
            // whichever hardware slot it came back on.
            let h0 = line.takeBack(k, current: &out)
            let s = smoothed(sample, from: h0.sample)
            slots[h].link = .delivering(out: h0.out)
            slots[h].reported = s
            if s.x != h0.sample.x || s.y != h0.sample.y || s.pressure != h0.sample.pressure {
                out.append(ContactChange(slot: h0.out, kind: .moved, sample: s))
            }
            return false
        }
        if let live = units.live, case let p = mapping.map(x: sample.x, y: sample.y),
           !(p.x >= live.minX && p.x <= live.maxX && p.y >= live.minY && p.y <= live.maxY) {
            slots[h].link = .ignored
            return false
        }
        let o = freeOutputSlot(preferring: h, device: d, line: line)
        slots[h].link = .delivering(out: o)
        slots[h].reported = sample
        out.append(ContactChange(slot: o, kind: .began, sample: sample))
        if units.countsTouchDowns {
            line.holdTouchDown(device: d, slot: o, due: time + units.minimumDuration, frames: max(units.minimumFrames - 1, 0),
                               latest: time + max(units.minimumDuration, ConditioningSettings.longestFrameWait))
        }
        return true
    }

    /// A lift: reported (held for the debounce), or, for a touch-down still being counted, a
    /// ghost that never was.
    mutating func lift(_ o: Int, _ sample: ContactSample, time: Int64, device d: DeviceIndex,
                       line: inout HeldFrames, into out: inout [ContactChange]) {
        if !line.holds.isEmpty && line.isWaiting(device: d, slot: o) {
            line.drop(device: d, slot: o)
            return
        }
        out.append(ContactChange(slot: o, kind: .ended, sample: sample))
        if units.debounce > 0 { line.holdLift(device: d, slot: o, sample: sample, deadline: time + units.debounce) }
    }

    /// A cancellation: reported, or dropped with everything else of a touch-down still counted.
    func end(_ o: Int, _ change: ContactChange, device d: DeviceIndex, line: inout HeldFrames, into out: inout [ContactChange]) {
        if !line.holds.isEmpty && line.isWaiting(device: d, slot: o) {
            line.drop(device: d, slot: o)
        } else {
            out.append(change)
        }
    }

    func near(_ a: ContactSample, _ b: ContactSample) -> Bool {
        let (rx, ry) = units.debounceRadii
        guard rx > 0 && ry > 0 else { return false }
        let dx = (Double(a.x) - Double(b.x)) / rx, dy = (Double(a.y) - Double(b.y)) / ry
        return dx * dx + dy * dy <= 1
    }

    func freeOutputSlot(preferring h: Int, device d: DeviceIndex, line: HeldFrames) -> Int {
        var used = Set(line.holds.filter { $0.device == d && $0.isLift }.map(\.slot))
        for s in slots { if case .delivering(let o) = s.link { used.insert(o) } }
        if !used.contains(h) { return h }
        var o = slots.count
        while used.contains(o) { o += 1 }
        return o
    }

    /// The position after hysteresis, from the last reported sample.
    func smoothed(_ s: ContactSample, from last: ContactSample) -> ContactSample {
        var r = s
        if units.fuzzX > 0 || units.fuzzY > 0 {
            r.x = ContactFilter.defuzz(s.x, last.x, units.fuzzX)
            r.y = ContactFilter.defuzz(s.y, last.y, units.fuzzY)
        } else if let (a, b) = units.circle {
            let dx = Double(s.x) - Double(last.x), dy = Double(s.y) - Double(last.y)
            let normalised = ((dx * dx) / (a * a) + (dy * dy) / (b * b)).squareRoot()
            // Radii too small for their squares (below the config's smallest) give no number:
            // the finger is outside any such circle.
            guard normalised.isFinite else { return s }
            if normalised < 1 {
                r.x = last.x
                r.y = last.y
            } else {
                // On the ellipse's edge where it meets the finger's vector: the point trails the
                // finger by the margin (libinput's evdev_hysteresis).
                let lagX = dx / normalised, lagY = dy / normalised
                r.x = Int32(clamping: Int64((Double(s.x) - lagX).rounded()))
                r.y = Int32(clamping: Int64((Double(s.y) - lagY).rounded()))
            }
        }
        return r
    }

    /// The kernel's input_defuzz_abs_event (drivers/input/input.c), in its integer arithmetic.
    static func defuzz(_ value: Int32, _ old: Int32, _ fuzz: Int32) -> Int32 {
        guard fuzz > 0 else { return value }
        let v = Int64(value), o = Int64(old), f = Int64(fuzz)
        if v > o - f / 2 && v < o + f / 2 { return old }
        if v > o - f && v < o + f { return Int32(clamping: (o * 3 + v) / 4) }
        if v > o - f * 2 && v < o + f * 2 { return Int32(clamping: (o + v) / 2) }
        return value
    }
}

extension ContactSample {
    func with(major m: Int32) -> ContactSample {
        var s = self
        s.major = m
        return s
    }
}
