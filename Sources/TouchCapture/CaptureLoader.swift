import TouchCore

/// Loads capture files: detects each one's format from its content (or `--format`), pairs
/// header-less recordings with `--device-info` descriptions in order.
public enum CaptureLoader {
    public static func load(paths: [String], deviceInfos: [String], format: CaptureFormat?, maxBytes: Int = CaptureFiles.defaultMaxBytes,
                            warn: (String) -> Void) throws(CaptureError) -> [CaptureDevice] {
        var descriptions: [(DeviceInfo, String)] = []
        for d in deviceInfos {
            let bytes = try CaptureFiles.read(d, limit: maxBytes)
            descriptions.append((try EvemuReader.readDescription(bytes, file: d), d))
        }
        var devices: [CaptureDevice] = []
        var nextDescription = 0
        func takeDescription() -> (DeviceInfo, String)? {
            guard nextDescription < descriptions.count else { return nil }
            defer { nextDescription += 1 }
            return descriptions[nextDescription]
        }
        for path in paths {
            // A regular file's format from its first bytes (what `detect` looks at); an evemu
            // recording whose first lines say whether it has a description is then read again,
            // a piece at a time (EvemuReader.read(path:)): the daemon's `run --replay` held the
            // whole file beside its events (issue 34's memory). Other formats, and what cannot
            // be read twice (a pipe), are read whole.
            let regular = CaptureFiles.isRegular(path)
            let head = regular ? try CaptureFiles.read(path, limit: maxBytes, prefix: detectionWindow) : try CaptureFiles.read(path, limit: maxBytes)
            if head.isEmpty { throw CaptureError(file: path, line: 0, message: "empty file: not a capture") }
            if case .evemuInPieces(let described) = plan(regular: regular, head: head, format: format) {
                let description = described ? nil : takeDescription()
                devices += try EvemuReader.read(path: path, limit: maxBytes, description: description?.0, descriptionFile: description?.1, warn: warn)
                continue
            }
            let bytes = !regular || head.count < detectionWindow ? head : try CaptureFiles.read(path, limit: maxBytes)
            guard let f = format ?? detect(bytes) else {
                throw CaptureError(file: path, line: 1, message: "not a recognised capture: expected an evemu recording ('# EVEMU 1.3', 'N: <name>', 'E: <sec>.<usec> <type> <code> <value>'), a libinput record file ('version: 1', 'devices:'), an Android 'getevent -lt' log ('[   12.345678] /dev/input/event1: EV_ABS ABS_MT_POSITION_X 0000019a') or a raw input_event dump with --device-info; --format names one")
            }
            switch f {
            case .evemu:
                let description = EvemuReader.hasHeader(bytes) ? nil : takeDescription()
                devices += try EvemuReader.read(bytes, file: path, description: description?.0, descriptionFile: description?.1, warn: warn)
            case .libinput:
                devices += try LibinputRecordReader.read(bytes, file: path)
            case .raw:
                devices += try RawEventReader.read(bytes, file: path, description: takeDescription()?.0)
            case .getevent:
                devices += try GeteventReader.read(bytes, file: path, description: takeDescription()?.0, warn: warn)
            }
        }
        if nextDescription < descriptions.count {
            warn("--device-info \(descriptions[nextDescription].1) was not used: every capture has its own description")
        }
        // Several devices from different files may share a base name: keep ids unique.
        var seen: [String: Int] = [:]
        for i in devices.indices {
            let n = (seen[devices[i].id] ?? 0) + 1
            seen[devices[i].id] = n
            if n > 1 { devices[i].id += "#\(n)" }
        }
        return devices
    }

    /// How a capture is read, decided from its first bytes (`head`: up to `detectionWindow` of
    /// a regular file, all of anything else).
    enum Plan: Equatable {
        /// An evemu recording, a piece at a time; `described`: it has its own description.
        case evemuInPieces(described: Bool)
        /// Whole, then by its format.
        case whole
    }

    /// A piece at a time only what can be read twice (a regular file) and is evemu (detected or
    /// `--format`) with its first lines saying whether it has a description.
    static func plan(regular: Bool, head: [UInt8], format: CaptureFormat?) -> Plan {
        guard regular, (format ?? detect(head)) == .evemu, let described = EvemuReader.headerDecided(head) else { return .whole }
        return .evemuInPieces(described: described)
    }

    /// The format from the content: text formats by their first lines, binary as a raw dump.
    /// How much of a file the format is decided from: its first bytes, so a file of nothing
    /// but blank lines is refused at once (200 MB of them took minutes, read line by line).
    static let detectionWindow = 64 << 10

    static func detect(_ bytes: [UInt8]) -> CaptureFormat? {
        let head = bytes.count > detectionWindow ? Array(bytes[0..<detectionWindow]) : bytes
        if RawEventReader.looks(like: head) { return .raw }
        if EvemuReader.looks(like: head) { return .evemu }
        if LibinputRecordReader.looks(like: head) { return .libinput }
        if GeteventReader.looks(like: head) { return .getevent }
        return nil
    }
}
