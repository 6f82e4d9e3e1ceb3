import Testing
@testable import TouchCore
import TouchTestSupport

/// Differential: hit-testing through the spatial index (HitIndex.swift) returns exactly what
/// the linear walk returns (the walk is what a trace records), over random scenes with every
/// gate, hit mode, outset, ellipse, bounds origin and outsideChildren, before and after random
/// changes (frames, gates, modes, scrolling, subtrees added and removed) — with the indexes
/// rebuilt after each change, or left dropped.
@Suite struct HitIndexTests {
    typealias RNG = SplitMix64

    final class Gen {
        var rng: RNG
        var next = 0
        init(_ seed: UInt64) { rng = RNG(state: seed) }
        func n(_ k: Int) -> Int { rng.int(k) }
        func d(_ lo: Int, _ hi: Int) -> Double { Double(lo + rng.int(hi - lo + 1)) + (rng.int(4) == 0 ? 0.5 : 0) }

        /// View keys other than id, frame and subviews.
        func extras() -> String {
            var e = ""
            switch n(14) {
            case 0: e += ", \"hidden\": true"
            case 1: e += ", \"userInteractionEnabled\": false"
            case 2: e += ", \"alpha\": 0"
            case 3: e += ", \"control\": \"button\", \"enabled\": false"
            default: break
            }
            if n(4) == 0 { e += ", \"hitTest\": \"\(["default", "none", "passthrough", "self", "outsideChildren"][n(5)])\"" }
            if n(4) == 0 { e += ", \"hitOutset\": \(n(2) == 0 ? "\(d(-15, 25))" : "[\(d(-10, 20)), \(d(-10, 20)), \(d(-10, 20)), \(d(-10, 20))]")" }
            if n(5) == 0 { e += ", \"shape\": \"ellipse\"" }
            if n(5) == 0 { e += ", \"boundsOrigin\": [\(d(-60, 60)), \(d(-60, 60))]" }
            return e
        }

        func view(depth: Int, width: Double, height: Double) -> String {
            next += 1
            let id = "v\(next)"
            let w = d(4, Int(max(8, width))), h = d(4, Int(max(8, height)))
            // Frames mostly inside the parent, some across or outside its edges.
            let x = d(-20, Int(max(0, width - w / 2))), y = d(-20, Int(max(0, height - h / 2)))
            var json = "{\"id\": \"\(id)\", \"frame\": [\(x), \(y), \(w), \(h)]" + extras()
            if depth < 3 {
                // Some views with many subviews (indexed), most with a few.
                let count = n(4) == 0 ? 16 + n(45) : n(4)
                let kids = (0..<count).map { _ in view(depth: depth + 1, width: w, height: h) }
                if !kids.isEmpty { json += ", \"subviews\": [\(kids.joined(separator: ", "))]" }
            }
            return json + "}"
        }

        func config() -> Config {
            var windows: [String] = []
            for k in 0..<(1 + n(2)) {
                let kids = (0..<(16 + n(40))).map { _ in view(depth: 1, width: 800, height: 480) }
                windows.append("""
                    {"id": "w\(k)", "frame": [\(k * 40), \(k * 30), 800, 480], "level": \(k),
                     "view": {"id": "root\(k)", "frame": [0, 0, 800, 480]\(n(3) == 0 ? ", \"hitTest\": \"outsideChildren\"" : ""),
                              "subviews": [\(kids.joined(separator: ", "))]}}
                    """)
            }
            return Config.parseOrFail("{\"screen\": {\"width\": 800, \"height\": 480}, \"windows\": [\(windows.joined(separator: ", "))]}")
        }

        func point() -> Point { Point(d(-40, 860), d(-40, 520)) }
    }

    func agree(_ scene: Scene, _ g: Gen, _ count: Int, _ what: String) -> Bool {
        var t1: [HitStep] = [], t2: [HitStep] = []
        for _ in 0..<count {
            let p = g.point()
            t2.removeAll(keepingCapacity: true)
            let fast = scene.hitTest(screen: p, tracing: false, trace: &t1)
            let walk = scene.hitTest(screen: p, tracing: true, trace: &t2)
            if fast != walk {
                Issue.record("\(what): at \(p) the index gives \(scene.id(of: fast?.view) ?? "nil"), the walk \(scene.id(of: walk?.view) ?? "nil")")
                return false
            }
        }
        return true
    }

