import Testing
import TouchCore
import TouchInput
import TouchTestSupport

/// EngineFeed remembers the device of the last event (issue 34: a hash lookup per event was a
/// few percent of a replay); a device removed and another arriving under the same key must
/// still get their own events, and a removed one's events none.
@Suite struct EngineFeedTests {
    @Test func eventsGoToTheDeviceTheirKeyNamesNowAcrossRemovalAndArrival() throws {
        let engine = Engine(scene: try Config.parse(#"{"windows": [{"id": "w", "frame": [0, 0, 800, 480]}]}"#).scene)
        var feed = EngineFeed()
        func arrive(_ key: Int, _ id: String, at t: Int64) throws {
            let input = try InputDevice(key: DeviceKey(key), id: id, info: screenDevice(), entry: nil)
            feed.feed(.arrived(input.arrival(time: t)), to: engine)
        }
        func tap(_ key: Int, at t: Int64) {
            var f = Finger()
            f.time = t
            f.down(0, 100, 100); f.syn()
            f.up(0); f.syn()
            for e in f.events { feed.feed(.event(DeviceKey(key), e), to: engine) }
        }
        try arrive(0, "a", at: 0)
        try arrive(1, "b", at: 0)
        tap(1, at: 1_000_000)
        tap(0, at: 2_000_000)              // the last event's device: key 0
        feed.feed(.removed(DeviceKey(0), time: 3_000_000), to: engine)
        try arrive(2, "d", at: 3_500_000)  // (may take the engine's index key 0 had)
        tap(0, at: 4_000_000)              // a removed device's events: dropped, not d's
        tap(2, at: 4_500_000)
        try arrive(0, "c", at: 5_000_000)  // the key again, another device
        tap(0, at: 6_000_000)
        var frames: [String] = []
        for o in engine.drain() {
            if case .message(.frame(let f)) = o, f.touches.first?.phase == .began { frames.append(f.device) }
        }
        #expect(frames == ["b", "a", "d", "c"])
    }
}
