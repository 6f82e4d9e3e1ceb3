import Foundation
import Glibc
import Testing

/// Frames of `touchd run --replay` in real time are stamped on CLOCK_MONOTONIC with the time
/// they are due, as live frames carry the kernel's timestamp: a subscriber's clock minus a
/// frame's time is its latency — small and never negative.
@Suite struct LatencyTests {
    func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    @Test func pacedReplayFramesAreStampedOnTheMonotonicClock() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", Paths.exampleConfig, "--replay", Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path,
                                   "--speed", "1", "--wait-clients", "1", "--exit-at-end"], socket: sock, dir: dir)
        let c = try LineClient(sock)
        c.send("{\"subscribe\":{\"types\":[\"frame\"]}}\n")
        var lags: [Double] = []
        var stats: [String: Any]?
        while let line = c.nextLine(timeout: 20) {
            let now = monotonicSeconds()
            let m = json(line)
            if m["type"] as? String == "bye" { break }
            if m["type"] as? String == "frame", let t = m["time"] as? Double {
                lags.append(now - t)
                if lags.count == 10 { c.send("{\"stats\":true}\n") }
            }
            if m["type"] as? String == "stats" { stats = m }
        }
        // The daemon's own figure: from each frame's timestamp to its write.
        let input = stats?["inputLatencyMicros"] as? [String: Any]
        #expect((input?["samples"] as? Int ?? 0) >= 10)
        #expect((input?["p50"] as? Int ?? -1) >= 0 && (input?["max"] as? Int ?? Int.max) < 500_000)
        #expect(d.wait() == 0)
        #expect(lags.count >= 10)
        #expect(lags.allSatisfy { $0 >= 0 }, "a frame stamped after it arrived: \(lags.min() ?? 0)")
        #expect(lags.allSatisfy { $0 < 0.5 }, "a frame arrived \(lags.max() ?? 0) s after its time")
    }

    @Test func subscribeLatencyPrintsPercentiles() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", Paths.exampleConfig, "--replay", Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path,
                                   "--speed", "1", "--wait-clients", "1", "--exit-at-end"], socket: sock, dir: dir)
        let r = try touchd("subscribe", "--socket", sock, "--latency")
        #expect(d.wait() == 0)
        #expect(r.status == 0)
        // "latency: N frames, p50 A µs, p99 B µs, max C µs (…)"
        let words = r.stdout.split(separator: " ")
        #expect(words.first == "latency:", "\(r.stdout)")
        let numbers = words.compactMap { Int($0) }
        #expect(numbers.count == 4)
        if numbers.count == 4 {
            #expect(numbers[0] >= 10)                       // frames
            #expect(numbers[1] >= 0 && numbers[1] <= numbers[2] && numbers[2] <= numbers[3])
            #expect(numbers[3] < 500_000)
        }
    }
}

