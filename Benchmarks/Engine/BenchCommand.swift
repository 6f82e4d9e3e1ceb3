@preconcurrency import Glibc
import TouchCore
import TouchSystem
import TouchInput
import TouchCapture
import TouchServer
import TouchDaemon

/// `touchd-bench` (`scripts/bench engine`): figures, not pass/fail. Replays a generated 10-finger capture through the
/// whole pipeline (evemu text → reader → tracker → hit-test → responder chain → NDJSON bytes)
/// and times hit-tests on generated scenes of 10, 1,000 and 10,000 views.
struct BenchCommand: Command {
    static let name = "bench"
    static let invocation = "touchd-bench"
    static let summary = "benchmarks: replay throughput and hit-test time"
    static let operands = ""
    static let about = """
    Prints figures (build with -c release for meaningful numbers):
      replay    a generated 10-finger evemu capture of N events (default 1,000,000): time to
                parse it, then to run it through the engine and encode every message, with
                events per second, messages, bytes and peak RSS
      hit-test  mean time per hit-test at seeded random points, on scenes of 10, 1,000 and
                10,000 views, nested (a grid of cards) and flat (every view a sibling: the
                worst case, all asked)
      live      a client's window of 1,000 (then 10,000) views over the screen, 10 fingers on
                it (frames every 8 ms), and the client moving one of its views 1,000 times a
                second of capture time: the time to dispatch and encode each frame, without
                and with that update stream, and the cost of each update (parse + apply)
    """
    static var options: [Option<BenchCommand>] {
        [.count(["--events"], help: "events in the generated capture (default 1000000)", range: 1000...1_000_000_000, \.events),
         .count(["--live-events"], help: "events in the live-scene runs (default 300000)", range: 1000...1_000_000_000, \.liveEvents),
         .count(["--hit-tests"], help: "hit-tests per scene (default 100000)", range: 1...1_000_000_000, \.hitTests),
         Option(["--write"], value: "DIR", help: "write the generated capture (DIR/bench.evemu, --events long) and the\n1,000-view config (DIR/bench.json) instead, for other tools to time") { c, v throws(UsageError) in c.write = v }]
    }

    var events = 1_000_000
    var liveEvents = 300_000

