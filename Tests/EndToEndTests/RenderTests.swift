import Foundation
import Testing

/// `touchd render` (the SVG's structure, parsed by Python's XML parser, and a screenshot taken by
/// headless Chromium that must not be blank) and `touchd replay --summary`.
@Suite struct RenderTests {
    var demo: String { Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path }

    func render(_ dir: TempDir, _ captures: [String]) throws -> String {
        let out = dir.path("scene.svg")
        let r = try touchd(["render", "--config", Paths.exampleConfig, "-o", out] + captures)
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    @Test func svgStructure() throws {
        let dir = TempDir()
        let svg = try render(dir, [demo, Paths.root.appendingPathComponent("Tests/Fixtures/captures/atmel-maxtouch_4-finger-drag-down.events").path])
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            ns = {"s": "http://www.w3.org/2000/svg"}
            root = ET.parse(sys.argv[1]).getroot()
            views = root.findall(".//s:g[@class='view']", ns) + root.findall(".//s:g[@class='view greyed']", ns)
            print(json.dumps({
              "size": [root.get("width"), root.get("height")],
              "windows": [g.get("id") for g in root.findall("s:g[@class='window']", ns)],
              "views": sorted(v.get("data-id") for v in views),
              "greyed": sorted(v.get("data-id") for v in root.findall(".//s:g[@class='view greyed']", ns)),
              "hitAreas": sorted(e.getparent().get("data-id") if hasattr(e, "getparent") else e.tag.split("}")[1]
                                 for e in root.iter() if e.get("class") == "hit-area"),
              "touches": [[t.get("data-id"), t.get("data-view"), t.get("data-end"), len(t.find("s:polyline", ns).get("points").split())]
                          for t in root.findall("s:g[@class='touch']", ns)],
              "labels": [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")],
            }))
            """
        let r = try runProgram("/usr/bin/env", ["python3", "-c", script, svg])
        #expect(r.status == 0, "\(r.stderr)")
        let o = json(r.stdout)
        #expect(o["size"] as? [String] == ["800.0", "480.0"])
        // Bottom to top: the level-0 window first, the toast (level 1) drawn over it.
        #expect(o["windows"] as? [String] == ["window-main", "window-toast"])
        #expect(o["views"] as? [String] == ["back", "canvas", "panel", "play", "root", "stop", "title", "toastMask", "toolbar", "volume"])
        #expect(o["greyed"] as? [String] == ["stop", "title"])                 // disabled control, interaction off
        #expect((o["hitAreas"] as? [String])?.sorted() == ["ellipse", "rect"])  // play's ellipse, back's 8-point outset
        let touches = o["touches"] as? [[Any]] ?? []
        #expect(touches.count == 11)   // 7 in the demo, 4 fingers in the Atmel drag
        #expect(touches.first.map { "\($0[0]) \($0[1]) \($0[2]) \($0[3])" } == "1 back ended 1")
        // The two captures share one timeline: the demo's drag off "back" (2.0 s) is touch 9,
        // after the demo's first tap (#1), the Atmel fingers (#2–#5) and three more demo taps.
        #expect(touches.contains { "\($0[0]) \($0[1]) \($0[3])" == "9 back 2" })      // 2 points: down and the drag
        let labels = o["labels"] as? [String] ?? []
        #expect(labels.contains("toastMask (pass-through)"))
        #expect(labels.contains("stop (disabled; button)"))
        #expect(labels.contains("#9 → back") && labels.contains("#5 → panel"))
    }

    @Test func headlessChromiumShowsAPicture() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            Issue.record("Debian's chromium package is needed for this test (scripts/deps test installs it)")
            return
        }
        let dir = TempDir()
        let svg = try render(dir, [demo])
        func shot(_ file: String) throws -> [String: Any] {
            let png = file + ".png"
            // Chromium itself sometimes dies at start on a loaded machine (its zygote's pipe
            // breaks, no picture): up to four tries, each told what went wrong before. Three
            // immediate tries all died within half a second once while the whole suite ran in
            // parallel (alone it passes): what disturbs it passes, so later tries wait 1, 2, 3 s.
            var errors: [String] = []
            for attempt in 0..<4 where !FileManager.default.fileExists(atPath: png) {
                if attempt > 0 { Thread.sleep(forTimeInterval: Double(attempt)) }
                let c = try runProgram("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                                            "--user-data-dir=\(dir.path("chromium\(attempt)"))", "--screenshot=\(png)",
                                                            "--window-size=800,480", "file://\(file)"], timeout: 120)
                errors.append(c.stderr)
            }
            #expect(FileManager.default.fileExists(atPath: png), "\(errors.joined(separator: "\n---\n"))")
            let r = try runProgram("/usr/bin/env", ["python3", Paths.root.appendingPathComponent("Tests/Tools/png-colors.py").path, png])
            return json(r.stdout)
        }
        let picture = try shot(svg)
        #expect(picture["width"] as? Int == 800)
        #expect((picture["colours"] as? Int ?? 0) > 100)
        #expect((picture["nonBackground"] as? Double ?? 0) > 0.05)
        // The check can tell: a blank page is one colour.
        let blank = dir.write("blank.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"480\"><rect width=\"800\" height=\"480\" fill=\"white\"/></svg>")
        let empty = try shot(blank)
        #expect(empty["colours"] as? Int == 1)
        #expect(empty["nonBackground"] as? Double == 0)
    }

    /// A UI whose windows come from clients (issue 22): without the scene script render drew
    /// the config's window alone and every trail "→ root"; with it, the clients' windows as they
    /// stood when the chosen touch began, and the trails named by the views they were bound to.
    @Test func renderWithALiveScene() throws {
        let dir = TempDir()
        let out = dir.path("live.svg")
        let live = ["--config", Paths.fixture("live/live-taps.json"), "--device-info", Paths.fixture("virtual-800x480.desc"), "-o", out]
        let capture = Paths.fixture("live/live-taps.events"), script = Paths.fixture("live/live-taps.scene.ndjson")
        let r = try touchd(["render"] + live + ["--scene", script, "--touch", "3", capture])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "\(out): 5 views in 3 window(s), 3 touch trail(s)\n")
        let svg = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        for text in ["window main<", "window dialog<", "window pin<", ">ok (", ">panel<", "#3 → ok<", "#4 → panel<", "#5 → root<"] {
            #expect(svg.contains(text), "\(text)")
        }
        #expect(!svg.contains("#1 →") && !svg.contains("#2 →"))   // over before touch 3: another picture
        // The last touch (the default) began after the dialog's owner had gone.
        let last = try touchd(["render"] + live + ["--scene", script, capture])
        #expect(last.stdout == "\(out): 3 views in 2 window(s), 1 touch trail(s)\n")
        // Without the script: the config's scene, every trail on root.
        let plain = try touchd(["render"] + live + [capture])
        #expect(plain.stdout == "\(out): 2 views in 1 window(s), 5 touch trail(s)\n")
        let bad = try touchd(["render"] + live + ["--scene", script, "--touch", "9", capture])
        #expect(bad.status == 1 && bad.stderr.contains("--touch 9: no touch 9 went down in the captures (their touches: 1 to 5)"), "\(bad.stderr)")
        let noCapture = try touchd(["render"] + live + ["--scene", script])
        #expect(noCapture.status == 2 && noCapture.stderr.contains("--scene needs a CAPTURE"))
    }

    /// Issue 47, item 4: a list scrolled by a drag was drawn at offset 0 (the tap bound to row9
    /// drawn at y = 260 over row4, row9 at y = 540), the drag the list's pan took before any row
    /// saw it had no trail, and `--touch 1` found no touch 1. g12: the drag (600, 400) → (600, 100)
    /// scrolls the list (800 × 420, rows of 60) by 300 points; the tap at (600, 260) is row9's.
    @Test func renderDrawsTheScrollOffsetsOfItsMomentAndEveryTrail() throws {
        let dir = TempDir()
        let out = dir.path("g12.svg")
        let g12 = ["--config", Paths.fixture("gestures/g12-scroll-then-tap.json"), "--device-info", Paths.fixture("virtual-800x480.desc"),
                   "-o", out, Paths.fixture("gestures/g12-scroll-then-tap.events")]
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            ns = {"s": "http://www.w3.org/2000/svg"}
            root = ET.parse(sys.argv[1]).getroot()
            rows = {g.get("data-id"): float(g.find("s:rect", ns).get("y")) for g in root.iter("{http://www.w3.org/2000/svg}g")
                    if g.get("class") == "view" and g.get("data-id").startswith("row")}
            content = root.find(".//s:g[@class='content']", ns)
            clip = root.find(".//s:clipPath/s:rect", ns)
            print(json.dumps({
              "row9": rows["row9"], "row6": rows["row6"],
              "clipped": sorted(g.get("data-id") for g in content.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "view") if content is not None else [],
              "clip": [clip.get(k) for k in ("x", "y", "width", "height")] if clip is not None else [],
              "touches": {t.get("data-id"): [t.get("data-view"), t.get("data-end"), t.find("s:polyline", ns).get("points").split()]
                          for t in root.findall("s:g[@class='touch']", ns)},
            }))
            """
        func drawn(_ extra: [String]) throws -> [String: Any] {
            let r = try touchd(["render"] + extra + g12)
            #expect(r.status == 0 && r.stdout == "\(out): 24 views in 1 window(s), 2 touch trail(s)\n", "\(r.stdout)\(r.stderr)")
            let p = try runProgram("/usr/bin/env", ["python3", "-c", script, out])
            #expect(p.status == 0, "\(p.stderr)")
            return json(p.stdout)
        }
        // Default: the scene when the last touch (the tap) went down, the list at offset 300.
        let last = try drawn([])
        #expect(last["row9"] as? Double == 240 && last["row6"] as? Double == 60)
        // The rows are drawn through the list's frame only (0, 0, 800, 420): not over the toolbar.
        #expect(last["clip"] as? [String] == ["0.0", "0.0", "800.0", "420.0"])
        #expect((last["clipped"] as? [String])?.count == 20 && (last["clipped"] as? [String])?.contains("row19") == true)
        let touches = last["touches"] as? [String: [Any]] ?? [:]
        #expect(touches["2"]?[0] as? String == "row9" && touches["2"]?[2] as? [String] == ["600.0,260.0"])
        // The drag: every point the pan followed, from where it went down to where it was held.
        let drag = touches["1"]?[2] as? [String] ?? []
        #expect(touches["1"]?[0] as? String == "row6" && touches["1"]?[1] as? String == "not delivered: taken by list.pan")
        #expect(drag.first == "600.0,400.0" && drag.contains("600.0,250.0") && drag.last == "600.0,100.0" && drag.count >= 11, "\(drag)")
        // --touch 1, the drag taken before delivery: the scene when it went down, at offset 0.
        let first = try drawn(["--touch", "1"])
        #expect(first["row9"] as? Double == 540 && first["row6"] as? Double == 360)
        let bad = try touchd(["render", "--touch", "3"] + g12)
        #expect(bad.status == 1 && bad.stderr.contains("--touch 3: no touch 3 went down in the captures (their touches: 1 to 2)"), "\(bad.stderr)")
        let noCapture = try touchd("render", "--config", Paths.exampleConfig, "--touch", "1", "-o", out)
        #expect(noCapture.status == 2 && noCapture.stderr.contains("--touch needs a CAPTURE"), "\(noCapture.stderr)")
    }

    /// Two displays (issue 33, item 5): one picture per output, its point space as turned, its
    /// windows, the trails of its devices' touches. B is 600 × 400 turned 90 (400 × 600 points);
    /// the capture's device maps onto B by its devices[] entry, so its five taps are B's.
    @Test func renderDrawsOneOutput() throws {
        let dir = TempDir()
        let out = dir.path("out.svg")
        let args = ["render", "--config", Paths.fixture("outputs/two-outputs.json"), "--device-info", Paths.fixture("virtual-800x480.desc"), "-o", out]
        let capture = Paths.fixture("live/live-taps.events")
        let b = try touchd(args + ["--output", "B", capture])
        #expect(b.status == 0, "\(b.stderr)")
        #expect(b.stdout == "\(out): 2 views in 1 window(s), 5 touch trail(s) on output B (of A, B)\n")
        let svgB = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(svgB.contains("width=\"400.0\" height=\"600.0\""))
        #expect(svgB.contains("window b-main<") && !svgB.contains("window a-main<"))
        // The first output by default: its own window, none of B's touches.
        let a = try touchd(args + [capture])
        #expect(a.stdout == "\(out): 1 views in 1 window(s), 0 touch trail(s) on output A (of A, B)\n")
        let svgA = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(svgA.contains("width=\"800.0\" height=\"480.0\"") && svgA.contains("window a-main<") && !svgA.contains("b-main"))
        let bad = try touchd(args + ["--output", "C", capture])
        #expect(bad.status == 2 && bad.stderr.contains("--output C: no output has that id (outputs: A, B)"))
    }

    /// hit-test with two displays: a point is on one of them (the first by default), and only
    /// its windows are asked — b-main, later in the config and so asked first among equal
    /// levels, used to answer for a point of A.
    @Test func hitTestAsksOneOutputsWindows() throws {
        let cfg = Paths.fixture("outputs/two-outputs.json")
        let a = try touchd("hit-test", "--config", cfg, "50", "50")
        #expect(a.status == 0 && a.stdout.hasPrefix(#"{"window":"a-main","view":"a-root""#), "\(a.stdout)")
        let b = try touchd("hit-test", "--config", cfg, "--output", "B", "50", "50")
        #expect(b.status == 0 && b.stdout.hasPrefix(#"{"window":"b-main","view":"b-button""#), "\(b.stdout)")
        let unknown = try touchd("hit-test", "--config", cfg, "--output", "C", "50", "50")
        #expect(unknown.status == 2 && unknown.stderr.contains("--output C: no output has that id (outputs: A, B)"))
        let mismatch = try touchd("hit-test", "--config", cfg, "--window", "b-main", "--output", "A", "50", "50")
        #expect(mismatch.status == 2 && mismatch.stderr.contains(#"window "b-main" is on output B, not A"#))
    }

    /// check-config with several displays names each, and the turned one's rotation (it said
    /// "screen 800x480", the first output's size alone).
    @Test func checkConfigNamesEachOutput() throws {
        let r = try touchd("check-config", Paths.fixture("outputs/two-outputs.json"))
        #expect(r.status == 0 && r.stdout.contains("ok: outputs A 800x480, B 600x400 turned 90, 2 window(s), 3 view(s)"), "\(r.stdout)")
    }

    @Test func renderErrors() throws {
        let r = try touchd("render", "--config", Paths.exampleConfig, demo)
        #expect(r.status == 2 && r.stderr.contains("-o OUT.svg is required"))
        let w = try touchd("render", "--config", Paths.exampleConfig, "-o", "/nonexistent/dir/x.svg")
        #expect(w.status == 1 && w.stderr.contains("cannot write /nonexistent/dir/x.svg"))
    }

    /// Issue 40, item 11: a symlink planted at the output's path (root follows one where
    /// fs.protected_symlinks is 0) is refused; the file it points to keeps its bytes.
    @Test func renderDoesNotWriteThroughASymlink() throws {
        let dir = TempDir()
        let victim = dir.write("victim", "victim\n")
        symlink(victim, dir.path("out.svg"))
        let r = try touchd("render", "--config", Paths.exampleConfig, "-o", dir.path("out.svg"))
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot write \(dir.path("out.svg")): it is a symlink, and output files are not written through one"), "\(r.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "victim\n")
        // The standard output by its name still works (scripts/golden renders to /dev/stdout).
        let s = try touchd("render", "--config", Paths.exampleConfig, "-o", "/dev/stdout")
        #expect(s.status == 0 && s.stdout.hasPrefix("<?xml") && s.stdout.hasSuffix("/dev/stdout: 10 views in 2 window(s), 0 touch trail(s)\n"), "\(s.stderr)")
    }

    @Test func replaySummaryIsADigest() throws {
        let r = try touchd("replay", "--summary", "--config", Paths.exampleConfig, demo)
        #expect(r.status == 0)
        let lines = r.lines
        #expect(lines.first == "devices:")
        #expect(lines.contains("touches: 7"))
        #expect(lines.contains("  #5  back          (40.0, 30.0) → (200.0, 200.0) 0.100 s   ended"))
        #expect(lines.contains("  #4  panel         (680.0, 270.0) → (680.0, 270.0) 0.060 s   ended"))
        #expect(lines.contains("  back: touchDown ×2, touchUpInside, primaryActionTriggered, touchDragExit, touchDragOutside, touchUpOutside"))
        #expect(lines.contains("  play: touchDown ×2, touchUpInside ×2, primaryActionTriggered ×2, touchDownRepeat"))
        let g = try touchd("replay", "--summary", "--config", Paths.fixture("gestures/g1-single-vs-double.json"), "--device-info",
                           Paths.fixture("virtual-800x480.desc"), Paths.fixture("gestures/g1-single-vs-double.events"))
        #expect(g.lines.contains("  single (tap on photo): recognized at 1.400, failed at 3.250"))
        #expect(g.lines.contains("  double (tap on photo): failed at 1.400, recognized at 3.250"))
        // The finger's own duration (down 1.000, up 1.050), not when the view was told (1.400).
        #expect(g.lines.contains("  #1  photo         (200.0, 200.0) → (200.0, 200.0) 0.050 s   cancelled (gesture)"))
        // A touch no view ever saw (the tap recognizer delays began and takes it) is listed too.
        let held = try touchd("replay", "--summary", "--config", Paths.fixture("gestures/g6-delays-touches-began.json"), "--device-info",
                              Paths.fixture("virtual-800x480.desc"), Paths.fixture("gestures/g6-delays-touches-began.events"))
        #expect(held.lines.contains("touches: 2"))
        #expect(held.lines.contains("  #1  pad           (200.0, 200.0) → (200.0, 200.0) 0.050 s   not delivered: taken by tap"))
        // A drag the list's pan took before any row saw it (issue 47, item 4): its path from the
        // pan's messages, from where it went down to where it lifted, 0.55 s later — it read
        // "(600.0, 400.0) → (600.0, 400.0) 0.010 s", the touch-down and the pan's beginning.
        let drag = try touchd("replay", "--summary", "--config", Paths.fixture("gestures/g12-scroll-then-tap.json"), "--device-info",
                              Paths.fixture("virtual-800x480.desc"), Paths.fixture("gestures/g12-scroll-then-tap.events"))
        #expect(drag.lines.contains("  #1  row6          (600.0, 400.0) → (600.0, 100.0) 0.550 s   not delivered: taken by list.pan"), "\(drag.stdout)")
        #expect(drag.lines.contains("  #2  row9          (600.0, 260.0) → (600.0, 260.0) 0.060 s   ended"))
        #expect(drag.lines.contains("  list: offset (0.0, 300.0) after 11 change(s)"))
    }
}
