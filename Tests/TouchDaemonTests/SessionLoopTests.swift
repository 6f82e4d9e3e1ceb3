import Foundation
import Testing
import Glibc
import TouchCore
@testable import TouchDaemon

/// Issue 44, item 1, in the daemon's own loop with virtual time (EmbeddedDaemon): idle after
/// `idle` seconds without a touch, the backlight (a fake sysfs tree the config points at) off
/// and on again, the waking touch reaching no subscriber, and a loop that wakes once per idle
/// period — turned the way the real loop turns, the clock jumping to each deadline it asks for.
@Suite(.serialized) struct SessionLoopTests {
    /// A backlight device's directory as the kernel shows one: bl_power, brightness, max.
    static func panel(brightness: String = "180", power: Bool = true) throws -> String {
        let dir = NSTemporaryDirectory() + "touchd-backlight-\(UUID().uuidString.prefix(8))/10-0045"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if power { try "0\n".write(toFile: dir + "/bl_power", atomically: false, encoding: .utf8) }
        try "\(brightness)\n".write(toFile: dir + "/brightness", atomically: false, encoding: .utf8)
        try "255\n".write(toFile: dir + "/max_brightness", atomically: false, encoding: .utf8)
        return dir
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "missing" }

    static func config(backlight: String) -> String {
        """
        {"screen": {"width": 800, "height": 480},
         "session": {"idle": 2, "backlight": "\(backlight)"},
         "windows": [{"id": "main", "frame": [0, 0, 800, 480],
                      "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle",
                               "subviews": [{"id": "ok", "frame": [0, 0, 100, 100], "control": "button"}]}}]}
        """
    }

