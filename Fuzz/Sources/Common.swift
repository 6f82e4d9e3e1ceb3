// Shared by every fuzz target (compiled into each binary next to the target's own file).
// Nothing here may print: libFuzzer's output is the report.

import TouchCore
import TouchInput
import TouchTestSupport

enum Fuzz {
    /// A protocol B touchscreen, 800×480, 10 slots: the description for header-less inputs
    /// (raw dumps, evemu events without N:/A: lines) and the scene target's device (from the
    /// tests' one device catalogue, TouchTestSupport).
    static let screen: DeviceInfo = fuzzScreen()

    /// The fuzz device registered with `engine` (the target is that engine's loop: what the
    /// device reads is handed over through an EngineFeed, as the daemon's loop does), and how
    /// to feed it an event; nil when the config ignores it.
    static func attach(_ engine: Engine, _ config: Config) -> ((InputEvent) -> Void)? {
        let entry = InputDevice.entry(for: screen, in: config)
        guard entry?.settings.ignore != true, let input = try? InputDevice(key: DeviceKey(0), id: "fuzz", info: screen, entry: entry) else { return nil }
        var feeder = EngineFeed()
        feeder.feed(.arrived(input.arrival(time: 0)), to: engine)
        var items: [InputItem] = []
        return { e in
            items.removeAll(keepingCapacity: true)
            input.convert(e, into: &items)
            for item in items { feeder.feed(item, to: engine) }
        }
    }

    /// A scene with something for every part of the engine: buttons (one round, one with an
    /// outset, one disabled), a scroll view with paging and one that cancels control touches,
    /// tap / double tap with requireToFail, long press, pan, swipe, pinch + rotation
    /// (simultaneous), a screen-edge pan, a forwarding canvas, a private overlay window and a
    /// mapping entry for the fuzz device (rotation, calibration, flip).
    static let configText = """
    {"screen": {"width": 800, "height": 480},
     "devices": [{"match": {"name": "fuzz rotated*"}, "rotation": 90, "flipY": true},
                 {"match": {"name": "*"}, "calibration": [1.01, 0.02, -3, -0.01, 0.99, 2]}],
     "application": {"id": "app", "delegate": "appDelegate", "scene": "scene"},
     "windows": [
      {"id": "main", "frame": [0, 0, 800, 480],
       "view": {"id": "root", "controller": "rootVC", "frame": [0, 0, 800, 480], "touches": "handle",
        "gestures": [{"id": "back", "kind": "screenEdgePan", "edges": ["left", "bottom"]}],
        "subviews": [
         {"id": "toolbar", "frame": [0, 0, 800, 60], "touches": "handle", "subviews": [
           {"id": "ok", "frame": [10, 8, 80, 44], "control": "button", "hitOutset": 8},
           {"id": "round", "frame": [100, 8, 44, 44], "control": "button", "shape": "ellipse"},
           {"id": "off", "frame": [160, 8, 80, 44], "control": "button", "enabled": false}]},
         {"id": "list", "frame": [0, 60, 300, 420], "scroll": {"contentSize": [300, 2400], "cancelsControlTouches": true},
          "subviews": [{"id": "row0", "frame": [0, 0, 300, 60], "control": "button"},
                       {"id": "row1", "frame": [0, 100, 300, 60], "control": "button"}]},
         {"id": "pages", "frame": [300, 60, 200, 420], "scroll": {"contentSize": [200, 1680], "pagingEnabled": true}},
         {"id": "photo", "frame": [500, 60, 300, 210], "multipleTouch": true, "touches": "handle",
          "gestures": [{"id": "pinch", "kind": "pinch", "simultaneousWith": ["rotate"]}, {"id": "rotate", "kind": "rotation"},
                       {"id": "double", "kind": "tap", "taps": 2}, {"id": "single", "kind": "tap", "requireToFail": ["double"]}]},
         {"id": "canvas", "frame": [500, 270, 300, 210], "touches": "handleAndForward", "multipleTouch": true,
          "gestures": [{"id": "hold", "kind": "longPress", "minimumDuration": 0.3}, {"id": "drag", "kind": "pan", "maximumTouches": 3},
                       {"id": "flick", "kind": "swipe", "directions": ["left", "up"]}]}]}},
      {"id": "toast", "frame": [200, 400, 400, 60], "level": 1,
       "view": {"id": "toastMask", "frame": [0, 0, 400, 60], "hitTest": "none"}}],
     "responders": {"rootVC": {"touches": "handleAndForward"}, "appDelegate": {"touches": "handle"}}}
    """

    static let config: Config = {
        do { return try Config.parse(Array(configText.utf8)) } catch {
            fatalError("the fuzz harness's own config does not parse: \(error)")
        }
    }()

    /// Encodes everything an engine published, as the daemon would (so the encoder sees every
    /// message with the scene of its time).
    struct EncodingSink: OutputSink {
        let history: SceneHistory
        var bytes = 0
        init(scene: Scene) { history = SceneHistory(scene: scene) }
        mutating func take(_ m: Message, history: SceneHistory) { bytes &+= history.encode(m).count }
        mutating func reply(_ line: [UInt8]) { bytes &+= line.count }
        /// Everything the engine published, read through the one scene history.
        mutating func drain(_ engine: Engine) {
            let h = history
            h.deliver(engine.drain(), to: &self)
        }
    }

    static func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// A sink the optimizer cannot remove.
    @inline(never) static func keep<T>(_ value: T) { withExtendedLifetime(value) {} }
}
