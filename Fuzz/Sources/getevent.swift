// Android `getevent -lt` logs: GeteventReader.read without a description (axes inferred) and
// with one, plus detection.
import TouchCore
import TouchCapture

public func fuzzGetevent(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    _ = GeteventReader.looks(like: bytes)
    var warnings = 0
    do {
        let devices = try GeteventReader.read(bytes, file: "fuzz.txt", description: nil, warn: { _ in warnings += 1 })
        for d in devices { Fuzz.keep(d.info.touchProtocol) }
    } catch { Fuzz.keep(error.description) }
    do {
        let devices = try GeteventReader.read(bytes, file: "fuzz.txt", description: Fuzz.screen, warn: { _ in warnings += 1 })
        Fuzz.keep(devices)
    } catch { Fuzz.keep(error.description) }
    Fuzz.keep(warnings)
    return 0
}