    @Test func idleOnTimeBacklightOffAndAWakeThatPressesNothing() throws {
        let dir = try Self.panel()
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        // A tap on the button, four seconds of nothing, a tap on it (the waking one), another.
        let d = try EmbeddedDaemon(config: Self.config(backlight: dir),
                                   steps: [(1.0, "down 50 50"), (1.1, "up"), (5.0, "down 50 50"), (5.1, "up"), (6.0, "down 50 50"), (6.1, "up")])
        let c = try d.connect()
        d.turn()
        try c.send(#"{"subscribe": {}}"#)
        d.turn()
        let start = d.now
        var seen: [[String: Any]] = []
        var backlightAtIdle = "", brightnessAtIdle = ""
        let turns = d.runAsTheRealLoop(until: start + 20_000_000) {
            for m in (try? c.messages()) ?? [] where m.type != "snapshot" && m.type != "hello" {
                seen.append(m)
                if m.type == "idle" && backlightAtIdle.isEmpty {
                    backlightAtIdle = Self.read(dir + "/bl_power")
                    brightnessAtIdle = Self.read(dir + "/brightness")
                }
            }
        }
        func at(_ m: [String: Any]) -> Int64 { Int64(((m["time"] as? Double ?? 0) * 1_000_000).rounded()) - start }
        let kinds = seen.map { m -> String in
            if m.type == "frame" { return "frame " + m.touches.map { "\($0["id"]!) \($0["phase"]!)" }.joined(separator: ",") }
            return m.type ?? "?"
        }
        #expect(kinds == ["frame 1 began", "control", "frame 1 ended", "control", "control",
                          "idle", "wake", "frame 2 began", "control", "frame 2 ended", "control", "control", "idle"], "\(kinds)")
        // Two seconds after the lift at 0.1 s, on the engine's clock (the replay's first event at 0).
        let idles = seen.filter { $0.type == "idle" }.map(at)
        #expect(idles == [2_100_000, 7_100_000], "\(idles)")
        #expect(seen.first { $0.type == "wake" }.map(at) == 4_000_000)
        #expect(seen.first { $0.type == "idle" }?["output"] as? String == "screen")
        // The backlight: off at idle (both attributes: some panels ignore bl_power), back on at wake.
        #expect(backlightAtIdle == "4\n" && brightnessAtIdle == "0\n")
        #expect(Self.read(dir + "/bl_power") == "4\n" && Self.read(dir + "/brightness") == "0\n")   // idle again at the end
        #expect(d.logLines.contains { $0.contains("output screen: backlight \(dir) (bl_power and brightness)") }, "\(d.logLines.prefix(6))")
        // The loop's turns while nothing happened: between the first lift (0.1 s) and the
        // waking touch (4.0 s), one — the idle deadline; after the last idle, none: it sleeps.
        let quiet = turns.map { $0 - start }.filter { $0 > 150_000 && $0 < 4_000_000 }
        #expect(quiet == [2_100_000], "\(quiet)")
        #expect(turns.last.map { $0 - start } == 7_100_000, "\(turns.suffix(4).map { $0 - start })")
        #expect(d.daemon.nextDeadline(now: d.now) == nil)
    }

    @Test func theBacklightComesBackAtWake() throws {
        let dir = try Self.panel()
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        let d = try EmbeddedDaemon(config: Self.config(backlight: dir), steps: [(1.0, "down 50 50"), (1.1, "up"), (5.0, "down 50 50"), (5.1, "up")])
        let c = try d.connect()
        d.turn()
        try c.send(#"{"subscribe": {}}"#)
        d.turn()
        let start = d.now
        var afterWake: (String, String)?
        d.runAsTheRealLoop(until: start + 3_900_000) {
            for m in (try? c.messages()) ?? [] where m.type == "wake" { afterWake = (Self.read(dir + "/bl_power"), Self.read(dir + "/brightness")) }
        }
        #expect(afterWake == nil)
        #expect(Self.read(dir + "/bl_power") == "4\n")
        d.runAsTheRealLoop(until: start + 4_100_000) {
            for m in (try? c.messages()) ?? [] where m.type == "wake" { afterWake = (Self.read(dir + "/bl_power"), Self.read(dir + "/brightness")) }
        }
        #expect(afterWake.map { $0.0 == "0\n" && $0.1 == "180\n" } == true, "\(String(describing: afterWake))")
        // Idle again, then the daemon stops: it leaves the panel lit.
        d.runAsTheRealLoop(until: start + 7_000_000)
        #expect(Self.read(dir + "/bl_power") == "4\n" && Self.read(dir + "/brightness") == "0\n")
        d.daemon.requestStop()
        d.turn()
        #expect(Self.read(dir + "/bl_power") == "0\n" && Self.read(dir + "/brightness") == "180\n")
    }

    /// A panel that has only `brightness`, and one that is missing: the daemon says so at start
    /// and the session still goes idle and wakes.
    @Test func aBrightnessOnlyPanelAndAMissingOne() throws {
        let dir = try Self.panel(brightness: "90", power: false)
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        let d = try EmbeddedDaemon(config: Self.config(backlight: dir), steps: [(1.0, "down 50 50"), (1.1, "up")])
        let c = try d.connect()
        d.turn()
        try c.send(#"{"subscribe": {}}"#)
        d.turn()
        d.runAsTheRealLoop(until: d.now + 3_000_000)
        #expect(Self.read(dir + "/brightness") == "0\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/bl_power"))    // never created
        try c.send(#"{"session": {"output": "screen", "action": "wake"}}"#)
        d.turn()
        d.turn()
        #expect(Self.read(dir + "/brightness") == "90\n")
        let reply = try c.messages().first { $0.type == "session" }
        #expect(reply?["idle"] as? Bool == false && reply?["keepAwake"] as? Int == 0 && reply?["line"] as? Int == 2, "\(String(describing: reply))")

        let missing = try EmbeddedDaemon(config: Self.config(backlight: "/nonexistent/backlight/x"), steps: [(1.0, "down 50 50"), (1.1, "up")])
        #expect(missing.logLines.contains { $0.contains("session.backlight /nonexistent/backlight/x: no such backlight") }, "\(missing.logLines.prefix(6))")
    }
}
