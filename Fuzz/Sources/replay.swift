// The replay pipeline end to end: evemu bytes → EvemuReader → ReplaySession (the fixed
// config; header-less input gets the fuzz touchscreen's description) → the engine, every
// message encoded. Hostile event streams (times, slots, tracking ids, protocol A, single
// touch) against the engine.
import TouchCore
import TouchInput
import TouchCapture

public func fuzzReplay(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    let devices: [CaptureDevice]
    do {
        devices = try EvemuReader.read(bytes, file: "fuzz.events",
                                       description: EvemuReader.hasHeader(bytes) ? nil : Fuzz.screen, warn: { _ in })
    } catch { return 0 }
    let config = Fuzz.config
    let engine = Engine(config: config, options: { var o = EngineOptions(); o.tracing = true; return o }())
    let session: ReplaySession
    do { session = try ReplaySession(config: config, captures: devices, engine: engine, log: { _, _ in }) } catch { return 0 }
    var sink = Fuzz.EncodingSink(scene: config.scene)
    session.run(into: &sink)
    Fuzz.keep(sink.bytes)
    return 0
}
