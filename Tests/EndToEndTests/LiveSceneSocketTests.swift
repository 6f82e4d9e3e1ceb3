import Foundation
import Glibc
import Testing

/// A capture for the virtual 800×480 panel (device units are points), one finger on slot 0:
/// each step is (seconds, "down X Y" | "move X Y" | "up").
func panelCapture(_ steps: [(Double, String)]) -> String {
    var out = ""
    var id = 0
    for (t, step) in steps {
        let time = String(format: "%.6f", t)
        let parts = step.split(separator: " ")
        switch parts[0] {
        case "down":
            id += 1
            out += "E: \(time) 0003 002f 0\nE: \(time) 0003 0039 \(id)\nE: \(time) 0003 0035 \(parts[1])\nE: \(time) 0003 0036 \(parts[2])\n"
        case "move":
            out += "E: \(time) 0003 002f 0\nE: \(time) 0003 0035 \(parts[1])\nE: \(time) 0003 0036 \(parts[2])\n"
        default:
            out += "E: \(time) 0003 002f 0\nE: \(time) 0003 0039 -1\n"
        }
        out += "E: \(time) 0000 0000 0\n"
    }
    return out
}

/// A socket client that keeps every message it read, and waits for one that matches.
final class SceneClient {
    let line: LineClient
    private(set) var seen: [[String: Any]] = []

    init(_ socket: String) throws {
        line = try LineClient(socket)
        _ = wait { $0.type == "snapshot" }
    }

    /// Sends one request (a literal written over several lines is sent as one).
    func send(_ request: String) { line.send(request.replacingOccurrences(of: "\n", with: " ") + "\n") }

    /// The first message from now on that matches (nil after `timeout` or when the daemon closes).
    @discardableResult
    func wait(timeout: TimeInterval = 10, _ match: ([String: Any]) -> Bool) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while let m = line.next(timeout: max(0.05, deadline.timeIntervalSinceNow)) {
            seen.append(m)
            if match(m) { return m }
        }
        return nil
    }

    /// The reply to a scene request (attached, updated, detached or error).
    func reply() -> [String: Any]? { wait { ["attached", "updated", "detached", "error"].contains($0.type ?? "") } }

    /// Every message until the connection closes.
    func rest(timeout: TimeInterval = 15) -> [[String: Any]] {
        let before = seen.count
        wait(timeout: timeout) { _ in false }
        return Array(seen[before...])
    }

    /// Touch records seen so far, as "id phase view reason".
    var touchLines: [String] {
        seen.filter { $0.type == "frame" }.flatMap { $0.touches }.map {
            "\($0["id"] as? Int ?? -1) \($0["phase"] as? String ?? "?") \($0["view"] as? String ?? "-")" + (($0["reason"] as? String).map { " " + $0 } ?? "")
        }
    }

    var controls: [String] {
        seen.filter { $0.type == "control" }.map { "\($0["control"] as? String ?? "?") \($0["event"] as? String ?? "?")" }
    }
}

@Suite(.serialized) struct LiveSceneSocketTests {
    static let base = """
    {"screen": {"width": 800, "height": 480},
     "windows": [{"id": "main", "frame": [0, 0, 800, 480],
                  "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle",
                           "subviews": [{"id": "base-button", "frame": [0, 0, 100, 100], "control": "button"}]}}]}
    """
    /// The client's dialog: a window at (100, 100); its OK button covers screen (150…250, 150…200).
    static let dialog = """
    {"attach": {"id": "dialog", "frame": [100, 100, 400, 200], "level": 1, "view": {"id": "panel", "frame": [0, 0, 400, 200], "touches": "handle", "subviews": [{"id": "ok", "frame": [50, 50, 100, 50], "control": "button"}]}}}
    """

    /// A daemon on `config` replaying `steps` in real time once `clients` clients have spoken.
    func daemon(_ dir: TempDir, config: String = base, steps: [(Double, String)], clients: Int = 1, extra: [String] = []) throws -> (DaemonProcess, String) {
        let sock = dir.path("touchd.sock")
        let cfg = dir.write("touchd.json", config)
        let cap = dir.write("taps.events", panelCapture(steps))
        let d = try DaemonProcess(["--config", cfg, "--replay", cap, "--device-info", Paths.fixture("virtual-800x480.desc"),
                                   "--speed", "1", "--wait-clients", String(clients), "--exit-at-end"] + extra, socket: sock, dir: dir)
        return (d, sock)
    }

