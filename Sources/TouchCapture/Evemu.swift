import TouchCore
import TouchSystem
import TouchInput

/// evemu recordings (evemu-record text, versions 1.0 to 1.3): a description (N: I: P: B: A:
/// lines) followed by `E: sec.usec type code value` events, in one file or split into a
/// description and a header-less events file. Several devices may follow each other in one
/// file (a new description after events starts the next device).
public enum EvemuReader {
    /// Is this plausibly evemu text? (For format detection.)
    public static func looks(like bytes: [UInt8]) -> Bool {
        var lines = LineCursor(bytes)
        var checked = 0
        while let r = lines.next(), checked < 40 {
            if r.isEmpty { continue }
            let b = bytes[r.lowerBound]
            if b == UInt8(ascii: "#") {
                if bytes[r].starts(with: Array("# EVEMU".utf8)) { return true }
                continue
            }
            checked += 1
            if r.count >= 2 && bytes[r.lowerBound + 1] == UInt8(ascii: ":"),
               [UInt8(ascii: "N"), UInt8(ascii: "I"), UInt8(ascii: "P"), UInt8(ascii: "B"), UInt8(ascii: "A"),
                UInt8(ascii: "E"), UInt8(ascii: "L"), UInt8(ascii: "S")].contains(b) {
                return true
            }
            return false
        }
        return false
    }

    struct HeaderBuilder {
        var name: String?
        var ids: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)
        var props: [UInt8] = []
        var bits: [UInt16: [UInt8]] = [:]
        var abs: [UInt16: AbsInfo] = [:]
        var seen = false

