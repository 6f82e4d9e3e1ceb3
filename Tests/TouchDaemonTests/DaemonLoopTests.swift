import Testing
import Glibc
@testable import TouchDaemon

/// The daemon's loop in this process with virtual time (EmbeddedDaemon): what used to be
/// checked by spawning a daemon and allowing wall-clock margins — the latency of a paced
/// replay, the watchdog, a reload, a slow subscriber, the shutdown — decided turn by turn.
@Suite(.serialized) struct DaemonLoopTests {
    static let config = """
    {"screen": {"width": 800, "height": 480}, "clients": {"queue": 16},
     "windows": [{"id": "main", "frame": [0, 0, 800, 480],
                  "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle",
                           "subviews": [{"id": "ok", "frame": [0, 0, 100, 100], "control": "button"}]}}]}
    """

    /// A finger down at `x, y` at 1 s, moved every `every` seconds for `duration`, then lifted.
    static func drag(from x: Int, _ y: Int, every: Double, for duration: Double) -> [(Double, String)] {
        var steps: [(Double, String)] = [(1.0, "down \(x) \(y)")]
        let n = Int((duration / every).rounded())
        for k in 1...n { steps.append((1.0 + Double(k) * every, "move \(x + k % 300) \(y)")) }
        steps.append((1.0 + duration + every, "up"))
        return steps
    }

    func subscribe(_ d: EmbeddedDaemon, _ request: String = #"{"subscribe": {"types": ["frame"]}}"#) throws -> EmbeddedDaemon.Client {
        let c = try d.connect()
        d.turn()
        try c.send(request)
        d.turn()
        return c
    }

