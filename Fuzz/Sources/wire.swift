// One client request line: WireProtocol.parse (subscribe, ping, stats, attach/update/detach),
// and the reply the server would write for it. And the line framer as a differential check:
// the bytes fed whole and fed in three pieces (split where the first two bytes say) must give
// the same lines, each holding only its own bytes.
import TouchCore
import TouchServer

public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    switch WireProtocol.parse(bytes) {
    case .success(let request):
        if case .ping(let value) = request { Fuzz.keep(WireProtocol.pong(value)) }
        Fuzz.keep(request)
    case .failure(let e):
        Fuzz.keep(WireProtocol.error(e, line: 1))
    }
    framing(bytes)
    return 0
}

func framing(_ bytes: [UInt8]) {
    guard bytes.count >= 2 else { return }
    let body = Array(bytes[2...])
    let a = min(Int(bytes[0]) * body.count / 256, body.count)
    let b = min(a + Int(bytes[1]) * (body.count - a) / 256, body.count)
    func lines(_ pieces: [ArraySlice<UInt8>]) -> [LineFramer.Item] {
        var f = LineFramer(maxLine: 64)
        var out: [LineFramer.Item] = []
        for p in pieces { f.feed(Array(p), into: &out) }
        f.finish(into: &out)
        return out
    }
    let whole = lines([body[...]])
    let split = lines([body[..<a], body[a..<b], body[b...]])
    if whole != split { fatalError("the framer's lines depend on how the bytes were split") }
    for case .line(let l, _) in whole where l.count > 64 || l.capacity > 2 * max(l.count, 32) {
        fatalError("a \(l.count)-byte line holds \(l.capacity) bytes")
    }
}
