// Raw 24-byte input_event dumps: RawEventReader.read with a fixed description, plus detection.
import TouchCore
import TouchCapture

public func fuzzRaw(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    _ = RawEventReader.looks(like: bytes)
    do {
        let devices = try RawEventReader.read(bytes, file: "fuzz.raw", description: Fuzz.screen)
        // Writing back what was read gives the same bytes (times are clamped to be monotonic,
        // so compare the events, not the input).
        for d in devices {
            let again = try RawEventReader.read(RawEventReader.bytes(d.events), file: "fuzz.raw", description: Fuzz.screen)
            if again[0].events != d.events { fatalError("raw dump round trip changed the events") }
        }
    } catch { Fuzz.keep(error.description) }
    return 0
}
