// evemu text: EvemuReader.read (with and without a description for header-less files) and
// EvemuReader.readDescription (a .desc file), plus format detection.
import TouchCore
import TouchCapture

public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    var warnings = 0
    _ = EvemuReader.looks(like: bytes)
    let headed = EvemuReader.hasHeader(bytes)
    do {
        let devices = try EvemuReader.read(bytes, file: "/nonexistent/fuzz.events", warn: { _ in warnings += 1 })
        Fuzz.keep(devices)
    } catch { Fuzz.keep(error.description) }
    if !headed {
        do {
            let devices = try EvemuReader.read(bytes, file: "/nonexistent/fuzz.events", description: Fuzz.screen,
                                               descriptionFile: "fuzz.desc", warn: { _ in warnings += 1 })
            Fuzz.keep(devices)
        } catch { Fuzz.keep(error.description) }
    }
    do {
        let info = try EvemuReader.readDescription(bytes, file: "fuzz.desc")
        Fuzz.keep(info.touchProtocol)
        Fuzz.keep(info.slotCount)
    } catch { Fuzz.keep(error.description) }
    Fuzz.keep(warnings)
    return 0
}
