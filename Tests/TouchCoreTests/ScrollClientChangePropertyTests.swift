import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 31: over random flicks of a client's scroll view (paging or not, bouncing or not) and a
/// random change sent while it moves on — content size, paging, bounces, deceleration rate, the
/// view's size, its offset — the motion always comes to rest at a valid offset (within the
/// content; on a page when paging), without bounces no frame after the change leaves the
/// content, and the last `scroll` message says where the view is, no longer decelerating.
/// Seeded: the same cases every run.
@Suite struct ScrollClientChangePropertyTests {
    typealias RNG = SplitMix64

    struct Case: CustomStringConvertible {
        var height = 1500, paging = false, bounces = true
        var change = ""
        var after: (height: Int, paging: Bool, bounces: Bool, viewHeight: Int) = (1500, false, true, 480)
        var setsOffset = false
        var description: String { "content \(height) paging \(paging) bounces \(bounces), change \(change)" }
    }

    static func randomCase(_ rng: inout RNG) -> Case {
        var c = Case()
        c.height = 600 + 100 * rng.int(30)
        c.paging = rng.int(2) == 0
        c.bounces = rng.int(3) != 0
        c.after = (c.height, c.paging, c.bounces, 480)
        var keys: [String] = []
        var top: [String] = []
        if rng.int(2) == 0 { c.after.height = 500 + 100 * rng.int(40); keys.append("\"contentSize\": [400, \(c.after.height)]") }
        if rng.int(3) == 0 { c.after.paging.toggle(); keys.append("\"pagingEnabled\": \(c.after.paging)") }
        if rng.int(3) == 0 { c.after.bounces.toggle(); keys.append("\"bounces\": \(c.after.bounces)") }
        if rng.int(4) == 0 { keys.append("\"decelerationRate\": \"fast\"") }
        if rng.int(4) == 0 { c.after.viewHeight = 200 + 40 * rng.int(20); top.append("\"frame\": [0, 0, 400, \(c.after.viewHeight)]") }
        if rng.int(5) == 0 { c.setsOffset = true; top.append("\"boundsOrigin\": [0, \(rng.int(c.after.height))]") }
        if !keys.isEmpty { top.append("\"scroll\": {" + keys.joined(separator: ", ") + "}") }
        if top.isEmpty { top.append("\"scroll\": {\"contentSize\": [400, \(c.height)]}") }
        c.change = "{" + top.joined(separator: ", ") + "}"
        return c
    }

    @Test(arguments: 0..<8)
    func aChangeDuringAFlingRestsAtAValidOffset(_ seed: Int) {
        var rng = RNG(state: UInt64(seed) &* 104_729 &+ 31)
        for _ in 0..<40 {
            let c = ScrollClientChangePropertyTests.randomCase(&rng)
            let r = Rig(config(liveBase))
            let attach = """
                {"attach": {"id": "feed", "frame": [0, 0, 400, 480], "level": 1,
                            "view": {"id": "list", "frame": [0, 0, 400, 480],
                                     "scroll": {"contentSize": [400, \(c.height)], "pagingEnabled": \(c.paging), "bounces": \(c.bounces)}}}}
                """
            #expect(r.send(attach, from: 1) == .attached(window: "feed", version: 1))
            let list = r.scene.viewIndex["list"]!
            // A flick either way at 500…6,000 points a second, from anywhere on the screen.
            var f = Finger()
            f.time = r.finger.time
            let up = rng.int(2) == 0
            let step = Int32(5 + rng.int(56)) * (up ? -1 : 1)
            let y0 = up ? Int32(440) : Int32(40)
            f.down(0, 200, y0); f.syn(after: 10)
            for k in 1...6 { f.move(0, 200, y0 + step * Int32(k)); f.syn(after: 10) }
            f.up(0); f.syn()
            r.feed(f)
            let changeAt = f.time + Int64(rng.int(400)) * 1000
            r.advance(to: changeAt)
            guard r.engine.scrolls.isMoving(list) else { continue }
            r.finger.time = changeAt
            let before = r.messages.count
            let reply = r.send(#"{"update": {"window": "feed", "changes": [{"view": "list", "set": \#(c.change)}]}}"#, from: 1)
            #expect(reply == .updated(window: "feed", version: 2), "\(c)")
            r.advance(to: changeAt + 12_000_000)
            #expect(!r.engine.scrolls.isMoving(list), "\(c)")
            let after = r.scrolls(from: before)
            let offset = r.scene[list].boundsOrigin
            if let last = after.last { #expect(last.offset == offset && !last.decelerating && !last.dragging, "\(c)") }
            if c.setsOffset { continue }   // the client's own offset is the client's to choose
            let maximum = Double(max(0, c.after.height - c.after.viewHeight))
            #expect(offset.x == 0 && offset.y >= 0 && offset.y <= maximum, "\(c): rests at \(offset)")
            if c.after.paging && maximum > 0 {
                let page = Double(c.after.viewHeight)
                #expect(offset.y == maximum || offset.y == (offset.y / page).rounded() * page, "\(c): rests between pages at \(offset)")
            }
            if !c.after.bounces {
                #expect(after.allSatisfy { $0.offset.y >= 0 && $0.offset.y <= maximum }, "\(c): \(after.map(\.offset.y))")
            }
        }
    }
}
