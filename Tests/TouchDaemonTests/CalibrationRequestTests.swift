import Testing
import Glibc
@testable import TouchDaemon

/// `{"calibrate":{"device":ID}}` through the daemon's own loop (issue 33, item 3): the asker
/// gets a target per tap and `calibrated` at the end, the device's taps reach no subscriber
/// meanwhile; a client the owners policy refuses gets an error; a client that leaves ends its
/// calibration (the server tells the engine) and the device's touches are everyone's again.
@Suite(.serialized) struct CalibrationRequestTests {
    /// A tap as the replay starts (before any calibration), then, from a second on, one on each
    /// of the five default targets of an 800×480 output (the panel maps 1:1).
    static let taps: [(Double, String)] = [
        (1.0, "down 400 400"), (1.05, "up"),
        (2.0, "down 80 48"), (2.1, "up"), (2.5, "down 719 48"), (2.6, "up"), (3.0, "down 719 431"), (3.1, "up"),
        (3.5, "down 80 431"), (3.6, "up"), (4.0, "down 400 240"), (4.1, "up"),
    ]

    func start(owners: String, steps: [(Double, String)] = Self.taps) throws -> (EmbeddedDaemon, watcher: EmbeddedDaemon.Client, device: String) {
        let d = try EmbeddedDaemon(config: OutputRequestTests.config(owners: owners), steps: steps)
        let watcher = try d.connect()
        d.turn()
        try watcher.send(#"{"subscribe": {}}"#)
        d.turn()
        d.run(for: 200_000)
        let seen = try watcher.messages()
        let devices = seen.last { $0.type == "snapshot" }?["devices"] as? [[String: Any]] ?? []
        let added = seen.first { $0.type == "device" }?["device"] as? [String: Any]
        let id = (devices.first?["id"] ?? added?["id"]) as? String ?? "?"
        return (d, watcher, id)
    }

    @Test func theAskerGetsATargetPerTapThenCalibratedAndNoSubscriberSeesTheTaps() throws {
        let (d, watcher, device) = try start(owners: String(getuid()))
        let ui = try d.connect()
        d.turn()
        try ui.send(#"{"calibrate": {"device": "\#(device)"}}"#)
        d.turn()
        d.turn()
        d.run(for: 4_000_000)
        let told = try ui.messages()
        let targets = told.filter { $0.type == "calibration" }
        #expect(targets.compactMap { $0["target"] as? Int } == [0, 1, 2, 3, 4], "\(told)")
        #expect(targets.first?["line"] as? Int == 1 && targets.first?["output"] as? String == "DSI-1")
        #expect(targets.first?["point"] as? [Double] == [79.9, 47.9])
        let done = told.first { $0.type == "calibrated" }
        #expect((done?["residual"] as? Double ?? 99) < 1 && (done?["maxResidual"] as? Double ?? 99) < 1.5, "\(String(describing: done))")
        let entry = done?["entry"] as? [String: Any]
        #expect((entry?["calibration"] as? [Double])?.count == 6)
        // Nobody else saw the taps, nor the calibration's messages.
        let seen = try watcher.messages()
        #expect(seen.flatMap(\.touches).isEmpty, "\(seen)")
        #expect(!seen.contains { ($0.type ?? "").hasPrefix("calibrat") })
    }

    @Test func aClientThePolicyRefusesGetsAnErrorAndTheTapsStayEveryones() throws {
        let (d, watcher, device) = try start(owners: "touchd-nobody-\(getuid())")
        let ui = try d.connect()
        d.turn()
        try ui.send(#"{"calibrate": {"device": "\#(device)"}}"#)
        d.turn()
        d.turn()
        let error = try ui.messages().first { $0.type == "error" }
        #expect(error?["request"] as? String == "calibrate")
        #expect((error?["error"] as? String)?.contains("is not among clients.owners") == true, "\(String(describing: error))")
        d.run(for: 1_000_000)
        #expect(try watcher.messages().flatMap(\.touches).map { $0["phase"] as? String } == ["began", "ended"])
    }

    @Test func aClientThatLeavesEndsItsCalibration() throws {
        let (d, watcher, device) = try start(owners: String(getuid()))
        var ui: EmbeddedDaemon.Client? = try d.connect()
        d.turn()
        try ui?.send(#"{"calibrate": {"device": "\#(device)"}}"#)
        d.turn()
        d.turn()
        #expect(try ui?.messages().contains { $0.type == "calibration" } == true)
        ui = nil   // closes its socket
        d.turn()
        d.turn()
        d.run(for: 1_000_000)
        #expect(try watcher.messages().flatMap(\.touches).map { $0["phase"] as? String } == ["began", "ended"])
        #expect(d.logLines.contains { $0.contains("calibration ended (its client)") }, "\(d.logLines.suffix(5))")
    }

    /// A panel whose taps land 0.9 of the way from (40, 24): each target tapped where that panel
    /// reports it; then a tap at (112, 67) — target 1's place on this panel — twice, the config
    /// reloaded in between.
    static let distorted: [(Double, String)] = [
        (1.0, "down 400 400"), (1.05, "up"),
        (2.0, "down 112 67"), (2.1, "up"), (2.5, "down 687 67"), (2.6, "up"), (3.0, "down 687 412"), (3.1, "up"),
        (3.5, "down 112 412"), (3.6, "up"), (4.0, "down 400 240"), (4.1, "up"),
        (5.0, "down 112 67"), (5.1, "up"), (6.0, "down 112 67"), (6.1, "up"),
    ]

    @Test func theMatrixAppliesAtOnceUntilTheNextReload() throws {
        let (d, watcher, device) = try start(owners: String(getuid()), steps: Self.distorted)
        let ui = try d.connect()
        d.turn()
        try ui.send(#"{"calibrate": {"device": "\#(device)"}}"#)
        d.turn()
        d.turn()
        d.run(for: 4_000_000)
        #expect(try ui.messages().contains { $0.type == "calibrated" })
        // Calibrated: the tap lands on target 1, (79.9, 47.9), not where the panel said.
        let calibrated = try watcher.messages().flatMap(\.touches).first { $0["phase"] as? String == "began" }
        let at = calibrated?["location"] as? [Double] ?? []
        #expect(at.count == 2 && abs(at[0] - 79.9) < 1.5 && abs(at[1] - 47.9) < 1.5, "\(String(describing: calibrated))")
        // A reload gives the device its config entry's settings again: no calibration.
        d.daemon.requestReload()
        d.turn()
        d.run(for: 1_000_000)
        let reloaded = try watcher.messages().flatMap(\.touches).first { $0["phase"] as? String == "began" }
        #expect(reloaded?["location"] as? [Double] == [112, 67], "\(String(describing: reloaded))")
    }
}
