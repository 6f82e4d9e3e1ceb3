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