    /// The live-scene runs of each window size: each kind twice, alternating (the first round
    /// warms up and evens out a shared machine's drift), the second printed — each line once
    /// (both rounds were printed: every line twice).
    static let livePlan: [(updates: Bool, printed: Bool)] = [(false, false), (true, false), (false, true), (true, true)]
    var hitTests = 100_000
    var write: String?

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.isEmpty else { throw UsageError("unexpected argument \(operands[0])") }
    }

    static func now() -> Double { Clock.monotonicSeconds() }
    static func peakRSSMiB() -> Double { Double(ThisProcess.peakRSSKiB()) / 1024 }

    /// 10 fingers circling on an 800×480 device; every 300 frames they all lift and land again.
    static func generateCapture(events target: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(target * 24)
        func line(_ s: String) { out.append(contentsOf: s.utf8); out.append(0x0A) }
        line("# EVEMU 1.3")
        line("N: touchd bench 10-finger touchscreen")
        line("I: 0006 1234 0010 0001")
        line("P: 02 00 00 00 00 00 00 00")
        line("B: 00 0b 00 00 00 00 00 00 00")
        line("A: 00 0 799 0 0 0")
        line("A: 01 0 479 0 0 0")
        line("A: 2f 0 9 0 0 0")
        line("A: 35 0 799 0 0 0")
        line("A: 36 0 479 0 0 0")
        line("A: 39 0 65535 0 0 0")
        var count = 0
        var frame = 0
        var tracking = 1
        var t: Int64 = 0
        func ev(_ type: Int, _ code: Int, _ value: Int) {
            var s: [UInt8] = Array("E: ".utf8)
            JSONWriter.appendTime(t, to: &s)
            s.append(0x20)
            s.append(contentsOf: String(type, radix: 16).utf8)
            s.append(0x20)
            s.append(contentsOf: String(code, radix: 16).utf8)
            s.append(0x20)
            JSONWriter.appendInt(value, to: &s)
            out.append(contentsOf: s)
            out.append(0x0A)
            count += 1
        }
        while count < target {
            let phase = frame % 300
            for slot in 0..<10 {
                let angle = Double(frame) * 0.05 + Double(slot) * 0.628
                let x = 80 + slot * 70 + Int(30 * cos(angle)), y = 240 + Int(180 * sin(angle))
                ev(3, 0x2f, slot)
                if phase == 0 { ev(3, 0x39, tracking); tracking += 1 }
                if phase == 299 { ev(3, 0x39, -1); continue }
                ev(3, 0x35, x)
                ev(3, 0x36, y)
            }
            ev(0, 0, 0)
            frame += 1
            t += 8_000
        }
        return out
    }

    /// A config with `views` views: nested (rows of cards of buttons) or flat (all siblings).
    static func sceneConfig(views: Int, flat: Bool) -> String {
        """
        {"screen": {"width": 800, "height": 480},
         "windows": [{"id": "main", "frame": [0, 0, 800, 480],
           "view": \(rootView(views: views, flat: flat, id: "root"))}]}
        """
    }

    /// The window's root view with `views - 1` views under it.
    static func rootView(views: Int, flat: Bool, id: String) -> String {
        var subviews: [String] = []
        if flat {
            for i in 0..<(views - 1) {
                let x = (i * 37) % 760, y = (i * 53) % 440
                subviews.append("{\"id\": \"v\(i)\", \"frame\": [\(x), \(y), 40, 40], \"touches\": \"handle\"}")
            }
        } else {
            // cards of 9 buttons each; cards tile the screen in rows
            var made = 1
            var card = 0
            while made < views {
                var buttons: [String] = []
                let cx = (card % 8) * 100, cy = ((card / 8) % 4) * 120
                made += 1
                var b = 0
                while b < 9 && made < views {
                    buttons.append("{\"id\": \"c\(card)b\(b)\", \"frame\": [\(5 + (b % 3) * 30), \(5 + (b / 3) * 35), 28, 30], \"control\": \"button\"}")
                    b += 1
                    made += 1
                }
                subviews.append("{\"id\": \"card\(card)\", \"frame\": [\(cx), \(cy), 100, 120], \"subviews\": [\(buttons.joined(separator: ","))]}")
                card += 1
            }
        }
        return "{\"id\": \"\(id)\", \"frame\": [0, 0, 800, 480], \"subviews\": [\(subviews.joined(separator: ","))]}"
    }

    /// Encodes every message and counts the bytes (no output).
    struct NullSink: OutputSink {
        var buffer: [UInt8] = []
        var messages = 0
        var bytes = 0
        mutating func take(_ m: Message, history: SceneHistory) {
            history.encode(m, into: &buffer)
            messages += 1
            if buffer.count > 1 << 16 {
                bytes += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    func run() throws(CommandFailure) -> Int32 {
        if let dir = write {
            do {
                try FileSystem.write(dir + "/bench.evemu", BenchCommand.generateCapture(events: events))
                try FileSystem.write(dir + "/bench.json", Array(BenchCommand.sceneConfig(views: 1000, flat: false).utf8))
            } catch { throw CommandFailure("\(error)") }
            return 0
        }
        let out = OutputWriter.standardOutput(limit: 0)
        func say(_ s: String) { out.write(s + "\n"); out.flush() }
        say("touchd-bench (\(isDebugBuild ? "DEBUG build: figures are not representative; use swift build -c release" : "release build"))")

        // Replay throughput.
        let text = BenchCommand.generateCapture(events: events)
        let t0 = BenchCommand.now()
        let devices: [CaptureDevice]
        do { devices = try EvemuReader.read(text, file: "generated") } catch { throw CommandFailure(error.description) }
        let t1 = BenchCommand.now()
        let cfg: Config
        do { cfg = try Config.parse(BenchCommand.sceneConfig(views: 1000, flat: false)) } catch { throw CommandFailure(error.description) }
        var sink = NullSink()
        let session: ReplaySession
        do {
            session = try ReplaySession(config: cfg, captures: devices, engine: Engine(scene: cfg.scene), log: { _, _ in })
        } catch { throw CommandFailure(error.description) }
        let t2 = BenchCommand.now()
        session.run(into: &sink)
        let t3 = BenchCommand.now()
        sink.bytes += sink.buffer.count
        let n = Double(devices[0].events.count)
        say("replay: \(devices[0].events.count) events (10 fingers, \(format1(Double(text.count) / 1_048_576)) MiB of evemu text) on a 1,000-view scene")
        say("  parse            \(format3(t1 - t0)) s  \(formatRate(n / (t1 - t0))) events/s")
        say("  dispatch+encode  \(format3(t3 - t2)) s  \(formatRate(n / (t3 - t2))) events/s  \(sink.messages) messages, \(format1(Double(sink.bytes) / 1_048_576)) MiB NDJSON")
        say("  whole pipeline   \(format3(t3 - t2 + t1 - t0)) s  \(formatRate(n / (t3 - t2 + t1 - t0))) events/s")
        say("  peak RSS         \(format1(BenchCommand.peakRSSMiB())) MiB")

        // Hit-test time.
        say("hit-test: mean per hit-test over \(hitTests) seeded random points")
        for views in [10, 1000, 10_000] {
            for flat in [false, true] {
                var scene: Scene
                do { scene = try Config.parse(BenchCommand.sceneConfig(views: views, flat: flat)).scene } catch {
                    throw CommandFailure(error.description)
                }
                scene.refreshHitIndexes()   // as the engine does before a hit-test
                var trace: [HitStep] = []
                var state: UInt64 = 0x9E3779B97F4A7C15
                var hits = 0
                let start = BenchCommand.now()
                for _ in 0..<hitTests {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let x = Double((state >> 33) % 800), y = Double((state >> 13) % 480)
                    if let r = scene.hitTest(screen: Point(x, y), tracing: false, trace: &trace), r.view.rawValue > 1 { hits += 1 }
                }
                let per = (BenchCommand.now() - start) / Double(hitTests)
                say("  \(String(scene.views.count - 1).leftPad(6)) views \(flat ? "flat  " : "nested")  \(format3(per * 1e6)) µs  (\(hits * 100 / hitTests)% of points hit a subview)")
            }
        }

        // Taps: the cost of a touch must not grow with the scene.
        say("taps: 20,000 taps at seeded random points (down, up), dispatched and encoded")
        var base = 0.0
        for (views, flat) in [(10, true), (10_000, true), (10_000, false)] {
            let per = try BenchCommand.tapRun(views: views, flat: flat)
            if base == 0 { base = per }
            say("  \(String(views - 1).leftPad(6)) views \(flat ? "flat  " : "nested")  \(format3(per)) µs per tap  (\(fixed(per / base, 2))× the 9-view scene)")
        }

        // The live scene: frames with and without a client's update stream.
        let liveText = BenchCommand.generateCapture(events: liveEvents)
        let liveDevice: CaptureDevice
        do { liveDevice = try EvemuReader.read(liveText, file: "generated")[0] } catch { throw CommandFailure(error.description) }
        say("live: \(liveDevice.events.count) events of 10 fingers on a client's window; frame = dispatch + encode of one hardware frame")
        for views in [1000, 10_000] {
            for run in BenchCommand.livePlan {
                let r = try BenchCommand.liveRun(liveDevice, views: views, updates: run.updates)
                if !run.printed { continue }
                let updates = run.updates
                var line = "  \(String(views).leftPad(6))-view window, \(updates ? "1,000 updates/s" : "no updates     ")  frame p50 \(format1(r.frames.p50)) µs  p99 \(format1(r.frames.p99)) µs  max \(format1(r.frames.max)) µs"
                if updates { line += "   update p50 \(format1(r.updates.p50)) µs  p99 \(format1(r.updates.p99)) µs (\(r.updateCount) applied)" }
                say(line)
            }
        }
        for views in [1000, 10_000] {
            let r = try BenchCommand.structuralRun(views: views)
            say("  \(String(views).leftPad(6))-view window, structural updates (add a view, remove it; the outbox's scene handed on as to the server)  p50 \(format1(r.p50)) µs  p99 \(format1(r.p99)) µs")
        }
        return 0
    }

}

#if DEBUG
let isDebugBuild = true
#else
let isDebugBuild = false
#endif
