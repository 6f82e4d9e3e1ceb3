import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct HitTestTests {
    func hit(_ cfg: Config, _ x: Double, _ y: Double) -> String? {
        var trace: [HitStep] = []
        guard let r = cfg.scene.hitTest(screen: Point(x, y), tracing: false, trace: &trace) else { return nil }
        return cfg.scene[r.view].id
    }

    @Test(arguments: [
        ("\"hidden\": true", "hidden"),
        ("\"userInteractionEnabled\": false", "userInteractionDisabled"),
        ("\"alpha\": 0.005", "alpha"),
        ("\"control\": \"button\", \"enabled\": false", "disabled"),
        ("\"hitTest\": \"none\"", "none"),
    ])
    func eachGateRefusesTheViewAndItsSubtree(_ keys: String, _ gate: String) {
        let cfg = scene("""
            {"id": "parent", "frame": [100, 100, 200, 200], \(keys),
             "subviews": [{"id": "child", "frame": [10, 10, 50, 50]}]}
            """)
        #expect(hit(cfg, 120, 120) == "root")
        var trace: [HitStep] = []
        _ = cfg.scene.hitTest(screen: Point(120, 120), tracing: true, trace: &trace)
        let parent = cfg.scene.viewIndex["parent"]!
        let steps = trace.filter { $0.view == parent }
        #expect(steps.count == 3)
        #expect(steps[0].kind == .hitTest)
        #expect(steps[1].kind == .gate(HitGate(rawValue: gate)!))
        #expect(steps[2].kind == .result(nil))
        #expect(!trace.contains { $0.view == cfg.scene.viewIndex["child"]! })   // S2: never entered
    }

    @Test func alphaAtTheThresholdStillHits() {
        #expect(hit(scene("{\"id\": \"v\", \"frame\": [0, 0, 100, 100], \"alpha\": 0.01}"), 5, 5) == "v")
    }

    @Test func boundsAreHalfOpen() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [10, 10, 100, 50]}")
        #expect(hit(cfg, 10, 10) == "v")
        #expect(hit(cfg, 109.9, 59.9) == "v")
        #expect(hit(cfg, 110, 30) == "root")
        #expect(hit(cfg, 30, 60) == "root")
    }

    @Test func lastSubviewIsAskedFirst() {
        let cfg = scene("""
            {"id": "below", "frame": [0, 0, 100, 100]}, {"id": "above", "frame": [50, 50, 100, 100]}
            """)
        #expect(hit(cfg, 60, 60) == "above")
        #expect(hit(cfg, 20, 20) == "below")
    }

    @Test func hitOutsetGrowsOnlyPointInside() {
        let cfg = scene("""
            {"id": "sibling", "frame": [0, 0, 100, 100]},
            {"id": "btn", "frame": [200, 200, 40, 40], "hitOutset": 16},
            {"id": "lopsided", "frame": [400, 200, 40, 40], "hitOutset": [0, 0, 30, -10]}
            """)
        #expect(hit(cfg, 185, 185) == "btn")      // in the 16-point ring
        #expect(hit(cfg, 183, 220) == "root")     // outside it
        #expect(hit(cfg, 255, 255) == "btn")
        #expect(hit(cfg, 420, 265) == "lopsided") // bottom grown by 30
        #expect(hit(cfg, 435, 220) == "root")     // right shrunk by 10
        #expect(hit(cfg, 50, 50) == "sibling")
    }

    @Test func ellipseShapeMissesTheCorners() {
        let cfg = scene("{\"id\": \"round\", \"frame\": [100, 100, 100, 100], \"shape\": \"ellipse\"}")
        #expect(hit(cfg, 150, 150) == "round")
        #expect(hit(cfg, 103, 103) == "root")    // corner of the frame
        #expect(hit(cfg, 100, 150) == "round")   // on the ellipse's edge
        #expect(hit(cfg, 185, 185) == "round")   // inside: (35/50)^2 * 2 = 0.98
        #expect(hit(cfg, 186, 186) == "root")    // outside: (36/50)^2 * 2 = 1.04
    }

    @Test func ellipseUsesTheOutsetRectangle() {
        let cfg = scene("{\"id\": \"round\", \"frame\": [100, 100, 100, 100], \"shape\": \"ellipse\", \"hitOutset\": 20}")
        #expect(hit(cfg, 85, 150) == "round")
    }

    @Test func passthroughSelfAndOutsideChildren() {
        let cfg = scene("""
            {"id": "pass", "frame": [0, 0, 200, 200], "hitTest": "passthrough",
             "subviews": [{"id": "passChild", "frame": [0, 0, 50, 50]}]},
            {"id": "intercept", "frame": [300, 0, 200, 200], "hitTest": "self",
             "subviews": [{"id": "hiddenBehind", "frame": [0, 0, 50, 50]}]},
            {"id": "outer", "frame": [0, 300, 100, 100], "hitTest": "outsideChildren",
             "subviews": [{"id": "sticking", "frame": [80, 0, 100, 50]}]},
            {"id": "plain", "frame": [400, 300, 100, 100],
             "subviews": [{"id": "stickingPlain", "frame": [80, 0, 100, 50]}]}
            """)
        #expect(hit(cfg, 100, 100) == "root")        // passthrough: not itself
        #expect(hit(cfg, 10, 10) == "passChild")     // but its subviews
        #expect(hit(cfg, 310, 10) == "intercept")    // self: never asks subviews
        #expect(hit(cfg, 150, 310) == "sticking")    // S11 with outsideChildren
        #expect(hit(cfg, 50, 350) == "outer")
        #expect(hit(cfg, 550, 310) == "root")        // S11 without it
        #expect(hit(cfg, 490, 310) == "stickingPlain")  // the part inside its parent
    }

    @Test func boundsOriginShiftsContentAndConversionUsesIt() {
        let cfg = scene("""
            {"id": "scroller", "frame": [100, 100, 200, 200], "boundsOrigin": [0, 300],
             "subviews": [{"id": "row0", "frame": [0, 0, 200, 100]}, {"id": "row3", "frame": [0, 300, 200, 100]}]}
            """)
        #expect(hit(cfg, 150, 150) == "row3")   // content scrolled by 300
        var trace: [HitStep] = []
        let r = cfg.scene.hitTest(screen: Point(150, 150), tracing: false, trace: &trace)!
        #expect(cfg.scene.convert(windowPoint: r.location, to: cfg.scene.viewIndex["scroller"]!) == Point(50, 350))
        #expect(cfg.scene.convert(windowPoint: r.location, to: r.view) == Point(50, 50))
    }

    @Test func windowsTopmostFirstByLevelThenOrder() {
        let cfg = config("""
            {"windows": [
              {"id": "w1", "frame": [0, 0, 400, 400], "level": 0, "view": {"id": "v1", "frame": [0, 0, 400, 400]}},
              {"id": "w2", "frame": [0, 0, 400, 400], "level": 0, "view": {"id": "v2", "frame": [0, 0, 400, 400]}},
              {"id": "alert", "frame": [100, 100, 100, 100], "level": 10, "view": {"id": "a", "frame": [0, 0, 100, 100]}},
              {"id": "w0", "frame": [300, 300, 400, 100], "level": -1, "view": {"id": "v0", "frame": [0, 0, 400, 100]}}
            ]}
            """)
        #expect(hit(cfg, 150, 150) == "a")    // highest level
        #expect(hit(cfg, 50, 50) == "v2")     // same level: later in the array is on top
        #expect(hit(cfg, 500, 350) == "v0")   // only the low window there
        #expect(hit(cfg, 750, 10) == nil)     // no window
        var trace: [HitStep] = []
        let r = cfg.scene.hitTest(screen: Point(150, 150), tracing: false, trace: &trace)!
        #expect(r.location == Point(50, 50))   // in the alert window's coordinates
        let w1 = cfg.scene.viewIndex["w1"]!
        #expect(cfg.scene.hitTest(screen: Point(150, 150), onlyWindow: w1, tracing: false, trace: &trace)?.view == cfg.scene.viewIndex["v1"])
    }

    @Test func seed002TraceInCallOrder() {
        // red > [yellow > [orange > [blue, cyan], purple]]; cyan has interaction disabled and
        // overlaps blue; the tap is on the overlap.
        let cfg = config("""
            {"windows": [{"id": "window", "frame": [0, 0, 400, 600],
              "view": {"id": "red", "frame": [0, 0, 400, 600], "subviews": [
                {"id": "yellow", "frame": [20, 20, 360, 560], "subviews": [
                  {"id": "orange", "frame": [20, 20, 320, 300], "subviews": [
                    {"id": "blue", "frame": [20, 20, 200, 200]},
                    {"id": "cyan", "frame": [120, 120, 180, 160], "userInteractionEnabled": false}]},
                  {"id": "purple", "frame": [20, 340, 320, 200]}]}]}}]}
            """)
        var trace: [HitStep] = []
        let s = cfg.scene
        let r = s.hitTest(screen: Point(200, 200), tracing: true, trace: &trace)
        #expect(r.map { s[$0.view].id } == "blue")
        let text = trace.map { step -> String in
            let name = s[step.view].id
            switch step.kind {
            case .hitTest: return "\(name) hitTest"
            case .gate(let g): return "\(name) gate \(g.rawValue)"
            case .pointInside(let b): return "\(name) pointInside=\(b ? 1 : 0)"
            case .result(let v): return "\(name)->\(s.id(of: v) ?? "nil")"
            case .omitted(let n): return "\(n) omitted"
            }
        }
        #expect(text == [
            "window hitTest", "window pointInside=1",
            "red hitTest", "red pointInside=1", "yellow hitTest", "yellow pointInside=1",
            "purple hitTest", "purple pointInside=0", "purple->nil",
            "orange hitTest", "orange pointInside=1",
            "cyan hitTest", "cyan gate userInteractionDisabled", "cyan->nil",
            "blue hitTest", "blue pointInside=1", "blue->blue",
            "orange->blue", "yellow->blue", "red->blue", "window->blue",
        ])
    }

    /// Issue 21: a trace walks every view, so a 10,000-view scene made hitTest messages of
    /// about 1.5 MB per touch. Published traces keep the first and last 1,024 steps.
    @Test func publishedTracesAreBounded() {
        let rows = (0..<3_000).map { "{\"id\": \"r\($0)\", \"frame\": [0, \($0 % 400), 10, 1]}" }.joined(separator: ",")
        let r = Rig(scene(rows, rootExtra: ", \"touches\": \"handle\""), tracing: true)
        r.tap(700, 400)
        guard let h = r.messages.hitTests.first else { Issue.record("no hitTest message"); return }
        // root + 3,000 subviews, each asked and answering: far more than 2,048 steps.
        #expect(h.trace.count == 2_049)
        guard case .omitted(let n)? = h.trace.dropFirst(1_024).first?.kind else { Issue.record("no omitted step at 1,024"); return }
        var full: [HitStep] = []
        _ = r.scene.hitTest(screen: Point(700, 400), tracing: true, trace: &full)
        #expect(n == full.count - 2_048 && n > 4_000)
        #expect(Array(h.trace.prefix(1_024)) == Array(full.prefix(1_024)))
        #expect(Array(h.trace.suffix(1_024)) == Array(full.suffix(1_024)))
        #expect(h.view == r.scene.viewIndex["root"])
        var bytes: [UInt8] = []
        MessageEncoder(scene: r.scene).encode(.hitTest(h), into: &bytes)
        let line = String(decoding: bytes, as: UTF8.self)
        #expect(line.contains("{\"step\":\"omitted\",\"count\":\(n)}"))
        #expect(line.utf8.count < 200_000, "\(line.utf8.count) bytes")
    }
}
