@preconcurrency import Glibc
import Testing
@testable import TouchSystem

/// FileSystem.Pieces: a text file a piece at a time, each piece whole lines (issue 34: a
/// capture read without the whole file in memory).
@Suite struct FilePiecesTests {
    func pieces(_ path: String, limit: Int = 1 << 30) throws(FileError) -> [[UInt8]] {
        var p = try FileSystem.Pieces(path, limit: limit)
        var out: [[UInt8]] = []
        while let piece = try p.next() { out.append(piece) }
        return out
    }

    /// 200,000 lines of 1 to 30 bytes (2.9 MiB), the last without its newline.
    func text() -> [UInt8] {
        var bytes: [UInt8] = []
        for i in 0..<200_000 {
            bytes += Array(String(repeating: "x", count: i % 30) .utf8) + [UInt8(ascii: "0") + UInt8(i % 10)]
            if i < 199_999 { bytes.append(0x0A) }
        }
        return bytes
    }

    @Test func everyPieceIsWholeLinesAndTogetherTheyAreTheFile() throws {
        let s = Scratch()
        let bytes = text()
        let all = try pieces(s.file("lines", bytes))
        #expect(all.count > 30)                        // about 64 KiB each, not the whole file
        #expect(all.allSatisfy { $0.count <= 1 << 16 + 64 })
        #expect(all.dropLast().allSatisfy { $0.last == 0x0A })
        #expect(all.last?.last == UInt8(ascii: "9"))   // the last line, without a newline
        let same = Array(all.joined()) == bytes      // (a Bool: a failure would print 2.9 MiB)
        #expect(same, "the pieces together are not the file")
    }

    @Test func aLineLongerThanAChunkStaysInOnePiece() throws {
        let s = Scratch()
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: 200_000)
        let bytes = Array("first\n".utf8) + long + [0x0A] + Array("last\n".utf8)
        let all = try pieces(s.file("long", bytes))
        let same = Array(all.joined()) == bytes
        #expect(same, "the pieces together are not the file")
        #expect(all.contains { $0 == long + [0x0A] || $0.count > 200_000 })   // never cut inside the long line
        for piece in all { #expect(piece.last == 0x0A) }
    }

    @Test func emptyFilesAndLimits() throws {
        let s = Scratch()
        #expect(try pieces(s.file("empty", [])).isEmpty)
        let p = s.file("big", [UInt8](repeating: 0x0A, count: 5000))
        #expect(try pieces(p, limit: 5000).joined().count == 5000)
        do { _ = try pieces(p, limit: 4999); Issue.record("a file over the limit was read") } catch {
            #expect(error.message.contains("4999"))
        }
        do { _ = try pieces(s.path + "/missing"); Issue.record("a missing file was read") } catch {
            #expect(error.message == "no such file")
        }
    }

    @Test func aPrefixIsTheFirstBytesOnly() throws {
        let s = Scratch()
        let bytes = text()
        let p = s.file("lines", bytes)
        let head = try FileSystem.read(p, limit: 1 << 30, prefix: 65536)
        #expect(head.count == 65536 && head == Array(bytes[0..<65536]), "not the first 64 KiB")
        #expect(try FileSystem.read(p, limit: 1 << 30, prefix: 10) == Array(bytes[0..<10]))
        let all = try FileSystem.read(p, limit: 1 << 30, prefix: 1 << 30)
        #expect(all.count == bytes.count && all == bytes, "not the whole file")
        #expect(FileSystem.isRegularFile(p))
        #expect(!FileSystem.isRegularFile(s.path))
    }
}
