// The live scene, stateful: clients' attach/update/detach requests applied to an Engine
// (with the fixed config's scene) interleaved with touches, client disconnects, timer
// advances and config reloads. Everything the engine publishes is encoded, as the server
// would, with the scene of its time.
//
// Input: text lines, each one step —
//   {…}            a request line, parsed by WireProtocol.parse, applied from the current client
//   c<N>           the current client is N (0…9)
//   g              the current client disconnects (clientGone)
//   d<slot> <x> <y>  a finger goes down (slot 0…9, device units 0…799 × 0…479)
//   m<slot> <x> <y>  it moves
//   u<slot>        it lifts
//   s[<ms>]        SYN_REPORT, then the clock advances by ms (default 10)
//   a<ms>          the clock advances by ms and the engine's timers run (no events)
//   r              the config is reloaded (replaceScene with the config's scene)
//   l<windows> <views>  the client limits change
// Anything else is ignored. At the end: a second of quiet, scrolling settles, shutdown.
import TouchCore
import TouchInput
import TouchServer

struct LineNumbers {
    var bytes: ArraySlice<UInt8>
    mutating func next() -> Int64? {
        while let b = bytes.first, b == 0x20 || b == 0x2C { bytes.removeFirst() }
        var neg = false
        if bytes.first == UInt8(ascii: "-") { neg = true; bytes.removeFirst() }
        var v: Int64 = 0, n = 0
        while let b = bytes.first, b >= 0x30, b <= 0x39 {
            if n < 12 { v = v * 10 + Int64(b - 0x30) }
            n += 1
            bytes.removeFirst()
        }
        return n == 0 ? nil : (neg ? -v : v)
    }
}

public func fuzzScene(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    let config = Fuzz.config
    let engine = Engine(scene: config.scene)
    var sink = Fuzz.EncodingSink(scene: config.scene)
    guard let feed = Fuzz.attach(engine, config) else {
        fatalError("the fuzz device does not attach")
    }
    var time: Int64 = 1_000_000
    var client = 1
    var limits = ClientLimits()
    var nextID: Int32 = 1
    var slotIDs = [Int32](repeating: -1, count: 10)
    func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        feed(InputEvent(time: time, type: type, code: code, value: value))
    }
    var steps = 0
    for line in bytes.split(separator: 0x0A) {
        steps += 1
        if steps > 2000 { break }
        guard let op = line.first else { continue }
        var nums = LineNumbers(bytes: line.dropFirst())
        switch op {
        case UInt8(ascii: "{"):
            switch WireProtocol.parse(Array(line)) {
            case .success(.scene(let r)):
                let reply = engine.apply(r, from: client, limits: limits, time: time)
                sink.reply(reply.encode(line: steps))
            case .success(let other): Fuzz.keep(other)
            case .failure(let e): sink.reply(WireProtocol.error(e, line: steps))
            }
        case UInt8(ascii: "c"):
            client = Int(nums.next() ?? 0) % 10
        case UInt8(ascii: "g"):
            engine.clientGone(client, time: time)
        case UInt8(ascii: "d"), UInt8(ascii: "m"):
            let slot = Int((nums.next() ?? 0) & 0xff) % 10
            let x = Int32(clamping: nums.next() ?? 400), y = Int32(clamping: nums.next() ?? 240)
            ev(EV.ABS, ABS.MT_SLOT, Int32(slot))
            if op == UInt8(ascii: "d") || slotIDs[slot] < 0 {
                slotIDs[slot] = nextID
                ev(EV.ABS, ABS.MT_TRACKING_ID, nextID)
                nextID = nextID % 60000 + 1
            }
            ev(EV.ABS, ABS.MT_POSITION_X, x)
            ev(EV.ABS, ABS.MT_POSITION_Y, y)
        case UInt8(ascii: "u"):
            let slot = Int((nums.next() ?? 0) & 0xff) % 10
            ev(EV.ABS, ABS.MT_SLOT, Int32(slot))
            ev(EV.ABS, ABS.MT_TRACKING_ID, -1)
            slotIDs[slot] = -1
        case UInt8(ascii: "s"):
            ev(EV.SYN, SYN.REPORT, 0)
            time += max(0, min(nums.next() ?? 10, 3_600_000)) * 1000
        case UInt8(ascii: "a"):
            time += max(0, min(nums.next() ?? 100, 3_600_000)) * 1000
            engine.advance(to: time)
        case UInt8(ascii: "r"):
            engine.replaceScene(config.scene, time: time)
        case UInt8(ascii: "l"):
            limits.windows = Int(max(0, min(nums.next() ?? 16, 64)))
            limits.views = Int(max(0, min(nums.next() ?? 4096, 100_000)))
        default:
            break
        }
        sink.drain(engine)
    }
    // The end, as a replay ends.
    engine.advance(to: engine.lastTime + 1_000_000)
    while engine.isMoving, let next = engine.nextDeadline { engine.advance(to: next) }
    engine.shutdown(time: engine.lastTime)
    sink.drain(engine)
    Fuzz.keep(sink.bytes)
    return 0
}