/// `"maxRate"` in a subscription: at most that many frames of moves a second, the moves in
/// between in each touch's `coalesced`, and no began or ended lost.
@Suite struct MaxRateTests {
    @Test func aSlowClientGetsFewerFramesAndEverySample() throws {
        let dir = TempDir()
        // One finger dragged for 1.5 s with a move every 5 ms (200 Hz), then lifted.
        var steps: [(Double, String)] = [(1.0, "down 100 240")]
        for k in 1...300 { steps.append((1.0 + Double(k) * 0.005, "move \(100 + k * 2) 240")) }
        steps.append((2.51, "up"))
        let cap = dir.write("drag.events", panelCapture(steps))
        let cfg = dir.write("touchd.json", LiveSceneSocketTests.base)
        let desc = Paths.fixture("virtual-800x480.desc")
        let offline = try touchd("replay", "--config", cfg, "--device-info", desc, cap)
        let want = offline.messages.filter { $0.type == "frame" }.flatMap(\.touches).map { ($0["location"] as? [Double] ?? [])[0] }
        #expect(want.count == 302)
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", cfg, "--replay", cap, "--device-info", desc, "--speed", "1", "--wait-clients", "1", "--exit-at-end"],
                                  socket: sock, dir: dir)
        let c = try LineClient(sock)
        c.send("{\"subscribe\":{\"types\":[\"frame\"],\"maxRate\":20}}\n")
        var frames: [[String: Any]] = []
        while let m = c.next(timeout: 20) {
            if m.type == "bye" { break }
            if m.type == "frame" { frames.append(m) }
        }
        #expect(d.wait() == 0)
        let touches = frames.flatMap(\.touches)
        #expect(touches.filter { $0["phase"] as? String == "began" }.count == 1)
        #expect(touches.filter { $0["phase"] as? String == "ended" }.count == 1)
        // 1.5 s of moves at 20 a second: about 30 frames (not 300).
        let moves = touches.filter { $0["phase"] as? String == "moved" }.count
        #expect(moves >= 20 && moves <= 33, "\(moves) frames of moves")
        // Every sample, once, in order: each delivered location after the ones merged into it.
        var got: [Double] = []
        for t in touches {
            got += (t["coalesced"] as? [[Double]] ?? []).map { $0[0] }
            got.append((t["location"] as? [Double] ?? [])[0])
        }
        #expect(got == want)
        // A bad rate is an error that leaves the subscription as it was.
        #expect(try parseRequestError("{\"subscribe\":{\"maxRate\":0}}").contains("maxRate"))
    }

    func parseRequestError(_ request: String) throws -> String {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", Paths.exampleConfig, "--replay", Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path,
                                   "--wait-clients", "99"], socket: sock, dir: dir)
        let c = try LineClient(sock)
        c.send(request + "\n")
        var error = ""
        while let m = c.next(timeout: 5) { if m.type == "error" { error = m["error"] as? String ?? ""; break } }
        d.signal(SIGTERM)
        d.wait()
        return error
    }
}

/// A client that falls behind has its moves coalesced before anything is dropped.
@Suite struct CatchUpTests {
    @Test func aClientThatStopsReadingForAWhileLosesNoSample() throws {
        let dir = TempDir()
        // A drag of 1,500 moves at 500 Hz: far more frames than the socket and a 64-message
        // queue hold while the client does not read.
        var steps: [(Double, String)] = [(1.0, "down 100 240")]
        for k in 1...1500 { steps.append((1.0 + Double(k) * 0.002, "move \(100 + (k % 600)) \(100 + k / 10)")) }
        steps.append((4.01, "up"))
        let cap = dir.write("drag.events", panelCapture(steps))
        let cfg = dir.write("touchd.json", LiveSceneSocketTests.base.replacingOccurrences(of: "\"screen\"", with: "\"clients\": {\"queue\": 64}, \"screen\""))
        let desc = Paths.fixture("virtual-800x480.desc")
        let offline = try touchd("replay", "--config", cfg, "--device-info", desc, cap)
        let want = offline.messages.filter { $0.type == "frame" }.flatMap(\.touches).map { $0["location"] as? [Double] ?? [] }
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", cfg, "--replay", cap, "--device-info", desc, "--speed", "1", "--wait-clients", "1", "--exit-at-end"],
                                  socket: sock, dir: dir)
        let c = try LineClient(sock)
        c.send("{\"subscribe\":{\"types\":[\"frame\"]}}\n")
        usleep(2_000_000)   // not reading for two of the drag's three seconds
        var lines: [[String: Any]] = []
        while let m = c.next(timeout: 20) {
            if m.type == "bye" { break }
            lines.append(m)
        }
        #expect(d.wait() == 0)
        #expect(!lines.contains { $0.type == "overflow" })
        var got: [[Double]] = []
        for t in lines.filter({ $0.type == "frame" }).flatMap(\.touches) {
            got += t["coalesced"] as? [[Double]] ?? []
            got.append(t["location"] as? [Double] ?? [])
        }
        // Coalesced samples carry their time as a third number.
        let samples = got.map { Array($0.prefix(2)) }
        #expect(samples.count == want.count)
        let first = zip(samples, want).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(first == nil, "first difference at sample \(first?.offset ?? -1)")
        #expect(lines.filter { $0.type == "frame" }.count < want.count)
        #expect(d.log.contains("coalescing its moves"))
        #expect(d.log.contains("caught up: every frame again"))
    }
}
