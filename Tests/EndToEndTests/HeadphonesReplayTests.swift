import Testing

/// Issue 46: a headphone jack's capture replayed — `--summary` lists each plug and pull, and
/// with `"screenReader": "headphones"` the reader turns on at a plug and off at a pull, saying
/// so (docs/accessibility.md "Headphones").
@Suite struct HeadphonesReplayTests {
    static let jack = Paths.fixture("headphones/hda-intel-pch-headphone.events")

    @Test func theSummaryListsPlugsAndPulls() throws {
        let r = try touchd("replay", "--summary", "--config", Paths.fixture("daemon/halves.json"), Self.jack)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("""
            headphones:
              plugged into screen at 0.500 (hda-intel-pch-headphone)
              pulled from screen at 3.000 (hda-intel-pch-headphone)
              plugged into screen at 4.000 (hda-intel-pch-headphone)

            """), "\(r.stdout)")
    }

    @Test func theReaderFollowsTheJackAndSaysSo() throws {
        let dir = TempDir()
        let config = try dir.write("reader.json", """
            {"screen": {"width": 800, "height": 480, "screenReader": "headphones"},
             "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [
               {"id": "ok", "frame": [20, 20, 120, 60], "control": "button", "accessibility": {"label": "OK"}}]}}]}
            """)
        let r = try touchd("replay", "--config", config, Self.jack)
        #expect(r.status == 0, "\(r.stderr)")
        let speech = r.stdout.split(separator: "\n").filter { $0.contains(#""type":"speech""#) }.map { String($0.split(separator: #","time":"#).last ?? "") }
        #expect(speech == [
            #"0.500000,"output":"screen","text":"Screen reader on","interrupt":true,"language":"en"}"#,
            #"0.500000,"output":"screen","text":"OK, button","interrupt":false,"language":"en"}"#,
            #"3.000000,"output":"screen","text":"Screen reader off","interrupt":true,"language":"en"}"#,
            #"4.000000,"output":"screen","text":"Screen reader on","interrupt":true,"language":"en"}"#,
            #"4.000000,"output":"screen","text":"OK, button","interrupt":false,"language":"en"}"#], "\(r.stdout)")
    }
}
