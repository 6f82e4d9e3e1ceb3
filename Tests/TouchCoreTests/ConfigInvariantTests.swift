import Testing
@testable import TouchCore

/// Issue 17: the config reader returns a config only when it found no problem (the type says
/// so; no force unwrap holds it), and arrays of numbers or strings are checked element by element.
@Suite struct ConfigInvariantTests {
    func errors(_ json: String) -> [String]? {
        do {
            _ = try Config.parse(json)
            return nil
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test func aRootThatIsNotAnObjectIsOneProblemNotACrash() {
        #expect(errors("[1, 2]") == ["$: expected an object, got an array (line 1)"])
        #expect(errors("42") == ["$: expected an object, got a number (line 1)"])
    }

    @Test func theReaderThrowsEveryProblemInsteadOfReturningAHalfConfig() throws {
        var reader = ConfigReader()
        let root = try JSONParser.parse(Array(#"{"screen": {"width": "wide", "height": 480}}"#.utf8))
        #expect(throws: ConfigErrors.self) { _ = try reader.read(root) }
        #expect(reader.errors.count == 2)   // the width, and no windows
    }

    @Test func mixedArraysAreRefusedWhereNumbersOrStringsAreExpected() {
        let base = #""windows": [{"id": "w", "frame": [0, 0, 10, 10], "view": {"id": "v", "frame": [0, 0, 10, 10]}}]"#
        let numbers = errors(#"{"devices": [{"calibration": [1, 0, 0, 0, "1", 0]}], "#+base+"}")
        #expect(numbers == ["$.devices[0].calibration: expected an array of 6 numbers [a, b, c, d, e, f], got an array of 6 values (line 1)"])
        let strings = errors(#"{"tuio": {"targets": ["127.0.0.1:3333", 3333]}, "#+base+"}")
        // A target is a string or an object now (issue 33): the element that is neither is named.
        #expect(strings == [#"$.tuio.targets[1]: expected "HOST:PORT" or {"address": "HOST:PORT", "output": ID}, got a number (line 1)"#])
        #expect(errors(#"{"tuio": {"targets": "127.0.0.1:3333"}, "#+base+"}") == ["$.tuio.targets: expected an array of targets, got a string (line 1)"])
        #expect(errors(#"{"devices": [{"calibration": [1, 0, 0, 0, 1, 0]}], "tuio": {"targets": ["127.0.0.1:3333"]}, "#+base+"}") == nil)
    }
}
