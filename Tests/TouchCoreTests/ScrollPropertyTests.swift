import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 20's invariants, over random scroll views (nested at random axes, paging, bouncing,
/// always bouncing, cancelling controls or not) with buttons in them and a pan on the root, fed
/// random drags, flicks, taps on moving content, holds and fingers landing and lifting:
/// 1. once no finger is down and every motion has run its course, no scroll view rests past an
///    edge or between pages (UIScrollView.bounces returns the content to the edge;
///    isPagingEnabled stops on multiples of the bounds), nor off an axis it cannot scroll;
/// 2. no pan's velocity is faster than the fingers themselves moved (UIPanGestureRecognizer's
///    velocity is the fingers' speed, continuous when fingers land or lift);
/// 3. a touch that belongs to a pan that began never presses a control (the pan cancels the
///    touches in its view: a control gets touchCancel, never touchUpInside or
///    primaryActionTriggered, and nothing after the pan began but that cancel).
@Suite struct ScrollPropertyTests {
    typealias RNG = SplitMix64

    static func spec(_ rng: inout RNG, width: Double, height: Double) -> String {
        let cw = rng.int(2) == 0 ? width : width * Double(2 + rng.int(4)) - Double(rng.int(3)) * 37
        let ch = rng.int(2) == 0 ? height : height * Double(2 + rng.int(5)) - Double(rng.int(3)) * 41
        var s = "\"contentSize\": [\(cw), \(ch)]"
        if rng.int(3) == 0 { s += ", \"pagingEnabled\": true" }
        if rng.int(4) == 0 { s += ", \"bounces\": false" }
        if rng.int(4) == 0 { s += ", \"alwaysBounceVertical\": true" }
        if rng.int(4) == 0 { s += ", \"alwaysBounceHorizontal\": true" }
        if rng.int(2) == 0 { s += ", \"cancelsControlTouches\": true" }
        if rng.int(4) == 0 { s += ", \"delaysContentTouches\": false" }
        return "{" + s + "}"
    }

    static func config(_ rng: inout RNG) -> (Config, String) {
        let outer = spec(&rng, width: 400, height: 480), inner = spec(&rng, width: 400, height: 160)
        let minimum = 1 + rng.int(2), maximum = minimum + rng.int(2)
        let json = """
            {"screen": {"width": 800, "height": 480},
             "windows": [{"id": "main", "frame": [0, 0, 800, 480],
              "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle", "multipleTouch": true,
               "gestures": [{"id": "rootPan", "kind": "pan", "minimumTouches": \(minimum), "maximumTouches": \(maximum)}],
               "subviews": [
                {"id": "outer", "frame": [0, 0, 400, 480], "multipleTouch": true, "scroll": \(outer), "subviews": [
                  {"id": "b0", "frame": [20, 20, 200, 60], "control": "button"},
                  {"id": "inner", "frame": [0, 100, 400, 160], "multipleTouch": true, "scroll": \(inner), "subviews": [
                    {"id": "b1", "frame": [20, 20, 150, 60], "control": "button"},
                    {"id": "b3", "frame": [420, 20, 150, 60], "control": "button"}]},
                  {"id": "b2", "frame": [20, 300, 200, 60], "control": "button"},
                  {"id": "b4", "frame": [20, 700, 200, 60], "control": "button"}]}]}}]}
            """
        return (TouchCoreTests.config(json), json)
    }