    @Test func attachThenTapTheClientsButtonThenMoveIt() throws {
        let dir = TempDir()
        // Taps: on the button; 1 s later at its old place; then at its new place.
        let (d, sock) = try daemon(dir, steps: [(1.0, "down 200 180"), (1.08, "up"),
                                                (2.0, "down 200 180"), (2.08, "up"),
                                                (2.5, "down 400 240"), (2.58, "up")])
        let a = try SceneClient(sock)
        a.send(Self.dialog)
        let attached = a.reply()
        #expect(attached?.type == "attached" && attached?["window"] as? String == "dialog" && attached?["version"] as? Int == 1)
        #expect(attached?["line"] as? Int == 1)
        let up = a.wait { $0.type == "control" && $0["event"] as? String == "touchUpInside" }
        #expect(up?["control"] as? String == "ok")
        // Move the button to window (250, 120): screen (350…450, 220…270).
        a.send(#"{"update": {"window": "dialog", "changes": [{"view": "ok", "set": {"frame": [250, 120, 100, 50]}}]}}"#)
        let updated = a.reply()
        #expect(updated?.type == "updated" && updated?["version"] as? Int == 2)
        _ = a.rest()
        #expect(a.touchLines == ["1 began ok", "1 ended ok", "2 began panel", "2 ended panel", "3 began ok", "3 ended ok"])
        #expect(a.controls.filter { $0.hasSuffix("touchUpInside") } == ["ok touchUpInside", "ok touchUpInside"])
        #expect(d.wait() == 0)
    }

    @Test func aBadChangeFailsTheWholeUpdateAndOtherClientsCannotTouchTheWindow() throws {
        let dir = TempDir()
        let (d, sock) = try daemon(dir, steps: [(1.0, "down 10 10"), (1.1, "up")], clients: 99)
        let a = try SceneClient(sock)
        let b = try SceneClient(sock)
        a.send(Self.dialog)
        #expect(a.reply()?.type == "attached")
        // One bad change (the third) and nothing applies: "extra" does not exist afterwards.
        a.send("""
            {"update": {"window": "dialog", "changes": [{"view": "ok", "set": {"hidden": true}}, {"add": {"id": "extra", "frame": [0, 0, 5, 5]}, "to": "panel"}, {"view": "ok", "set": {"frame": [0, 0, -1, 4]}}]}}
            """)
        let bad = a.reply()
        #expect(bad?.type == "error" && bad?["request"] as? String == "update" && bad?["window"] as? String == "dialog")
        #expect(bad?["path"] as? String == "changes[2].set.frame")
        #expect(bad?["line"] as? Int == 2)
        a.send(#"{"update": {"window": "dialog", "changes": [{"view": "extra", "set": {"hidden": true}}]}}"#)
        let none = a.reply()
        #expect(none?["path"] as? String == "changes[0].view")
        #expect((none?["error"] as? String)?.contains("no view \"extra\"") == true)
        // Another client may neither change nor detach it, nor take its ids.
        b.send(#"{"update": {"window": "dialog", "changes": [{"view": "ok", "set": {"hidden": true}}]}}"#)
        let foreign = b.reply()
        #expect(foreign?.type == "error" && foreign?["path"] as? String == "window")
        // Answered as an unknown window: an error does not tell whose ids exist (issue 21).
        b.send(#"{"update": {"window": "nowhere", "changes": [{"view": "ok", "set": {"hidden": true}}]}}"#)
        let unknown = b.reply()
        #expect((foreign?["error"] as? String)?.replacingOccurrences(of: "dialog", with: "X")
                == (unknown?["error"] as? String)?.replacingOccurrences(of: "nowhere", with: "X"))
        #expect((foreign?["error"] as? String)?.hasSuffix("no window has id \"dialog\"") == true)
        b.send(#"{"detach": {"window": "dialog"}}"#)
        #expect(b.reply()?["path"] as? String == "window")
        b.send(#"{"attach": {"id": "dialog", "frame": [0, 0, 10, 10]}}"#)
        let sameID = b.reply()
        #expect(sameID?.type == "error" && sameID?["path"] as? String == "id")
        b.send(#"{"attach": {"id": "b-window", "frame": [0, 0, 10, 10], "view": {"id": "ok", "frame": [0, 0, 1, 1]}}}"#)
        #expect(b.reply()?["path"] as? String == "view.id")
        b.send(#"{"attach": {"id": "b-window", "frame": [0, 0, 10, 10], "view": {"id": "base-button", "frame": [0, 0, 1, 1]}}}"#)
        #expect(b.reply()?["path"] as? String == "view.id")
        // Requests that do not parse name the place too; both connections stay usable.
        b.send(#"{"attach": {"id": "b-window", "frame": [0, 0, 10]}}"#)
        let unparsed = b.reply()
        #expect(unparsed?["path"] as? String == "frame" && unparsed?["window"] as? String == "b-window")
        b.send(#"{"ping": 2}"#)
        #expect(b.wait { $0.type == "pong" }?["ping"] as? Int == 2)
        // The owner's next good update is version 2: the failed ones counted nothing.
        a.send(#"{"update": {"window": "dialog", "changes": [{"view": "ok", "set": {"hidden": true}}]}}"#)
        #expect(a.reply()?["version"] as? Int == 2)
        a.send(#"{"detach": {"window": "dialog"}}"#)
        #expect(a.reply()?.type == "detached")
        d.signal(SIGTERM)
        #expect(d.wait() == 0)
    }

    @Test func aPrivateWindowsTouchesReachOnlyItsOwner() throws {
        let dir = TempDir()
        // A tap on the PIN pad's key, then one on the config's button.
        let (d, sock) = try daemon(dir, steps: [(1.0, "down 650 60"), (1.08, "up"), (1.5, "down 50 50"), (1.58, "up")], clients: 2)
        let owner = try SceneClient(sock)
        owner.send(#"{"subscribe": {"types": ["device"]}}"#)   // the owner's filter does not matter for its window
        _ = owner.wait { $0.type == "snapshot" }
        owner.send("""
            {"attach": {"id": "pin", "private": true, "frame": [600, 0, 200, 200], "level": 2,
                        "view": {"id": "pad", "frame": [0, 0, 200, 200], "subviews": [{"id": "key-1", "frame": [0, 0, 100, 100], "control": "button"}]}}}
            """)
        #expect(owner.reply()?.type == "attached")
        // The second client's first request starts the replay.
        let other = try SceneClient(sock)
        other.send(#"{"subscribe": {"types": ["frame", "control", "gesture", "scroll", "hitTest"]}}"#)
        _ = owner.rest()
        _ = other.rest()
        // The private key's touch has its owner's own id (client 1: 2^32 + 1 × 2^24 + 1).
        #expect(owner.touchLines == ["4311744513 began key-1", "4311744513 ended key-1"])
        #expect(owner.controls.contains("key-1 touchUpInside"))
        // The other subscriber saw the second tap, and nothing of the first: not even in its id,
        // which is 1 — it was 2, and told that one touch it could not see came first (issue 40).
        #expect(other.touchLines == ["1 began base-button", "1 ended base-button"])
        let text = other.seen.map { "\($0)" }.joined()
        #expect(!text.contains("key-1") && !text.contains("pad") && !text.contains("pin"))
        #expect(d.wait() == 0)
    }

    @Test func theOwnerDisconnectsMidTouch() throws {
        let dir = TempDir()
        // A finger held on the panel for 1.5 s, then a tap at the same place.
        var steps: [(Double, String)] = [(1.0, "down 120 120")]
        for k in 1...14 { steps.append((1.0 + Double(k) * 0.1, "move \(120 + k) 120")) }
        steps += [(2.5, "up"), (3.0, "down 120 120"), (3.08, "up")]
        let (d, sock) = try daemon(dir, steps: steps, clients: 2)
        let watcher = try SceneClient(sock)
        watcher.send(#"{"ping": 1}"#)
        let owner = try SceneClient(sock)
        owner.send(Self.dialog)
        #expect(owner.reply()?.type == "attached")
        #expect(owner.wait { $0.type == "frame" && $0.touches.first?["phase"] as? String == "began" } != nil)
        owner.line.closeNow()
        _ = watcher.rest()
        let lines = watcher.touchLines
        #expect(lines.first == "1 began panel")
        #expect(lines.filter { $0.hasPrefix("1 cancelled") } == ["1 cancelled panel client-gone"])
        #expect(!lines.contains { $0.hasPrefix("1 ended") })
        #expect(lines.firstIndex(of: "1 cancelled panel client-gone").map { lines[($0 + 1)...].allSatisfy { !$0.hasPrefix("1 ") } } == true)
        // The next touch there falls to what lies below: the config's root view.
        #expect(lines.suffix(2) == ["2 began root", "2 ended root"])
        #expect(d.wait() == 0)
        #expect(d.log.contains("is gone: its 1 window(s) removed"))
    }

    @Test func detachMidTouchCancelsWithWindowRemoved() throws {
        let dir = TempDir()
        var steps: [(Double, String)] = [(1.0, "down 120 120")]
        for k in 1...9 { steps.append((1.0 + Double(k) * 0.1, "move \(120 + k) 120")) }
        steps += [(2.0, "up"), (2.5, "down 120 120"), (2.58, "up")]
        let (d, sock) = try daemon(dir, steps: steps)
        let owner = try SceneClient(sock)
        owner.send(Self.dialog)
        #expect(owner.reply()?.type == "attached")
        #expect(owner.wait { $0.type == "frame" } != nil)
        owner.send(#"{"detach": {"window": "dialog"}}"#)
        #expect(owner.reply()?.type == "detached")
        _ = owner.rest()
        let lines = owner.touchLines
        #expect(lines.first == "1 began panel")
        #expect(lines.contains("1 cancelled panel window-removed"))
        #expect(!lines.contains { $0.hasPrefix("1 ended") })
        // The detached window is no longer the client's: the next touch, on the config's root
        // view, reaches it only through its (default) subscription.
        #expect(lines.suffix(2) == ["2 began root", "2 ended root"])
        #expect(d.wait() == 0)
    }

    @Test func theOwnersPolicyRefusesAnAttachButKeepsTheConnection() throws {
        let me = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? String(getuid())
        let myGroup = getgrgid(getgid()).map { String(cString: $0.pointee.gr_name) } ?? String(getgid())
        for (owners, allowed) in [(#"{"users": ["no-such-user-here"], "groups": ["no-such-group-here"]}"#, false),
                                  ("{\"users\": [\"\(me)\"]}", true),
                                  ("{\"groups\": [\"\(myGroup)\"]}", true),
                                  ("{\"users\": [\"\(getuid())\"]}", true)] {
            let dir = TempDir()
            let config = Self.base.replacingOccurrences(of: "\"screen\"", with: "\"clients\": {\"owners\": \(owners)}, \"screen\"")
            let (d, sock) = try daemon(dir, config: config, steps: [(1.0, "down 10 10"), (1.1, "up")], clients: 99)
            let c = try SceneClient(sock)
            c.send(Self.dialog)
            let r = c.reply()
            if allowed {
                #expect(r?.type == "attached", "\(owners)")
            } else {
                #expect(r?.type == "error" && r?["request"] as? String == "attach")
                #expect((r?["error"] as? String)?.contains("is not among clients.owners") == true)
                c.send(#"{"ping": "still"}"#)
                #expect(c.wait { $0.type == "pong" } != nil)
            }
            d.signal(SIGTERM)
            #expect(d.wait() == 0)
        }
    }

    /// Issue 28, item 4: the levels a client's windows may take come from its `clients.owners`
    /// entry (matched by its credentials), else from `clients.levels`.
    @Test func theOwnersEntryOrClientsLevelsBoundsTheLevel() throws {
        let me = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? String(getuid())
        for (clients, highest) in [("{\"owners\": [{\"users\": [\"no-such-user-here\"], \"levels\": [0, 100]}, {\"users\": [\"\(me)\"], \"levels\": [-5, 5]}]}", "5"),
                                   (#"{"levels": [-1, 2]}"#, "2")] {
            let dir = TempDir()
            let config = Self.base.replacingOccurrences(of: "\"screen\"", with: "\"clients\": \(clients), \"screen\"")
            let (d, sock) = try daemon(dir, config: config, steps: [(1.0, "down 10 10"), (1.1, "up")], clients: 99)
            let c = try SceneClient(sock)
            c.send(Self.dialog.replacingOccurrences(of: "\"level\": 1,", with: "\"level\": 1e300,"))
            let r = c.reply()
            #expect(r?.type == "error" && r?["request"] as? String == "attach", "\(clients)")
            #expect(r?["path"] as? String == "level")
            #expect((r?["error"] as? String)?.contains("is above this client's highest, \(highest)") == true, "\(String(describing: r))")
            c.send(Self.dialog)
            #expect(c.reply()?.type == "attached", "\(clients)")
            d.signal(SIGTERM)
            #expect(d.wait() == 0)
        }
    }

    @Test func sighupKeepsClientWindowsAndRefusesAClash() throws {
        let dir = TempDir()
        let (d, sock) = try daemon(dir, steps: [(1.0, "down 200 180"), (1.08, "up")], clients: 2)
        let owner = try SceneClient(sock)
        owner.send(Self.dialog)
        #expect(owner.reply()?.type == "attached")
        // A config that declares the client's "ok": refused, the old one stays.
        _ = dir.write("touchd.json", Self.base.replacingOccurrences(of: "base-button", with: "ok"))
        d.signal(SIGHUP)
        var waited = 0
        while !d.log.contains("reload rejected") && waited < 100 { usleep(50_000); waited += 1 }
        #expect(d.log.contains("\"ok\" is taken by a client's window"))
        // A good one: reloaded, the client's window stays.
        _ = dir.write("touchd.json", Self.base.replacingOccurrences(of: "base-button", with: "renamed"))
        d.signal(SIGHUP)
        waited = 0
        while !d.log.contains("reloaded:") && waited < 100 { usleep(50_000); waited += 1 }
        #expect(d.log.contains("; 1 client window(s) kept"))
        let other = try SceneClient(sock)
        other.send(#"{"ping": 1}"#)   // the second client: the replay starts
        _ = owner.rest()
        #expect(owner.touchLines == ["1 began ok", "1 ended ok"])
        #expect(owner.controls.contains("ok touchUpInside"))
        #expect(d.wait() == 0)
    }

    /// Issue 47, item 6: `--wait-clients` starts a replay at a client's first request, so a
    /// kiosk attaching two windows raced it — its first tap, on the second window, landed on
    /// the config's root before that window was there. `--wait-windows 2` holds the replay until
    /// clients have two windows attached. The client waits 0.3 s between its attaches, long
    /// enough for a replay as fast as possible to be over. (Without --wait-windows the client
    /// waits for the tap's end instead, so that a loaded machine's slow replay cannot put the
    /// tap after the second attach.)
    @Test func waitWindowsHoldsTheReplayUntilTheClientsWindowsAreAttached() throws {
        func run(_ wait: [String], secondAfterTheTap: Bool = false) throws -> (touches: [String], log: String) {
            let dir = TempDir()
            let sock = dir.path("touchd.sock")
            let cfg = dir.write("touchd.json", Self.base)
            let cap = dir.write("tap.events", panelCapture([(1.0, "down 600 300"), (1.05, "up")]))
            let d = try DaemonProcess(["--config", cfg, "--replay", cap, "--device-info", Paths.fixture("virtual-800x480.desc"),
                                       "--speed", "0", "--exit-at-end"] + wait, socket: sock, dir: dir)
            let c = try SceneClient(sock)
            c.send(#"{"attach": {"id": "left", "frame": [0, 0, 400, 480], "level": 1, "view": {"id": "left-view", "frame": [0, 0, 400, 480], "touches": "handle"}}}"#)
            #expect(c.reply()?.type == "attached")
            if secondAfterTheTap {
                #expect(c.wait { ($0.type == "frame") && $0.touches.contains { $0["phase"] as? String == "ended" } } != nil, "the tap")
            } else {
                usleep(300_000)
            }
            c.send(#"{"attach": {"id": "right", "frame": [400, 0, 400, 480], "level": 1, "view": {"id": "right-view", "frame": [0, 0, 400, 480], "touches": "handle"}}}"#)
            _ = c.rest()
            #expect(d.wait() == 0)
            return (c.touchLines, d.log)
        }
        let held = try run(["--wait-windows", "2"])
        #expect(held.touches == ["1 began right-view", "1 ended right-view"], "\(held.log)")
        // The race --wait-windows removes: held for one client's first request only, the tap
        // is over (on the config's root) before the second window comes.
        let raced = try run(["--wait-clients", "1"], secondAfterTheTap: true)
        #expect(raced.touches == ["1 began root", "1 ended root"], "\(raced.touches)")
        #expect(raced.log.contains("replay finished"), "\(raced.log)")
        let usage = try touchd("run", "--config", Paths.exampleConfig, "--wait-windows", "1")
        #expect(usage.status == 2 && usage.stderr.contains("--wait-windows needs --replay"), "\(usage.stderr)")
    }
}

extension LineClient {
    /// Closes the connection at once (a client that crashed).
    func closeNow() { shutdown(fd, Int32(SHUT_RDWR)) }
}