        func build() -> DeviceInfo {
            var properties = Set<UInt16>()
            for (byteIndex, byte) in props.enumerated() {
                for bit in 0..<8 where byte & (1 << bit) != 0 { properties.insert(UInt16(byteIndex * 8 + bit)) }
            }
            var codes: [UInt16: Set<UInt16>] = [:]
            for (type, bytes) in bits {
                var set = Set<UInt16>()
                for (byteIndex, byte) in bytes.enumerated() {
                    for bit in 0..<8 where byte & (1 << bit) != 0 { set.insert(UInt16(byteIndex * 8 + bit)) }
                }
                if type == 0 {
                    // The EV_SYN line is the bitmask of supported event types.
                    for t in set { codes[t, default: []] = codes[t] ?? [] }
                } else {
                    codes[type, default: []].formUnion(set)
                }
            }
            var info = DeviceInfo(name: name ?? "unnamed device", bustype: ids.0, vendor: ids.1, product: ids.2,
                                  version: ids.3, properties: properties, codes: codes, abs: [:])
            // A: lines are authoritative for ranges; a code with a range is enabled.
            info.abs = abs
            for code in abs.keys { info.codes[EV.ABS, default: []].insert(code) }
            // EV_SYN codes are always there.
            info.codes[EV.SYN, default: []].formUnion([SYN.REPORT, SYN.MT_REPORT, SYN.DROPPED])
            return info
        }
    }

    /// Parses only a description (a `.desc` / `.prop` file, or the header of a recording).
    public static func readDescription(_ bytes: [UInt8], file: String) throws(CaptureError) -> DeviceInfo {
        var h = HeaderBuilder()
        var lines = LineCursor(bytes)
        while let r = lines.next() {
            if r.isEmpty || bytes[r.lowerBound] == UInt8(ascii: "#") { continue }
            if bytes[r.lowerBound] == UInt8(ascii: "E") && r.count > 1 && bytes[r.lowerBound + 1] == UInt8(ascii: ":") { break }
            try headerLine(bytes, r, lines.number, file, &h)
        }
        guard h.seen else {
            throw CaptureError(file: file, line: 0, message: "no evemu device description (N:, I:, B:, A: lines) found")
        }
        return h.build()
    }

    static func headerLine(_ bytes: [UInt8], _ r: Range<Int>, _ line: Int, _ file: String,
                           _ h: inout HeaderBuilder) throws(CaptureError) {
        guard r.count >= 2, bytes[r.lowerBound + 1] == UInt8(ascii: ":") else {
            throw CaptureError(file: file, line: line, message: "not an evemu line: \"\(preview(bytes, r))\"")
        }
        let tag = bytes[r.lowerBound]
        var s = Scanner(bytes, (r.lowerBound + 2)..<r.upperBound)
        switch tag {
        case UInt8(ascii: "N"):
            h.name = s.rest
            h.seen = true
        case UInt8(ascii: "I"):
            guard let bus = s.hex(), let vendor = s.hex(), let product = s.hex(), let version = s.hex(),
                  bus <= 0xffff, vendor <= 0xffff, product <= 0xffff, version <= 0xffff else {
                throw CaptureError(file: file, line: line, message: "expected 'I: <bus> <vendor> <product> <version>' in hex")
            }
            h.ids = (UInt16(bus), UInt16(vendor), UInt16(product), UInt16(version))
            h.seen = true
        case UInt8(ascii: "P"):
            while !s.atLineEnd() {
                guard let b = s.hex(), b <= 0xff else {
                    throw CaptureError(file: file, line: line, message: "expected 'P:' followed by hex bytes")
                }
                // INPUT_PROP_CNT is 32 bits; evemu writes them in one line of 8 bytes.
                guard h.props.count < 64 else {
                    throw CaptureError(file: file, line: line, message: "'P:' properties longer than 64 bytes: not an input device's")
                }
                h.props.append(UInt8(b))
            }
            h.seen = true
        case UInt8(ascii: "B"):
            guard let type = s.hex(), type <= UInt64(EV.max) else {
                throw CaptureError(file: file, line: line, message: "expected 'B: <type> <hex bytes…>' with a type up to 0x1f")
            }
            while !s.atLineEnd() {
                guard let b = s.hex(), b <= 0xff else {
                    throw CaptureError(file: file, line: line, message: "expected 'B:' bitmask bytes in hex")
                }
                // KEY_CNT, the largest, is 0x300 codes (96 bytes); evemu splits them over lines.
                guard h.bits[UInt16(type)]?.count ?? 0 < 128 else {
                    throw CaptureError(file: file, line: line, message: "'B:' bitmask of type 0x\(String(type, radix: 16)) longer than 128 bytes: not an input device's")
                }
                h.bits[UInt16(type), default: []].append(UInt8(b))
            }
            h.seen = true
        case UInt8(ascii: "A"):
            guard let code = s.hex(), code <= UInt64(ABS.max),
                  let lo = s.decimal(), let hi = s.decimal(), let fuzz = s.decimal(), let flat = s.decimal() else {
                throw CaptureError(file: file, line: line, message: "expected 'A: <code> <min> <max> <fuzz> <flat> [<resolution>]'")
            }
            var res: Int64 = 0
            if !s.atLineEnd() {
                guard let r = s.decimal() else {
                    throw CaptureError(file: file, line: line, message: "expected 'A: <code> <min> <max> <fuzz> <flat> [<resolution>]'")
                }
                res = r
            }
            for v in [lo, hi, fuzz, flat, res] where v < Int64(Int32.min) || v > Int64(Int32.max) {
                throw CaptureError(file: file, line: line, message: "axis value \(v) does not fit in 32 bits")
            }
            if hi < lo {
                throw CaptureError(file: file, line: line, message: "axis 0x\(String(code, radix: 16)) has maximum \(hi) below minimum \(lo)")
            }
            h.abs[UInt16(code)] = AbsInfo(minimum: Int32(lo), maximum: Int32(hi), fuzz: Int32(fuzz), flat: Int32(flat), resolution: Int32(res))
            h.seen = true
        case UInt8(ascii: "L"), UInt8(ascii: "S"):
            break  // LED and switch states: not used
        default:
            throw CaptureError(file: file, line: line, message: "unknown evemu line type '\(Character(UnicodeScalar(tag)))': \"\(preview(bytes, r))\"")
        }
    }

    static func preview(_ bytes: [UInt8], _ r: Range<Int>) -> String {
        let cut = r.lowerBound..<min(r.upperBound, r.lowerBound + 60)
        var s = String(decoding: bytes[cut], as: UTF8.self)
        if r.count > 60 { s += "…" }
        return s
    }

    /// Codes whose ranges the pipeline needs: an event on one the description lacks cannot be
    /// mapped, so it is an error rather than a warning.
    static let requiredAbs: Set<UInt16> = [ABS.X, ABS.Y, ABS.MT_SLOT, ABS.MT_POSITION_X, ABS.MT_POSITION_Y,
                                           ABS.MT_TRACKING_ID]

    /// Reads a recording. `description` is used when the file has no header of its own.
    /// `warn` receives problems that do not stop the replay.
    public static func read(_ bytes: [UInt8], file: String, description: DeviceInfo? = nil,
                            descriptionFile: String? = nil,
                            warn: (String) -> Void = { _ in }) throws(CaptureError) -> [CaptureDevice] {
        var reading = Reading(file: file, description: description, descriptionFile: descriptionFile, expectedEvents: bytes.count / 24)
        var lines = LineCursor(bytes)
        while let r = lines.next() { try reading.line(bytes, r, lines.number, warn: warn) }
        return try reading.finish(warn: warn)
    }

    /// Reads a recording from its file a piece at a time (`FileSystem.Pieces`: whole lines, 64
    /// KiB or so), as `read` does from its bytes: the same devices, warnings and errors, without
    /// the whole file in memory beside the events it becomes (issue 34: that was the daemon's
    /// peak with `run --replay`).
    public static func read(path: String, limit: Int = CaptureFiles.defaultMaxBytes, description: DeviceInfo? = nil,
                            descriptionFile: String? = nil,
                            warn: (String) -> Void = { _ in }) throws(CaptureError) -> [CaptureDevice] {
        var pieces: FileSystem.Pieces
        do { pieces = try FileSystem.Pieces(path, limit: limit) } catch { throw CaptureError(file: path, line: 0, message: error.message) }
        var reading = Reading(file: path, description: description, descriptionFile: descriptionFile, expectedEvents: pieces.size / 24)
        var number = 0
        while true {
            let piece: [UInt8]
            do {
                guard let p = try pieces.next() else { break }
                piece = p
            } catch {
                throw CaptureError(file: path, line: 0, message: error.message)
            }
            var lines = LineCursor(piece)
            lines.number = number
            while let r = lines.next() { try reading.line(piece, r, lines.number, warn: warn) }
            number = lines.number
        }
        return try reading.finish(warn: warn)
    }

    /// A recording being read, line by line, whatever holds the lines.
    struct Reading {
        let file: String
        let description: DeviceInfo?
        let descriptionFile: String?
        var devices: [CaptureDevice] = []
        var header = HeaderBuilder()
        var events: [InputEvent] = []
        var info: DeviceInfo?
        // info != nil, kept apart: `info == nil` copied the description (retained its tables)
        // for every event line.
        var described = false
        var lastTime: Int64 = .min
        var warnedCodes = Set<UInt32>()
        let base: String
        var truncatedAt = 0
        // Per (type, code) of the current device: 0 not declared, 1 declared, 2 an axis the
        // pipeline needs and the description lacks (a table, not a hash lookup per event).
        var table = [UInt8](repeating: 0, count: (Int(EV.max) + 1) * 0x300)

        init(file: String, description: DeviceInfo?, descriptionFile: String?, expectedEvents: Int) {
            self.file = file
            self.description = description
            self.descriptionFile = descriptionFile
            base = baseName(file)
            events.reserveCapacity(expectedEvents)
        }

        mutating func fillTable(_ i: DeviceInfo) {
            for k in table.indices { table[k] = 0 }
            for (t, cs) in i.codes where t <= EV.max { for c in cs where c < 0x300 { table[Int(t) * 0x300 + Int(c)] = 1 } }
            for c in requiredAbs where i.abs[c] == nil { table[Int(EV.ABS) * 0x300 + Int(c)] = 2 }
        }

        mutating func finishDevice() {
            guard let i = info else { return }
            let id = devices.isEmpty ? base : "\(base)#\(devices.count + 1)"
            devices.append(CaptureDevice(info: i, events: events, id: id, file: file, format: .evemu))
            events = []
            info = nil
            described = false
            header = HeaderBuilder()
            lastTime = .min
        }

        /// Line `number` of the file, `r` in `bytes`.
        mutating func line(_ bytes: [UInt8], _ r: Range<Int>, _ number: Int, warn: (String) -> Void) throws(CaptureError) {
            if r.isEmpty || bytes[r.lowerBound] == UInt8(ascii: "#") { return }
            let isEvent = r.count > 1 && bytes[r.lowerBound] == UInt8(ascii: "E") && bytes[r.lowerBound + 1] == UInt8(ascii: ":")
            if !isEvent {
                if described { finishDevice() }  // a description after events: the next device
                try headerLine(bytes, r, number, file, &header)
                return
            }
            if !described {
                if header.seen {
                    let built = header.build()
                    info = built
                    described = true
                    fillTable(built)
                } else if let d = description {
                    info = d
                    described = true
                    fillTable(d)
                } else {
                    var hint = ""
                    for ext in [".desc", ".prop"] {
                        let candidate = stripExtension(file) + ext
                        if CaptureFiles.exists(candidate) { hint = "; its description seems to be \(candidate): pass --device-info \(candidate)" }
                    }
                    throw CaptureError(file: file, line: number,
                                       message: "events before any device description (N:, I:, B:, A: lines), and no --device-info given\(hint)")
                }
            }
            var s = Scanner(bytes, (r.lowerBound + 2)..<r.upperBound)
            guard let time = s.timestamp(), let type = s.hex(), let code = s.hex(), let value = s.decimal(), s.atLineEnd() else {
                throw CaptureError(file: file, line: number,
                                   message: "expected 'E: <sec>.<usec> <type> <code> <value>', got \"\(preview(bytes, r))\"")
            }
            guard type <= UInt64(EV.max), code <= 0x2ff else {
                throw CaptureError(file: file, line: number, message: "event type 0x\(String(type, radix: 16)) / code 0x\(String(code, radix: 16)) out of range")
            }
            guard value >= Int64(Int32.min) && value <= Int64(Int32.max) else {
                throw CaptureError(file: file, line: number, message: "event value \(value) does not fit in 32 bits")
            }
            let t = UInt16(type), c = UInt16(code)
            let declared = table[Int(t) * 0x300 + Int(c)]
            if declared == 2 {
                throw CaptureError(file: file, line: number,
                                   message: "event on \(EventNames.describe(type: t, code: c)), which the device description\(descriptionFile.map { " (\($0))" } ?? "") does not declare: its range is unknown")
            }
            if t != EV.SYN && declared == 0 {
                if warnedCodes.insert(UInt32(t) << 16 | UInt32(c)).inserted {
                    warn("\(file):\(number): events on \(EventNames.typeName(t) ?? "type \(t)") \(EventNames.describe(type: t, code: c)), which the device description does not declare; ignored")
                }
                return
            }
            var time64 = time
            if time64 < lastTime {
                warn("\(file):\(number): timestamp goes backwards; using the previous one")
                time64 = lastTime
            }
            lastTime = time64
            events.append(InputEvent(time: time64, type: t, code: c, value: Int32(value)))
            truncatedAt = (t == EV.SYN && c == SYN.REPORT) ? 0 : number
        }

        /// The devices read, once every line has been.
        mutating func finish(warn: (String) -> Void) throws(CaptureError) -> [CaptureDevice] {
            if info == nil && header.seen { info = header.build() }
            if truncatedAt > 0 {
                warn("\(file):\(truncatedAt): the recording ends in the middle of a frame (no SYN_REPORT after the last events); they are not delivered")
            }
            finishDevice()
            if !devices.isEmpty && devices.allSatisfy({ $0.events.isEmpty }) {
                throw CaptureError(file: file, line: 0, message: "no events (only a device description)")
            }
            if devices.isEmpty {
                if description != nil || header.seen {
                    throw CaptureError(file: file, line: 0, message: "no events")
                }
                throw CaptureError(file: file, line: 0, message: "not an evemu recording: no device description and no events")
            }
            return devices
        }
    }

    static func stripExtension(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), let slash = path.lastIndex(of: "/") ?? path.indices.first, dot > slash else { return path }
        return String(path[..<dot])
    }
}

extension EvemuReader {
    /// Does the text carry its own description (any N:/I:/B:/A:/P: line before the first event)?
    public static func hasHeader(_ bytes: [UInt8]) -> Bool { headerDecided(bytes) ?? false }

    /// `hasHeader` from the first bytes of a file: nil when they do not tell (no line that
    /// decides, or only its first byte).
    public static func headerDecided(_ bytes: [UInt8]) -> Bool? {
        var lines = LineCursor(bytes)
        while let r = lines.next() {
            if r.count < 2 || bytes[r.lowerBound] == UInt8(ascii: "#") { continue }
            guard bytes[r.lowerBound + 1] == UInt8(ascii: ":") else { return false }
            return bytes[r.lowerBound] != UInt8(ascii: "E")
        }
        return nil
    }
}
