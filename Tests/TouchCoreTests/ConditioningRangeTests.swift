import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 30, item 2: every number of `devices[].filter` has a range that check-config and a
/// reload (the same parse) enforce, named by its JSON path; inside it the filter's arithmetic
/// has a number for every value — no NaN, no trap — on any device's axes.
@Suite struct ConditioningRangeTests {
    func problems(_ filter: String, screen: String = "") -> [ConfigError] {
        do {
            _ = try Config.parse("""
                {\(screen)"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480]}}],
                 "devices": [{"match": {"name": "*"}, "filter": {\(filter)}}]}
                """)
            return []
        } catch {
            return error.errors
        }
    }

    /// Each key: values refused (with the words its message must carry) and values accepted.
    let table: [(key: String, bad: [String], good: [String], says: String)] = [
        ("debounce", ["-0.01", "0.51", "1e300", "\"x\""], ["0", "0.03", "0.5"], ""),
        ("debounceDistance", ["0", "0.001", "1e-300", "1001", "-1"], ["0.01", "20", "1000"], ""),
        ("hysteresis", ["1e-300", "0.001", "-1", "1001", "\"big\""], ["0", "0.01", "1000", "\"fuzz\""], "0.01 to 1000"),
        ("palmSize", ["0", "0.5", "100001", "-3"], ["1", "30", "100000"], ""),
        ("minimumDuration", ["-0.001", "0.51", "1e300"], ["0", "0.02", "0.5"], ""),
        ("minimumFrames", ["-1", "31", "2.5", "1e300"], ["0", "1", "3", "30"], ""),
        ("deadZone", ["-1", "[0, 0, 0]", "[0, 0, 0, -1]", "[0, 100001, 0, 0]", "[240, 0, 240, 0]", "[0, 400, 0, 400]", "\"x\""],
         ["0", "10", "[10, 0, 0, 0]", "[0, 0, 479, 0]", "[0, 399, 0, 400]"], ""),
    ]

    @Test func everyFilterNumberOutsideItsRangeIsRefusedByPath() {
        for row in table {
            for bad in row.bad {
                let e = problems("\"\(row.key)\": \(bad)")
                #expect(e.map(\.path) == ["$.devices[0].filter.\(row.key)"], "\(row.key): \(bad) → \(e)")
                if !row.says.isEmpty { #expect(e.first?.message.contains(row.says) == true, "\(e)") }
            }
            for good in row.good { #expect(problems("\"\(row.key)\": \(good)").isEmpty, "\(row.key): \(good) → \(problems("\"\(row.key)\": \(good)"))") }
        }
        for bad in ["{\"down\": 1.1, \"up\": 0}", "{\"down\": 0.5, \"up\": -0.1}", "{\"down\": 0.1, \"up\": 0.3}"] {
            #expect(problems("\"pressure\": \(bad)").map(\.path).allSatisfy { $0.hasPrefix("$.devices[0].filter.pressure.") }, "\(bad)")
            #expect(!problems("\"pressure\": \(bad)").isEmpty, "\(bad)")
        }
        // The dead zone is measured against the configured screen.
        #expect(!problems("\"deadZone\": [0, 0, 100, 0]", screen: "\"screen\": {\"width\": 800, \"height\": 100}, ").isEmpty)
    }

    /// The ranges' messages name them, so a user sees what is allowed.
    @Test func theMessagesNameTheRange() {
        #expect(problems("\"debounce\": 2").first?.message == "must be at most 0.5, got 2")
        #expect(problems("\"debounceDistance\": 0").first?.message == "must be at least 0.01, got 0")
        #expect(problems("\"minimumFrames\": 31").first?.message == "must be at most 30, got 31")
        #expect(problems("\"deadZone\": [240, 0, 240, 0]").first?.message.contains("leave nothing of the screen's height (480)") == true)
    }

    /// Devices whose axes span 1 unit, a thousand, or all of Int32 over the largest screen, and
    /// every number at its range's ends: each filter runs over contacts at the axes' extremes
    /// and beyond them (a kernel bug), along one axis and both, and every point published is a
    /// number on the screen.
    @Test func noValueInRangeMakesANaNOrATrap() {
        let axes: [AbsInfo] = [AbsInfo(minimum: 0, maximum: 1), AbsInfo(minimum: -500, maximum: 500),
                               AbsInfo(minimum: Int32.min, maximum: Int32.max)]
        let screens = [Size(1, 1), Size(800, 480), Size(100_000, 100_000)]
        var filters: [ConditioningSettings] = []
        for r in [ConditioningSettings.hysteresisRange.lowerBound, ConditioningSettings.hysteresisRange.upperBound] {
            for d in [ConditioningSettings.debounceDistanceRange.lowerBound, ConditioningSettings.debounceDistanceRange.upperBound] {
                var c = ConditioningSettings()
                c.hysteresis = .points(r)
                c.debounce = ConditioningSettings.debounceRange.upperBound
                c.debounceDistance = d
                c.palmSize = ConditioningSettings.palmSizeRange.lowerBound
                c.pressure = .init(down: 1, up: 0)
                c.minimumDuration = ConditioningSettings.minimumDurationRange.upperBound
                c.minimumFrames = ConditioningSettings.minimumFramesRange.upperBound
                filters.append(c)
                // The arithmetic of the circle, the debounce distance and the dead zone alone.
                var plain = ConditioningSettings()
                plain.hysteresis = .points(r)
                plain.debounce = ConditioningSettings.debounceRange.upperBound
                plain.debounceDistance = d
                plain.deadZone = Outset(top: 0.4, left: 0.4, bottom: 0.4, right: 0.4)
                filters.append(plain)
                plain.deadZone = nil
                plain.palmSize = ConditioningSettings.palmSizeRange.upperBound
                filters.append(plain)
            }
        }
        for axis in axes {
            for screen in screens {
                var info = screenDevice(pressure: true, major: true)
                info.abs[ABS.MT_POSITION_X] = axis
                info.abs[ABS.MT_POSITION_Y] = axis
                info.abs[ABS.MT_TOUCH_MAJOR] = axis
                info.abs[ABS.MT_PRESSURE] = axis
                let cfg = config("{\"screen\": {\"width\": \(screen.width), \"height\": \(screen.height)}, \"windows\": [{\"id\": \"w\", \"frame\": [0, 0, \(screen.width), \(screen.height)]}]}")
                for c in filters {
                    var s = DeviceSettings()
                    s.filter = c
                    let r = Rig(cfg, device: info, settings: s)
                    let values: [Int32] = [axis.minimum, axis.maximum, 0, Int32.min, Int32.max, axis.minimum / 2 + axis.maximum / 2]
                    for (k, v) in values.enumerated() {
                        let slot = Int32(k % 3)
                        r.finger.down(slot, v, values[(k + 1) % values.count])
                        r.finger.ev(EV.ABS, ABS.MT_PRESSURE, v); r.finger.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, 1); r.frame()
                        r.move(v, values[(k + 2) % values.count], slot: slot)          // both axes
                        r.move(values[(k + 3) % values.count], values[(k + 2) % values.count], slot: slot)  // one axis
                        r.up(slot: slot)
                    }
                    r.idle(until: r.finger.time + 2_000_000)
                    for t in r.frames.flatMap(\.touches) {
                        #expect(t.location.x.isFinite && t.location.y.isFinite && t.location.x >= 0 && t.location.y >= 0
                                && t.location.x < max(screen.width, 1) && t.location.y < max(screen.height, 1), "\(t.location) on \(screen), \(axis)")
                    }
                }
            }
        }
    }
}
