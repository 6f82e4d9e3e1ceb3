import Foundation
import Testing

/// Every real capture in Tests/Fixtures/captures replays, checked against facts computed independently by
/// Tests/Tools/capture-facts.py (a separate Python reader of the evemu text that shares no code
/// with touchd).
@Suite struct SharedCaptureTests {
    struct Facts {
        var file: String
        var contacts: Int
        var maxFingers: Int
        var screenX: [Double]?
        var screenY: [Double]?
    }

    static let facts: [Facts] = {
        guard let r = try? runProgram("/usr/bin/env", ["python3", Paths.root.appendingPathComponent("Tests/Tools/capture-facts.py").path,
                                                      "--all", Paths.captures, "--screen", "800", "480"]),
              r.status == 0 else { return [] }
        return r.messages.map { m in
            Facts(file: m["file"] as! String, contacts: m["contacts"] as! Int, maxFingers: m["maxFingers"] as! Int,
                  screenX: m["screenXRange"] as? [Double], screenY: m["screenYRange"] as? [Double])
        }
    }()

    @Test func theOracleFoundEveryEvemuCapture() {
        // 11 evemu recordings are in Tests/Fixtures/captures (README.md there).
        #expect(SharedCaptureTests.facts.count == 11)
    }

    static func arguments(for file: String) -> [String] {
        let path = Paths.capture(file)
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let firstLine = text.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty } ?? ""
        if firstLine.hasPrefix("E:") {
            return ["--device-info", String(path.dropLast(".events".count)) + ".desc", path]
        }
        return [path]
    }

    @Test(arguments: SharedCaptureTests.facts.map(\.file))
    func replaysWithCountsThatMatchTheOracle(_ file: String) throws {
        let f = SharedCaptureTests.facts.first { $0.file == file }!
        let r = try touchd(["replay", "--config", Paths.fixture("facts-800x480.json")] + SharedCaptureTests.arguments(for: file))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.signalled)
        let frames = r.messages.filter { $0.type == "frame" }
        var ids = Set<Int>()
        var lastPhase: [Int: String] = [:]
        var maxDown = 0
        var xs: [Double] = [], ys: [Double] = []
        for frame in frames {
            var down = 0
            for t in frame.touches {
                let id = t["id"] as! Int
                let phase = t["phase"] as! String
                ids.insert(id)
                lastPhase[id] = phase
                if phase != "ended" && phase != "cancelled" { down += 1 }
                let loc = t["location"] as! [Double]
                xs.append(loc[0]); ys.append(loc[1])
            }
            maxDown = max(maxDown, down)
        }
        #expect(ids.count == f.contacts, "distinct contacts")
        #expect(maxDown == f.maxFingers, "most fingers down at once")
        #expect(lastPhase.values.allSatisfy { $0 == "ended" || $0 == "cancelled" }, "every touch ends")
        #expect(xs.allSatisfy { $0 >= 0 && $0 <= 800 } && ys.allSatisfy { $0 >= 0 && $0 <= 480 }, "on screen")
        if let sx = f.screenX, let sy = f.screenY {
            // touchd prints three decimals (within 0.0005 of the value); the oracle gives six.
            #expect(abs(xs.min()! - sx[0]) <= 0.0006 && abs(xs.max()! - sx[1]) <= 0.0006, "x range \(xs.min()!)…\(xs.max()!) vs \(sx)")
            #expect(abs(ys.min()! - sy[0]) <= 0.0006 && abs(ys.max()! - sy[1]) <= 0.0006, "y range \(ys.min()!)…\(ys.max()!) vs \(sy)")
        }
    }

    @Test func replayIsByteIdenticalAcrossRuns() throws {
        let args = ["replay", "--trace", "--config", Paths.exampleConfig, Paths.capture("edt-ft5x06-EP0430M09_4-finger-drag-down.events")]
        let a = try touchd(args), b = try touchd(args)
        #expect(a.status == 0 && !a.stdout.isEmpty)
        #expect(a.stdout == b.stdout)
    }

    @Test func severalCapturesReplayAsSeveralDevicesOnOneTimeline() throws {
        let r = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"),
                           Paths.capture("atmel-maxtouch_4-finger-drag-down.events"),
                           Paths.capture("edt-ft5x06-EP0430M09_2-finger-scroll-down.events"))
        #expect(r.status == 0)
        let m = r.messages
        let added = m.filter { $0.type == "device" }.compactMap { ($0["device"] as? [String: Any])?["id"] as? String }
        #expect(added == ["atmel-maxtouch_4-finger-drag-down", "edt-ft5x06-EP0430M09_2-finger-scroll-down"])
        let times = m.filter { $0.type == "frame" }.map { $0["time"] as! Double }
        #expect(times == times.sorted())
        let devices = Set(m.filter { $0.type == "frame" }.map { $0["device"] as! String })
        #expect(devices.count == 2)
        // 4 + 2 contacts, ids never reused across devices.
        let ids = Set(m.filter { $0.type == "frame" }.flatMap { $0.touches.map { $0["id"] as! Int } })
        #expect(ids.count == 6)
    }

    @Test func protocolADeviceGoesThroughLibmtdev() throws {
        let r = try touchd(["replay", "--config", Paths.fixture("facts-800x480.json")] + SharedCaptureTests.arguments(for: "ntrig_protocolA_2-fingers.events"))
        let device = r.messages.first { $0.type == "device" }?["device"] as? [String: Any]
        #expect(device?["protocol"] as? String == "A")
        #expect(device?["name"] as? String == "N-Trig MultiTouch")
    }

    @Test func quirkySingleTouchDeviceIsExplainedAndCanBeRemapped() throws {
        let args = SharedCaptureTests.arguments(for: "egalax-0eef-0001_single-touch-quirky.events")
        let plain = try touchd(["replay", "--config", Paths.fixture("facts-800x480.json")] + args)
        #expect(plain.status == 0)
        #expect(plain.stderr.contains("never changed"))
        #expect(plain.stderr.contains("\"axes\": {\"x\": \"ABS_Z\", \"y\": \"ABS_RX\"}"))
        // Without a remap every touch stays where it began: one location per touch.
        let plainMoves = plain.messages.filter { $0.type == "frame" }.flatMap(\.touches).filter { $0["phase"] as? String == "moved" }
        #expect(plainMoves.isEmpty)
        let remapped = try touchd(["replay", "--config", Paths.exampleConfig] + args)
        #expect(remapped.status == 0)
        #expect(!remapped.stderr.contains("never changed"))
        let moves = remapped.messages.filter { $0.type == "frame" }.flatMap(\.touches).filter { $0["phase"] as? String == "moved" }
        #expect(moves.count > 100)
    }

    @Test func undeclaredAxisInEveryFrameIsAWarningNotAnError() throws {
        let r = try touchd(["replay", "--config", Paths.fixture("facts-800x480.json")] + SharedCaptureTests.arguments(for: "elan-cando_1-finger-drag.events"))
        #expect(r.status == 0)
        #expect(r.stderr.contains("elan-cando_1-finger-drag.events:8: events on EV_ABS 0x1d, which the device description does not declare; ignored"))
        #expect(r.stderr.components(separatedBy: "0x1d").count == 2)   // said once, not per frame
    }
}

