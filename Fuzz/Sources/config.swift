// The config: Config.parse; a config that parses also builds an engine for its scene and
// attaches a device with the config's own mapping entry (rotation, calibration, axes), then
// one touch goes down, moves and lifts at fixed places: hostile numbers reach the mapping
// and hit-testing maths. The same bytes as a scene script (NDJSON) too.
import TouchCore
import TouchInput

public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    do {
        let script = try SceneScript.parse(bytes)
        Fuzz.keep(script.entries.count)
    } catch { Fuzz.keep(error.errors.map(\.description)) }
    let config: Config
    do { config = try Config.parse(bytes) } catch {
        Fuzz.keep(error.errors.map(\.description))
        return 0
    }
    let engine = Engine(scene: config.scene)
    var sink = Fuzz.EncodingSink(scene: config.scene)
    guard let feed = Fuzz.attach(engine, config) else { return 0 }
    var t: Int64 = 1_000_000
    func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        feed(InputEvent(time: t, type: type, code: code, value: value))
    }
    for (k, (x, y)) in [(0, 0), (400, 240), (799, 479), (30, 400), (-5, 1000)].enumerated() {
        ev(EV.ABS, ABS.MT_SLOT, 0)
        if k == 0 { ev(EV.ABS, ABS.MT_TRACKING_ID, 7) }
        ev(EV.ABS, ABS.MT_POSITION_X, Int32(x))
        ev(EV.ABS, ABS.MT_POSITION_Y, Int32(y))
        ev(EV.SYN, SYN.REPORT, 0)
        t += 16_000
    }
    ev(EV.ABS, ABS.MT_TRACKING_ID, -1)
    ev(EV.SYN, SYN.REPORT, 0)
    engine.advance(to: t + 1_000_000)
    var steps = 0
    while engine.isMoving, let next = engine.nextDeadline, steps < 100_000 { engine.advance(to: next); steps += 1 }
    engine.shutdown(time: engine.lastTime)
    sink.drain(engine)
    Fuzz.keep(sink.bytes)
    return 0
}
