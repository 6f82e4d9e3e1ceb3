// `libinput record` YAML: LibinputRecordReader.read (libyaml + the tree walk), plus detection.
import TouchCore
import TouchCapture

public func fuzzLibinput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    _ = LibinputRecordReader.looks(like: bytes)
    do {
        let devices = try LibinputRecordReader.read(bytes, file: "fuzz.yml")
        for d in devices { Fuzz.keep(d.info.touchProtocol) }
    } catch { Fuzz.keep(error.description) }
    return 0
}