    @Test(arguments: 0..<40)
    func theIndexAgreesWithTheWalk(seed: Int) throws {
        let g = Gen(UInt64(seed) &* 0x9E3779B97F4A7C15 &+ 11)
        var scene = g.config().scene
        scene.refreshHitIndexes()
        #expect(!scene.hitIndexes.isEmpty)
        guard agree(scene, g, 400, "fresh") else { return }
        let ids = scene.viewIndices.filter { !scene[$0].isWindow }
        for step in 0..<30 {
            let v = ids[g.n(ids.count)]
            guard !scene[v].removed else { continue }
            switch g.n(7) {
            case 0:
                var p = ViewProperties()
                p.frame = Rect(g.d(-20, 700), g.d(-20, 400), g.d(1, 300), g.d(1, 300))
                scene.set(p, on: v)
            case 1:
                var p = ViewProperties()
                p.hidden = g.n(2) == 0
                p.userInteractionEnabled = g.n(3) != 0
                p.alpha = g.n(4) == 0 ? 0 : 1
                scene.set(p, on: v)
            case 2:
                var p = ViewProperties()
                p.hitMode = HitMode.allCases[g.n(HitMode.allCases.count)]
                p.hitOutset = Outset(all: g.d(-10, 30))
                scene.set(p, on: v)
            case 3:
                // Scrolling; half the time a view that asks its subviews outside its bounds
                // (the one kind whose reach moves with its bounds origin).
                let outside = ids.filter { !scene[$0].removed && scene[$0].hitMode == .outsideChildren }
                let target = !outside.isEmpty && g.n(2) == 0 ? outside[g.n(outside.count)] : v
                scene.setBoundsOrigin(Point(g.d(-80, 80), g.d(-80, 80)), of: target)
            case 4:
                // A subtree of many views under it.
                let kids = (0..<(10 + g.n(30))).map { _ in g.view(depth: 2, width: 300, height: 300) }
                let json = "{\"add\": {\"id\": \"add\(seed)x\(step)\", \"frame\": [0, 0, 400, 300], \"subviews\": [\(kids.joined(separator: ", "))]}, \"to\": \"x\"}"
                guard case .success(.update(_, let changes))? = SceneRequest.parse("update", try JSONParser.parse("{\"window\": \"w\", \"changes\": [\(json)]}")),
                      case .add(let f, _, let index, _) = changes[0] else { Issue.record("test subtree does not parse"); return }
                _ = scene.insert(f, under: v, at: index)
            case 5:
                if scene[v].superview.map({ !scene[$0].isWindow }) == true { _ = scene.remove(v) }
            default:
                var p = ViewProperties()
                p.frame = Rect(g.d(-20, 700), g.d(-20, 400), g.d(1, 300), g.d(1, 300))
                p.boundsOrigin = Point(g.d(-30, 30), g.d(-30, 30))
                scene.set(p, on: v)
            }
            // Rebuilt now, or left dropped (the walk stands in) until a later step rebuilds.
            if g.n(3) != 0 { scene.refreshHitIndexes() }
            guard agree(scene, g, 60, "after step \(step)") else { return }
        }
    }

    @Test func aFlatSceneOf10000ViewsUsesItsIndex() {
        var subviews: [String] = []
        for i in 0..<9999 {
            subviews.append("{\"id\": \"v\(i)\", \"frame\": [\((i * 37) % 760), \((i * 53) % 440), 40, 40], \"touches\": \"handle\"}")
        }
        var scene = Config.parseOrFail("""
            {"windows": [{"id": "main", "frame": [0, 0, 800, 480],
              "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [\(subviews.joined(separator: ","))]}}]}
            """).scene
        scene.refreshHitIndexes()
        let root = scene.viewIndex["root"]!
        let index = scene.hitIndexes[root]
        #expect(index != nil)
        // Every cell holds a few of the 9,999 subviews, not all of them.
        if let index { #expect(index.entries.count < 10 * 9999 && index.cols * index.rows > 100) }
        var trace: [HitStep] = []
        // (400, 300): the topmost of the views covering it.
        let covering = (0..<9999).filter { i in
            let x = Double((i * 37) % 760), y = Double((i * 53) % 440)
            return 400 >= x && 400 < x + 40 && 300 >= y && 300 < y + 40
        }
        #expect(scene.id(of: scene.hitTest(screen: Point(400, 300), tracing: false, trace: &trace)?.view) == "v\(covering.max()!)")
    }
}

extension Config {
    /// A generated test config; one that does not parse is a test failure, not a crash.
    static func parseOrFail(_ json: String) -> Config { config(json) }
}

/// Found by the scenebig fuzzer (issue 21): a view's subviews spread over a box millions of
/// times wider than high made the index's column count a Double beyond Int — a trap that any
/// client attaching such a window could set off with one touch.
@Suite struct HitIndexExtremeTests {
    @Test func subviewsFarApartBuildAnIndexThatAgreesWithTheWalk() throws {
        var subs = (0..<18).map { "{\"id\": \"s\($0)\", \"frame\": [\($0 * 10), 0, 10, 1]}" }
        subs.append("{\"id\": \"far-left\", \"frame\": [-1e300, 0, 1, 1]}")
        subs.append("{\"id\": \"far-right\", \"frame\": [1e300, 0, 1, 1]}")
        let cfg = try Config.parse("""
            {"windows": [{"id": "w", "frame": [0, 0, 800, 480],
              "view": {"id": "strip", "frame": [0, 0, 800, 480], "subviews": [\(subs.joined(separator: ","))]}}]}
            """)
        var s = cfg.scene
        s.refreshHitIndexes()
        for x in [0.5, 15.0, 95.0, 179.5, 400.0] {
            var none: [HitStep] = [], steps: [HitStep] = []
            let indexed = s.hitTest(screen: Point(x, 0.5), tracing: false, trace: &none)
            let walked = s.hitTest(screen: Point(x, 0.5), tracing: true, trace: &steps)
            #expect(indexed?.view == walked?.view, "at \(x)")
        }
        var none: [HitStep] = []
        #expect(s.hitTest(screen: Point(15, 0.5), tracing: false, trace: &none).map { s[$0.view].id } == "s1")
    }
}
