import Foundation
import Glibc
import Testing

/// SIGTERM leaves no ghost touches, even for clients far behind: every client still connected
/// learns that every touch it knows of ended.
@Suite struct ShutdownGhostTests {
    /// The touches a client believes are down after reading `messages`.
    func down(after messages: [[String: Any]]) -> Set<Int> {
        var down = Set<Int>()
        for m in messages {
            switch m["type"] as? String {
            case "snapshot":
                down = Set(m.touches.compactMap { $0["id"] as? Int })
            case "frame":
                for t in m.touches {
                    guard let id = t["id"] as? Int else { continue }
                    switch t["phase"] as? String {
                    case "began": down.insert(id)
                    case "ended", "cancelled": down.remove(id)
                    default: break
                    }
                }
            default: break
            }
        }
        return down
    }

    @Test(arguments: [(true, 2_500_000, "an overflow notice and a snapshot"), (false, 600_000, "stale frame(s) of moves dropped")])
    func aClientBehindAtShutdownEndsWithNoTouchDown(taps: Bool, notReadingMicros: Int, expected: String) throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        var steps: [(Double, String)] = []
        if taps {
            // Taps on the button every 10 ms (frames and control events, none of which can be
            // coalesced): a 16-message queue overflows; then a finger stays down.
            for k in 0..<200 { steps += [(1.0 + Double(k) * 0.01, "down 50 50"), (1.005 + Double(k) * 0.01, "up")] }
            steps.append((3.0, "down 300 300"))
            for k in 1...1000 { steps.append((3.0 + Double(k) * 0.002, "move \(300 + k % 100) 300")) }
        } else {
            // One finger dragged at 500 Hz for 5 s: far more than a 16-message queue and the
            // socket hold while the client does not read; it is still down at SIGTERM.
            steps.append((1.0, "down 100 240"))
            for k in 1...2500 { steps.append((1.0 + Double(k) * 0.002, "move \(100 + (k % 600)) \(100 + (k / 20) % 300)")) }
        }
        let cap = dir.write("drag.events", panelCapture(steps))
        let cfg = dir.write("touchd.json", LiveSceneSocketTests.base.replacingOccurrences(of: "\"screen\"", with: "\"clients\": {\"queue\": 16}, \"screen\""))
        let d = try DaemonProcess(["--config", cfg, "--replay", cap, "--device-info", Paths.fixture("virtual-800x480.desc"), "--speed", "1",
                                   "--wait-clients", "1"], socket: sock, dir: dir)
        let c = try LineClient(sock)
        c.send("{\"subscribe\":{\"types\":[\"frame\", \"control\"]}}\n")
        usleep(useconds_t(notReadingMicros))   // behind: not reading while fingers tap and move
        d.signal(SIGTERM)
        var messages: [[String: Any]] = []
        while let m = c.next(timeout: 10) {
            messages.append(m)
            if m["type"] as? String == "bye" { break }
        }
        #expect(d.wait() == 0)
        #expect(d.log.contains(expected), "\(d.log)")
        #expect(messages.last?["type"] as? String == "bye")
        #expect(down(after: messages).isEmpty, "touches left down: \(down(after: messages))")
    }
}
