import Foundation
import Testing
import TouchCore
import TouchInput
@testable import TouchCapture
import TouchTestSupport

let header13 = """
# EVEMU 1.3
# Input device name: "panel"
N: panel
I: 0018 0eef 0001 0002
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 04 00 00 00 00 00 00
A: 2f 0 9 0 0 0
A: 35 0 1279 4 0 10
A: 36 0 767 4 0 10
A: 39 0 65535 0 0 0

"""

func read(_ text: String, description: DeviceInfo? = nil) throws(CaptureError) -> [CaptureDevice] {
    try EvemuReader.read(Array(text.utf8), file: "t.events", description: description)
}

@Suite struct EvemuReaderTests {
    @Test func headerOfVersion13() throws {
        let d = try read(header13 + "E: 0.000001 0003 0039 0021\t# EV_ABS / ABS_MT_TRACKING_ID   21\nE: 0.000001 0000 0000 0000\n")
        #expect(d.count == 1)
        let info = d[0].info
        #expect(info.name == "panel")
        #expect(info.bustype == 0x18 && info.vendor == 0x0eef && info.product == 1 && info.version == 2)
        #expect(info.isDirect)
        #expect(info.has(EV.KEY, BTN.TOUCH))
        #expect(info.abs[ABS.MT_POSITION_X] == AbsInfo(minimum: 0, maximum: 1279, fuzz: 4, flat: 0, resolution: 10))
        #expect(info.touchProtocol == .b && info.slotCount == 10)
        #expect(d[0].events == [InputEvent(time: 1, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: 21),
                                InputEvent(time: 1, type: EV.SYN, code: SYN.REPORT, value: 0)])
    }

    @Test func olderVersionsWithFiveFieldAxesAndAbsoluteTimes() throws {
        let text = """
            # EVEMU 1.1
            N: old
            I: 0003 0eef 72a1 0210
            P: 00 00 00 00 00 00 00 00
            B: 00 0b 00 00 00 00 00 00 00
            A: 2f 0 1 0 0
            A: 35 0 32760 31 0
            A: 36 0 32760 31 0
            A: 39 0 65535 0 0
            E: 1288981453.965969 0003 0039 0431
            E: 1288981453.965979 0003 0035 13552
            E: 1288981454.170952 0000 0000 0000

            """
        let d = try read(text)
        #expect(d[0].info.abs[ABS.MT_POSITION_X]?.fuzz == 31 && d[0].info.abs[ABS.MT_POSITION_X]?.resolution == 0)
        #expect(!d[0].info.isDirect)
        #expect(d[0].events.map(\.time) == [1_288_981_453_965_969, 1_288_981_453_965_979, 1_288_981_454_170_952])
        #expect(d[0].events[0].value == 431)
    }

    @Test func negativeZeroPaddedValuesAndShortFractions() throws {
        let d = try read(header13 + "E: 2.5 0003 0039 -001\nE: 3 0000 0000 0\r\n")
        #expect(d[0].events[0] == InputEvent(time: 2_500_000, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: -1))
        #expect(d[0].events[1].time == 3_000_000)
    }

    @Test func splitRecordingTakesTheSeparateDescription() throws {
        let desc = try EvemuReader.readDescription(Array(header13.utf8), file: "d.desc")
        #expect(!EvemuReader.hasHeader(Array("E: 1.0 0003 0035 5\n".utf8)))
        #expect(EvemuReader.hasHeader(Array(header13.utf8)))
        let d = try read("E: 1.000000 0003 0035 5\nE: 1.000000 0000 0000 0\n", description: desc)
        #expect(d[0].info == desc)
        #expect(d[0].events.count == 2)
    }

    @Test func severalDevicesInOneFile() throws {
        let d = try read(header13 + "E: 0.1 0000 0000 0\n" + header13.replacingOccurrences(of: "N: panel", with: "N: second") + "E: 0.2 0000 0000 0\n")
        #expect(d.map(\.info.name) == ["panel", "second"])
        #expect(d.map(\.id) == ["t", "t#2"])
        #expect(d[1].events.map(\.time) == [200_000])
    }

    @Test func backwardsTimeIsClampedAndUndeclaredCodesWarnedOnce() throws {
        var warnings: [String] = []
        let d = try EvemuReader.read(Array((header13 + "E: 1.0 0003 0035 5\nE: 0.5 0003 001d 7\nE: 0.5 0003 001d 8\nE: 0.4 0000 0000 0\n").utf8),
                                     file: "t.events", warn: { warnings.append($0) })
        #expect(d[0].events.map(\.time) == [1_000_000, 1_000_000])
        #expect(warnings.filter { $0.contains("0x1d") }.count == 1)
        #expect(warnings.contains { $0.contains("t.events:20: timestamp goes backwards") })
    }

    @Test func errorsNameTheLine() {
        func message(_ text: String) -> String {
            do { _ = try read(text); return "" } catch { return error.description }
        }
        #expect(message(header13 + "E: 1.0 0003\n") == "t.events:17: expected 'E: <sec>.<usec> <type> <code> <value>', got \"E: 1.0 0003\"")
        #expect(message("A: 35 0\n") == "t.events:1: expected 'A: <code> <min> <max> <fuzz> <flat> [<resolution>]'")
        #expect(message("A: 35 10 0 0 0\n") == "t.events:1: axis 0x35 has maximum 0 below minimum 10")
        #expect(message("I: 0003 zz 1 1\n") == "t.events:1: expected 'I: <bus> <vendor> <product> <version>' in hex")
        #expect(message(header13) == "t.events: no events (only a device description)")
        #expect(message("") == "t.events: not an evemu recording: no device description and no events")
        #expect(message(header13 + "E: 1.0 0003 0000 5\n") ==
                "t.events:17: event on ABS_X, which the device description does not declare: its range is unknown")
    }

    @Test func formatDetection() {
        #expect(EvemuReader.looks(like: Array(header13.utf8)))
        #expect(EvemuReader.looks(like: Array("E: 1.0 0003 0035 5\n".utf8)))
        #expect(!EvemuReader.looks(like: Array("[  1.0] /dev/input/event1: EV_ABS ABS_X 0001\n".utf8)))
        #expect(!EvemuReader.looks(like: [0, 1, 2, 3]))
    }
}