    /// One random gesture starting at `start`; returns the fastest any finger moved (points a
    /// second, from one frame to the next: a finger with no event in a frame stayed put).
    static func gesture(_ rng: inout RNG, _ f: inout Finger, start: Int64) -> Double {
        f.time = start
        var fastest = 0.0
        var previousFrame = start
        var at: [Int32: (x: Int32, y: Int32)] = [:]
        func clamp(_ v: Int32, _ hi: Int32) -> Int32 { min(max(v, 0), hi) }
        func down(_ s: Int32, _ x: Int32, _ y: Int32) {
            let p = (clamp(x, 799), clamp(y, 479))
            f.down(s, p.0, p.1); at[s] = (p.0, p.1)
        }
        func move(_ s: Int32, _ dx: Int32, _ dy: Int32) {
            guard let a = at[s] else { return }
            let p = (clamp(a.x + dx, 799), clamp(a.y + dy, 479))
            let ddx = Double(p.0 - a.x), ddy = Double(p.1 - a.y)
            let dt = Double(f.time - previousFrame) / 1_000_000
            if dt > 0 { fastest = max(fastest, (ddx * ddx + ddy * ddy).squareRoot() / dt) }
            f.move(s, p.0, p.1); at[s] = (p.0, p.1)
        }
        /// The frame ends (SYN_REPORT at this time) and the next one is `ms` later.
        func syn(after ms: Int64 = 10) { previousFrame = f.time; f.syn(after: ms) }
        func up(_ s: Int32) { f.up(s); at[s] = nil }
        func step() -> Int64 { Int64(4 + rng.int(22)) }
        let x = Int32(10 + rng.int(380)), y = Int32(10 + rng.int(460))
        // Slow gestures (a point or two per event) as often as fast ones: a spike shows there.
        let reach = rng.int(2) == 0 ? 2 : 30
        let dx = Int32(rng.int(2 * reach + 1) - reach), dy = Int32(rng.int(2 * reach + 1) - reach)
        switch rng.int(7) {
        case 6:      // pulled past the top or left edge, then caught by a tap during the spring back
            let px = Int32(rng.int(3)) * 10, py = Int32(rng.int(3)) * 10
            down(0, x, y); syn(after: step())
            for _ in 0..<(4 + rng.int(8)) { move(0, px, py); syn(after: step()) }
            up(0); syn(after: Int64(10 + rng.int(80)))
            down(0, x, y); syn(after: Int64(20 + rng.int(100))); up(0); syn()
        case 0:      // a tap
            down(0, x, y); syn(after: Int64(30 + rng.int(300))); up(0); syn()
        case 1, 2:   // a drag or a flick, lifting at once or after a rest
            down(0, x, y); syn(after: step())
            for _ in 0..<(2 + rng.int(18)) { move(0, dx, dy); syn(after: step()) }
            if rng.int(2) == 0 { syn(after: 100) }
            up(0); syn(after: Int64(50 + rng.int(400)))
            if rng.int(2) == 0 {    // a tap on what may still be moving
                down(0, Int32(10 + rng.int(380)), Int32(10 + rng.int(460))); syn(after: Int64(20 + rng.int(200))); up(0); syn()
            }
        case 3:      // held past the content delay, then dragged
            down(0, x, y); syn(after: 200)
            for _ in 0..<(2 + rng.int(10)) { move(0, dx, dy); syn(after: step()) }
            up(0); syn()
        case 4:      // two fingers drag; one lifts, the other goes on
            down(0, x, y); down(1, x + 60, y + 20); syn(after: step())
            for _ in 0..<(2 + rng.int(8)) { move(0, dx, dy); move(1, dx, dy); syn(after: step()) }
            up(Int32(rng.int(2))); syn(after: step())
            for s in [Int32(0), 1] where at[s] != nil { for _ in 0..<(1 + rng.int(6)) { move(s, dx, dy); syn(after: step()) } }
            for s in [Int32(0), 1] where at[s] != nil { up(s) }
            syn()
        default:     // a second finger lands during a drag
            down(0, x, y); syn(after: step())
            for _ in 0..<(2 + rng.int(8)) { move(0, dx, dy); syn(after: step()) }
            down(1, Int32(10 + rng.int(380)), Int32(10 + rng.int(460))); syn(after: step())
            for _ in 0..<(1 + rng.int(8)) { move(0, dx, dy); move(1, -dy, dx); syn(after: step()) }
            up(0); syn(after: step()); up(1); syn()
        }
        return fastest
    }

    static let window: Int64 = 12_000_000   // longer than any motion (10 s at most) plus the gesture

    @Test(arguments: Array(1...30))
    func scrollViewsRestInBoundsVelocitiesFollowFingersPansNeverPress(_ seed: Int) {
        var rng = RNG(state: UInt64(seed) &* 7_919 &+ 17)
        let (cfg, json) = ScrollPropertyTests.config(&rng)
        let r = Rig(cfg)
        var fastest: [Double] = []
        for w in 0..<8 {
            var f = Finger()
            f.nextID = Int32(100 + 10 * w)
            fastest.append(ScrollPropertyTests.gesture(&rng, &f, start: Int64(w) * ScrollPropertyTests.window))
            r.feed(f)
            r.advance(to: Int64(w + 1) * ScrollPropertyTests.window - 1)
            // 1. At rest, in bounds, on a page.
            for id in ["outer", "inner"] {
                let v = r.scene.viewIndex[id]!
                let node = r.scene[v]
                guard let spec = node.scroll else { continue }
                #expect(!r.engine.scrolls.isMoving(v), "seed \(seed) window \(w): \(id) still moving")
                let m = ScrollPhysics.maxOffset(spec, node.frame.size)
                let o = node.boundsOrigin
                let inBounds = o.x >= 0 && o.x <= m.x && o.y >= 0 && o.y <= m.y
                #expect(inBounds, "seed \(seed) window \(w): \(id) rests at \(o), bounds \(m); \(json)")
                if spec.pagingEnabled {
                    let onPage = (o.x == m.x || o.x.truncatingRemainder(dividingBy: node.frame.size.width) == 0)
                        && (o.y == m.y || o.y.truncatingRemainder(dividingBy: node.frame.size.height) == 0)
                    #expect(onPage, "seed \(seed) window \(w): \(id) rests between pages at \(o); \(json)")
                }
            }
        }
        // 2. Velocities no faster than the fingers moved in that gesture (and a tenth of a point
        // a second for rounding).
        for g in r.gestures where g.kind == .pan {
            guard let v = point(r.value(g, "velocity")) else { continue }
            let speed = (v.x * v.x + v.y * v.y).squareRoot()
            let bound = fastest[Int(g.time / ScrollPropertyTests.window)]
            #expect(speed <= bound + 0.1, "seed \(seed): \(g.recognizer) \(g.state.rawValue) at \(g.time) velocity \(v) (\(speed)) beyond the fingers' \(bound)")
        }
        // 3. A touch of a pan that began never presses a control after it began (nor at all).
        var panSince: [Int: Int64] = [:]
        for g in r.gestures where g.kind == .pan && (g.state == .began || g.state == .changed) {
            for t in g.touches where panSince[t] == nil { panSince[t] = g.time }
        }
        for c in r.messages.controls {
            let t = c.touch
            guard let since = panSince[t] else { continue }
            let e = c.event.rawValue
            #expect(e != "touchUpInside" && e != "primaryActionTriggered",
                    "seed \(seed): touch \(t) of a pan pressed \(r.scene[c.control].id): \(e); \(json)")
            if c.time > since {
                #expect(e == "touchCancel", "seed \(seed): touch \(t) sent \(e) to a control after its pan began; \(json)")
            }
        }
    }
}
