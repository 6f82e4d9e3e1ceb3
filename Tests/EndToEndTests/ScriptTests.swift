import Foundation
import Testing

/// What the scripts install (issue 22: `scripts/demo` installed Chromium, Kivy, pygame, Xvfb and
/// liblo-tools to run a demo that runs only touchd).
@Suite struct ScriptTests {
    @Test func theDemoInstallsOnlyWhatItRuns() throws {
        let deps = Paths.root.appendingPathComponent("scripts/deps").path
        let demo = try runProgram("/bin/bash", [deps, "--list", "demo"])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.lines == ["pkg-config", "libevdev-dev", "libmtdev-dev", "libudev-dev", "libyaml-dev"])
        let test = try runProgram("/bin/bash", [deps, "--list", "test"])
        for p in ["chromium", "python3-kivy", "python3-pygame", "xvfb", "liblo-tools", "libjson-c-dev", "libsdl2-dev"] {
            #expect(test.lines.contains(p), "\(p)")   // the tests still get them
        }
        let build = try runProgram("/bin/bash", [deps, "--list", "build"])
        #expect(build.lines.contains("libjson-c-dev") && build.lines.contains("make"))
        // The demo script asks for that purpose alone and runs nothing but touchd.
        let script = try String(contentsOf: Paths.root.appendingPathComponent("scripts/demo"), encoding: .utf8)
        #expect(script.contains("\nscripts/deps demo\n"))
        for tool in ["python", "chromium", "xvfb", "oscdump", "socat"] { #expect(!script.contains(tool), "\(tool)") }
    }
}
