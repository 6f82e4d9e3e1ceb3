// One client request line: WireProtocol.parse (subscribe, ping, stats, attach/update/detach),
// and the reply the server would write for it.
import TouchCore
import TouchServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    switch WireProtocol.parse(bytes) {
    case .success(let request):
        if case .ping(let value) = request { Fuzz.keep(WireProtocol.pong(value)) }
        Fuzz.keep(request)
    case .failure(let e):
        Fuzz.keep(WireProtocol.error(e, line: 1))
    }
    return 0
}