/// The one device catalogue (TouchTestSupport) and the end-to-end fixtures agree: the
/// description the header-less test captures are replayed with is `virtualTouchscreen()`.
@Suite struct DeviceCatalogueTests {
    @Test func theVirtualTouchscreenFixtureIsTheCataloguesDevice() throws {
        let path = Repository.path("Tests/Fixtures/virtual-800x480.desc")
        let bytes = try CaptureFiles.read(path, limit: 1 << 20)
        let read = try EvemuReader.readDescription(bytes, file: path)
        let want = virtualTouchscreen()
        #expect(read.name == want.name)
        #expect([read.bustype, read.vendor, read.product, read.version] == [want.bustype, want.vendor, want.product, want.version])
        #expect(read.properties == want.properties)
        #expect(read.codes[EV.KEY] == want.codes[EV.KEY] && read.codes[EV.ABS] == want.codes[EV.ABS])
        #expect(read.abs.mapValues { [$0.minimum, $0.maximum] } == want.abs.mapValues { [$0.minimum, $0.maximum] })
    }
}

/// EvemuReader.read(path:), the capture a piece at a time (issue 34's memory), reads what
/// read(bytes) reads: devices, events, warnings and errors with their line numbers, across the
/// pieces' seams.
@Suite struct EvemuPiecesTests {
    func file(_ text: String) -> String {
        var template = Array("/tmp/touchd-evemu-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return path
    }

    /// Two devices, 30,000 frames (1.2 MiB: many pieces), CRLF lines in the second, an
    /// undeclared code and a backwards timestamp far from the start.
    func recording() -> String {
        var t = header13
        for f in 0..<15_000 {
            t += "E: \(1 + f / 1000).\(String(format: "%06d", (f % 1000) * 1000)) 0003 0035 \(f % 1279)\n"
            if f == 9_000 { t += "E: 9.500000 0003 003a 5\n" }             // ABS_MT_PRESSURE: not declared
            if f == 12_000 { t += "E: 1.000000 0003 0036 7\n" }            // backwards
            t += "E: \(1 + f / 1000).\(String(format: "%06d", (f % 1000) * 1000)) 0000 0000 0\n"
        }
        for f in 0..<15_000 {
            t += "E: \(20 + f / 1000).\(String(format: "%06d", (f % 1000) * 1000)) 0003 0036 \(f % 767)\r\n"
            t += "E: \(20 + f / 1000).\(String(format: "%06d", (f % 1000) * 1000)) 0000 0000 0\r\n"
        }
        return t.replacingOccurrences(of: "E: 20.000000 0003 0036 0\r\n", with: header13 + "E: 20.000000 0003 0036 0\r\n")
    }

    @Test func readsWhatTheWholeFileReads() throws {
        let text = recording()
        let path = file(text)
        defer { unlink(path) }
        var wholeWarnings: [String] = [], pieceWarnings: [String] = []
        let whole = try EvemuReader.read(Array(text.utf8), file: path, warn: { wholeWarnings.append($0) })
        let pieces = try EvemuReader.read(path: path, warn: { pieceWarnings.append($0) })
        #expect(whole.count == 2)
        #expect(pieces.map(\.id) == whole.map(\.id))
        #expect(pieces.map(\.events) == whole.map(\.events))
        #expect(pieces.map(\.info) == whole.map(\.info))
        #expect(pieces.map(\.events.count) == [30_001, 30_000])
        #expect(pieceWarnings == wholeWarnings)
        #expect(pieceWarnings.count == 2)
        // Frame f's first event is on line header + 2f + 1; the pressure line follows frame 9000's.
        let headerLines = header13.filter { $0 == "\n" }.count
        #expect(pieceWarnings.contains { $0.hasPrefix("\(path):\(headerLines + 2 * 9000 + 2): events on EV_ABS ABS_MT_PRESSURE") })
    }

    @Test func anErrorFarIntoTheFileNamesItsLine() throws {
        var text = header13
        for f in 0..<20_000 { text += "E: 1.\(String(format: "%06d", f)) 0000 0000 0\n" }
        text += "E: 2.0 0003 zz 1\n"
        let path = file(text)
        defer { unlink(path) }
        let line = header13.split(separator: "\n", omittingEmptySubsequences: false).count + 20_000
        do { _ = try EvemuReader.read(path: path); Issue.record("a bad line was read") } catch {
            #expect(error.line == line)
            #expect(error.message.contains("expected 'E: <sec>.<usec> <type> <code> <value>'"))
        }
        do { _ = try EvemuReader.read(Array(text.utf8), file: path); Issue.record("a bad line was read") } catch {
            #expect(error.line == line)
        }
    }

    @Test func theLoaderReadsAPipeWhole() throws {
        // A pipe cannot be read twice (the head, then the pieces): it is read whole.
        let text = header13 + "E: 1.000000 0003 0035 5\nE: 1.000000 0000 0000 0\n"
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        _ = Array(text.utf8).withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        defer { close(fds[0]) }
        let devices = try CaptureLoader.load(paths: ["/dev/fd/\(fds[0])"], deviceInfos: [], format: nil) { _ in }
        #expect(devices.map(\.events.count) == [2])
    }

    /// Which files the loader reads a piece at a time: a regular evemu file whose first lines
    /// say whether it has a description; everything else whole.
    @Test func theLoaderReadsOnlyARegularEvemuFileInPieces() {
        let described = Array((header13 + "E: 1.000000 0003 0035 5\n").utf8)
        let bare = Array("# recorded on the kiosk\n\nE: 1.000000 0003 0035 5\n".utf8)
        #expect(CaptureLoader.plan(regular: true, head: described, format: nil) == .evemuInPieces(described: true))
        #expect(CaptureLoader.plan(regular: true, head: bare, format: nil) == .evemuInPieces(described: false))
        #expect(CaptureLoader.plan(regular: true, head: described, format: .evemu) == .evemuInPieces(described: true))
        // Not readable twice, named another format, or nothing but comments in the first bytes.
        #expect(CaptureLoader.plan(regular: false, head: described, format: nil) == .whole)
        #expect(CaptureLoader.plan(regular: true, head: described, format: .getevent) == .whole)
        #expect(CaptureLoader.plan(regular: true, head: Array("# EVEMU 1.3\n# only comments so far\n".utf8), format: .evemu) == .whole)
        #expect(CaptureLoader.plan(regular: true, head: Array("version: 1\ndevices:\n".utf8), format: nil) == .whole)
    }

    /// A header-less recording over many pieces, with its --device-info, loads the same from a
    /// regular file (in pieces) as from a pipe (whole), warnings included.
    @Test func theLoaderGivesTheSameFromAFileAndFromAPipe() throws {
        var text = "# no description\n"
        for f in 0..<6_000 { text += "E: 1.\(String(format: "%06d", f)) 0003 0035 \(f % 1279)\nE: 1.\(String(format: "%06d", f)) 0000 0000 0\n" }
        text += "E: 7.000000 0003 003a 5\nE: 7.000000 0000 0000 0\n"    // ABS_MT_PRESSURE: not declared
        #expect(text.utf8.count > 2 * CaptureLoader.detectionWindow)
        let path = file(text), info = file(header13)
        defer { unlink(path); unlink(info) }
        var fileWarnings: [String] = [], pipeWarnings: [String] = []
        let fromFile = try CaptureLoader.load(paths: [path], deviceInfos: [info], format: nil) { fileWarnings.append($0) }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        // Written from another thread: more than a pipe holds.
        let writer = fds[1], bytes = Array(text.utf8)
        let written = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var at = 0
            while at < bytes.count {
                let n = bytes[at...].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                at += n
            }
            close(writer)
            written.signal()
        }
        defer { close(fds[0]) }
        let fromPipe = try CaptureLoader.load(paths: ["/dev/fd/\(fds[0])"], deviceInfos: [info], format: nil) { pipeWarnings.append($0) }
        written.wait()
        #expect(fromFile.map(\.events.count) == [12_001])    // the pressure event ignored, with a warning
        #expect(fromFile.map(\.events) == fromPipe.map(\.events))
        #expect(fromFile.map(\.info) == fromPipe.map(\.info))
        #expect(fileWarnings.count == 1)
        #expect(fileWarnings.map { $0.replacingOccurrences(of: path, with: "F") } == pipeWarnings.map { $0.replacingOccurrences(of: "/dev/fd/\(fds[0])", with: "F") })
    }
}