    @Test func aPacedReplayReachesTheSubscriberInTheTurnItIsDue() throws {
        let d = try EmbeddedDaemon(config: Self.config, steps: Self.drag(from: 300, 300, every: 0.01, for: 0.2))
        let c = try subscribe(d)
        var lags: [Int64] = []
        d.run(for: 1_500_000) {
            for m in (try? c.messages()) ?? [] where m.type == "frame" {
                // A frame's time is the monotonic time it was due, in seconds.
                let t = Int64(((m["time"] as? Double ?? 0) * 1_000_000).rounded())
                lags.append(d.now - t)
            }
        }
        #expect(lags.count == 22)     // began, 20 moves, ended
        #expect(lags.allSatisfy { $0 >= 0 && $0 < 1_000 }, "\(lags)")   // in the turn it was due (turns are 1 ms apart)
        try c.send(#"{"stats": true}"#)
        d.turn()
        let stats = try c.messages().first { $0.type == "stats" }
        let input = stats?["inputLatencyMicros"] as? [String: Any]
        #expect(input?["samples"] as? Int == 22)
        #expect((input?["max"] as? Int ?? .max) < 1_000)
    }

    @Test func theWatchdogIsFedEveryHalfInterval() throws {
        let d = try EmbeddedDaemon(config: Self.config, steps: [(1.0, "down 10 10"), (1.1, "up")], watchdog: 1_000_000)
        #expect(d.notes.first?.hasPrefix("READY=1") == true)
        d.run(for: 2_500_000, step: 10_000)
        // At the first turn, then every 0.5 s: 0, 0.5, 1.0, 1.5 and 2.0 s.
        #expect(d.notes.filter { $0 == "WATCHDOG=1" }.count == 5, "\(d.notes)")
    }

    @Test func aReloadCancelsTheTouchesOfViewsThatWentAndKeepsTheOthers() throws {
        let d = try EmbeddedDaemon(config: Self.config, steps: [(1.0, "down 50 50"), (1.5, "move 52 50"), (3.0, "up")])
        let c = try subscribe(d)
        d.run(for: 200_000)
        #expect(try c.messages().flatMap(\.touches).map { $0["phase"] as? String } == ["began"])
        let withoutOK = Self.config.replacingOccurrences(of: #"{"id": "ok", "frame": [0, 0, 100, 100], "control": "button"}"#, with: "")
        #expect(withoutOK != Self.config)
        try withoutOK.write(toFile: d.configPath, atomically: true, encoding: .utf8)
        d.daemon.requestReload()
        d.turn()
        let touches = try c.messages().flatMap(\.touches)
        #expect(touches.map { $0["phase"] as? String } == ["cancelled"])
        #expect(touches.first?["reason"] as? String == "view-removed")
        #expect(d.notes.suffix(2).map { $0.prefix(12) } == ["RELOADING=1\n", "READY=1"])
        #expect(d.notes.suffix(2).first == "RELOADING=1\nMONOTONIC_USEC=\(d.now)")
        #expect(d.logLines.contains { $0.contains("reloaded: 1 window(s), 1 view(s)") }, "\(d.logLines.suffix(4))")
        // The finger's move and lift reach nobody: its touch is over for the views.
        d.run(for: 3_000_000)
        #expect(try c.messages().flatMap(\.touches).isEmpty)
    }

    /// A subscriber that reads nothing while a finger is dragged falls behind (its moves are
    /// merged, then dropped); at the shutdown it still learns that every touch it knows of
    /// ended, and gets bye (ShutdownGhostTests did this with a process and a 600 ms sleep).
    @Test func aSubscriberBehindAtShutdownEndsWithNoTouchDownAndBye() throws {
        let d = try EmbeddedDaemon(config: Self.config, steps: Self.drag(from: 100, 240, every: 0.002, for: 5))
        let c = try subscribe(d, #"{"subscribe": {"types": ["frame", "control"]}}"#)
        d.run(for: 3_000_000)                       // not reading: behind
        #expect(d.logLines.contains { $0.contains("client 1 is behind") })
        d.daemon.requestStop()
        var messages: [[String: Any]] = []
        let result = d.run(for: 2_000_000) { messages += (try? c.messages()) ?? [] }
        #expect(result == .stopped)
        messages += try c.messages()
        #expect(d.logLines.contains { $0.contains("was behind at shutdown") }, "\(d.logLines.suffix(5))")
        #expect(messages.last?.type == "bye")
        var down = Set<Int>()
        for m in messages {
            if m.type == "snapshot" { down = Set(m.touches.compactMap { $0["id"] as? Int }) }
            for t in m.touches {
                guard let id = t["id"] as? Int else { continue }
                switch t["phase"] as? String {
                case "began": down.insert(id)
                case "ended", "cancelled": down.remove(id)
                default: break
                }
            }
        }
        #expect(down.isEmpty, "touches left down: \(down)")
        #expect(d.notes.contains("STOPPING=1"))
        #expect(access(d.socket, F_OK) != 0, "the socket file is removed")
    }

    /// A maxRate subscriber gets at most that many frames of moves a second: the held frames
    /// go at the loop's deadlines, on the loop's clock.
    @Test func aMaxRateSubscriberGetsItsFramesAtItsRate() throws {
        let d = try EmbeddedDaemon(config: Self.config, steps: Self.drag(from: 100, 240, every: 0.005, for: 1.5))
        let c = try subscribe(d, #"{"subscribe": {"types": ["frame"], "maxRate": 20}}"#)
        var frames: [[String: Any]] = []
        d.run(for: 3_000_000) { frames += ((try? c.messages()) ?? []).filter { $0.type == "frame" } }
        let phases = frames.flatMap(\.touches).compactMap { $0["phase"] as? String }
        #expect(phases.first == "began" && phases.last == "ended")
        // 1.5 s of moves at 20 frames a second: 30, give or take the two ends.
        let moves = phases.filter { $0 == "moved" }.count
        #expect((29...31).contains(moves), "\(moves) frames of moves")
        // Every sample, once, in order: each delivered location after the ones merged into it.
        var xs: [Double] = []
        for t in frames.flatMap(\.touches) {
            xs += (t["coalesced"] as? [[Double]] ?? []).map { $0[0] }
            xs.append((t["location"] as? [Double] ?? [])[0])
        }
        let drag = Self.drag(from: 100, 240, every: 0.005, for: 1.5)
        let placed = drag.dropLast().map { Double($0.1.split(separator: " ")[1])! }
        let want = placed + [placed.last!]   // the lift: where the last move was
        #expect(xs == want)
    }
}