/// UIEvent.predictedTouches(for:): "an array of touches that are predicted to occur for a given
/// touch". touchd predicts one frame ahead at the touch's last velocity; on real recordings of
/// straight and curved motion that is much closer to where the finger really is next than
/// assuming it stays put.
@Suite struct PredictedTouchTests {
    func errors(_ args: [String]) throws -> (predicted: Double, still: Double, samples: Int) {
        let r = try touchd(["replay", "--config", Paths.fixture("facts-800x480.json")] + args)
        #expect(r.status == 0)
        var last: [Int: (location: [Double], predicted: [Double]?)] = [:]
        var predicted = 0.0, still = 0.0, n = 0
        func distance(_ a: [Double], _ b: [Double]) -> Double { ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])).squareRoot() }
        for m in r.messages where m.type == "frame" {
            for t in m.touches {
                let id = t["id"] as! Int, phase = t["phase"] as! String
                guard let location = t["location"] as? [Double] else { continue }
                if phase == "moved" {
                    #expect(t["predicted"] != nil, "a moving touch carries predicted")
                    if let prev = last[id], let p = prev.predicted {
                        predicted += distance(p, location)
                        still += distance(prev.location, location)
                        n += 1
                    }
                } else {
                    #expect(t["predicted"] == nil, "only moving touches carry predicted")
                }
                if phase == "moved" || phase == "began" { last[id] = (location, t["predicted"] as? [Double]) }
            }
        }
        return (predicted / Double(max(n, 1)), still / Double(max(n, 1)), n)
    }

    @Test func onStraightAndCurvedMotionThePredictionBeatsStandingStill() throws {
        // Curved: two fingers circling (Wacom); straight: four fingers dragging down (EDT).
        let curved = try errors(["--device-info", Paths.capture("wacom-ISDv4-E6-finger_2-finger-circle.desc"),
                                 Paths.capture("wacom-ISDv4-E6-finger_2-finger-circle.events")])
        let straight = try errors([Paths.capture("edt-ft5x06-EP0430M09_4-finger-drag-down.events")])
        let long = try errors([Paths.capture("atmel-maxtouch_tslib-ts-verify-1-finger-long.events")])
        for (name, e) in [("curved", curved), ("straight", straight), ("long stroke", long)] {
            #expect(e.samples > 100, "\(name)")
            #expect(e.predicted < 0.5 * e.still, "\(name): mean error \(e.predicted) predicted vs \(e.still) standing still")
        }
    }
}
