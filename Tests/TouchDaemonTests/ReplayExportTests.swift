import Testing
import TouchCore
import TouchCapture
import TouchInput
import TouchTestSupport
@testable import TouchDaemon

/// Issue 47, item 7: `run --replay` ignored a device entry's `uinput`, so a recorded capture
/// could not be played into a toolkit through touchd's re-export. The daemon's replay now says
/// which virtual touchscreen its device asks for, as the live source does; the offline replay
/// (`touchd replay`, `render`) still makes none. (The virtual touchscreen itself, read back by
/// libinput through the udev rule's link, is scripts/vm/uinput-test.sh's.)
@Suite struct ReplayExportTests {
    static let config = """
        {"screen": {"width": 800, "height": 480},
         "devices": [{"match": {"name": "touchd virtual touchscreen"}, "rotation": 180,
                      "uinput": {"name": "touchd replayed touchscreen"}}],
         "windows": [{"id": "w", "frame": [0, 0, 800, 480]}]}
        """
    static let capture = Repository.path("Tests/Fixtures/live/live-taps.events")
    static let description = Repository.path("Tests/Fixtures/virtual-800x480.desc")

    func arrivals(_ source: InputSource) -> [DeviceArrival] {
        var items: [InputItem] = []
        source.start(into: &items)
        return items.compactMap { if case .arrived(let a) = $0 { return a } else { return nil } }
    }

    @Test func aDaemonsReplayReExportsTheEntrysDevice() throws {
        let cfg = try Config.parse(Self.config)
        var options = Daemon.Options()
        options.replay = [Self.capture]
        options.deviceInfos = [Self.description]
        let (input, replay) = try Daemon.makeInput(options: options, config: cfg, now: { 0 }, log: StderrLog(threshold: .error))
        #expect(replay != nil)
        let a = arrivals(input)
        #expect(a.count == 1)
        let e = a.first?.export
        #expect(e?.name == "touchd replayed touchscreen" && e?.path == "devices[0].uinput", "\(String(describing: e))")
        #expect(e?.settings.rotation == .r180 && e?.slots == 10)
        // A reload matches the device again and keeps asking for it (renamed: a new one).
        var items: [InputItem] = []
        let renamed = try Config.parse(Self.config.replacingOccurrences(of: "touchd replayed touchscreen", with: "touchd renamed"))
        input.reconfigure(renamed, into: &items)
        guard case .settings(_, _, _, let export)? = items.first else { Issue.record("no settings item: \(items)"); return }
        #expect(export?.name == "touchd renamed")
        // Without the key: nothing re-exported.
        let plain = try Config.parse(Self.config.replacingOccurrences(of: #""uinput": {"name": "touchd replayed touchscreen"}"#, with: #""ignore": false"#))
        let (p, _) = try Daemon.makeInput(options: options, config: plain, now: { 0 }, log: StderrLog(threshold: .error))
        #expect(arrivals(p).first?.export == nil && arrivals(p).count == 1)
    }

    @Test func anOfflineReplayMakesNoVirtualTouchscreen() throws {
        let cfg = try Config.parse(Self.config)
        let session = try replaySession(config: cfg, captures: [Self.capture], deviceInfos: [Self.description], format: nil,
                                        engine: Engine(scene: cfg.scene), log: StderrLog(threshold: .error))
        var items: [InputItem] = []
        session.captures.arrivals(into: &items)
        #expect(items.count == 1)
        if case .arrived(let a)? = items.first { #expect(a.export == nil) } else { Issue.record("no arrival: \(items)") }
    }
}
