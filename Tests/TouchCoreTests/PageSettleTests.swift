import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 31, item 3: page settles and spring-backs pinned on their whole path, every published
/// frame, not only where they rest. UIKit: with `bounces = false` the offset never leaves the
/// content; a page settle decelerates into its page without showing the next one; the spring
/// that brings content back is critically damped (it never swings past its target).
@Suite struct PageSettleTests {
    typealias RNG = SplitMix64

    /// Every offset a motion publishes along one axis (y), from a release.
    static func path(offset: Double, velocity: Double, page: Double, content: Double, paging: Bool, bounces: Bool) -> [Double] {
        var spec = ScrollSpec(contentSize: Size(page, content))
        spec.pagingEnabled = paging
        spec.bounces = bounces
        var p = ScrollPhysics()
        p.release(ViewIndex(1), offset: Point(0, offset), velocity: Point(0, velocity), spec: spec, size: Size(page, page), time: 0)
        var out: [Double] = []
        var t: Int64 = 0
        while !p.isEmpty && t < ScrollPhysics.maximumDuration {
            t += ScrollPhysics.frameInterval
            for f in p.advance(to: t) { out.append(f.offset.y) }
        }
        return out
    }

    /// Releases over random flick velocities (−8,000…8,000 points a second), page sizes
    /// (100…800 points), 2…6 pages, offsets anywhere in the content (or, with bounces, up to a
    /// third of a page past either end), seeded.
    static func releases(seed: UInt64, count: Int = 400) -> [(offset: Double, velocity: Double, page: Double, content: Double, bounces: Bool)] {
        var rng = RNG(state: seed)
        return (0..<count).map { _ in
            let page = Double(100 + rng.int(701))
            let content = page * Double(2 + rng.int(5))
            let bounces = rng.int(2) == 0
            let reach = bounces ? page / 3 : 0
            let offset = -reach + Double(rng.int(Int(content - page + 2 * reach) + 1))
            let velocity = Double(rng.int(16_001)) - 8_000
            return (offset, velocity, page, content, bounces)
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func aPageSettleMovesOnlyTowardItsPageAndNeverPastIt(_ seed: UInt64) {
        for r in PageSettleTests.releases(seed: seed) {
            let path = PageSettleTests.path(offset: r.offset, velocity: r.velocity, page: r.page, content: r.content, paging: true, bounces: r.bounces)
            let maximum = r.content - r.page
            guard let end = path.last else {
                // Nothing moved: the release was already on a page.
                #expect(r.offset == (r.offset / r.page).rounded() * r.page, "\(r)")
                continue
            }
            let where_ = "\(r) path \(path.prefix(8))…\(path.suffix(3))"
            // It rests on a page (a multiple of the page, or the last offset).
            #expect(end == maximum || end == (end / r.page).rounded() * r.page, "\(where_)")
            // The page next to where it was released, the flick's way (UIKit turns one page).
            let inward = min(max(r.offset, 0), maximum)
            #expect(abs(end - inward) <= r.page, "skipped a page: \(where_)")
            if r.velocity > ScrollPhysics.pageFlickSpeed && r.offset >= 0 && r.offset < maximum { #expect(end > r.offset, "\(where_)") }
            if r.velocity < -ScrollPhysics.pageFlickSpeed && r.offset > 0 && r.offset <= maximum { #expect(end < r.offset, "\(where_)") }
            // Released within the content, every frame is between the release and the page:
            // never back, never past it. Released past an edge (a spring back onto the first or
            // last page), it may run on outward first, and never passes its page either.
            let inContent = r.offset >= 0 && r.offset <= maximum
            var last = r.offset
            for y in path {
                #expect(end >= r.offset ? y <= end : y >= end, "passed its page: \(y) \(where_)")
                if inContent {
                    #expect(min(r.offset, end) <= y && y <= max(r.offset, end), "left its way: \(y) \(where_)")
                    #expect(end >= r.offset ? y >= last : y <= last, "turned back: \(y) \(where_)")
                }
                last = y
                if !r.bounces { #expect(y >= 0 && y <= maximum, "left the content: \(y) \(where_)") }
            }
        }
    }

    @Test(arguments: [UInt64(4), 5])
    func withoutBouncesNoFrameLeavesTheContent(_ seed: UInt64) {
        for r in PageSettleTests.releases(seed: seed) where !r.bounces {
            for paging in [false, true] {
                let path = PageSettleTests.path(offset: r.offset, velocity: r.velocity, page: r.page, content: r.content, paging: paging, bounces: false)
                #expect(path.allSatisfy { $0 >= 0 && $0 <= r.content - r.page }, "\(r) paging \(paging): \(path.filter { $0 < 0 || $0 > r.content - r.page }.prefix(3))")
            }
        }
    }

    /// A spring back from past an edge, let go still or flung either way: critically damped,
    /// it comes to the edge and never swings past it into the content.
    @Test(arguments: [UInt64(6), 7])
    func aSpringBackNeverSwingsPastTheEdge(_ seed: UInt64) {
        var rng = RNG(state: seed)
        for _ in 0..<300 {
            let page = Double(100 + rng.int(701))
            let content = page * 3
            let past = 1 + Double(rng.int(Int(page / 3)))
            let top = rng.int(2) == 0
            let offset = top ? -past : content - page + past
            let velocity = Double(rng.int(16_001)) - 8_000
            let edge = top ? 0 : content - page
            let path = PageSettleTests.path(offset: offset, velocity: velocity, page: page, content: content, paging: false, bounces: true)
            #expect(path.last == edge, "\(offset) \(velocity): \(path.suffix(3))")
            #expect(path.allSatisfy { top ? $0 <= 0 : $0 >= edge }, "swung into the content: \(offset) \(velocity) \(path.filter { top ? $0 > 0 : $0 < edge }.prefix(3))")
        }
    }

    /// Let go still past the edge, the spring's distance to the edge shrinks every frame: the
    /// damping is critical (2ω), not weaker.
    @Test func aStillSpringBackApproachesTheEdgeEveryFrame() {
        let path = PageSettleTests.path(offset: -120, velocity: 0, page: 400, content: 1200, paging: false, bounces: true)
        #expect(path.count > 10)
        #expect(zip(path, path.dropFirst()).allSatisfy { $0 < $1 && $1 <= 0 }, "\(path)")
        #expect(path.last == 0)
    }

    // MARK: Through the engine, as the issue measured

    func pager(bounces: Bool) -> Config {
        scene("""
            {"id": "pager", "frame": [0, 0, 400, 400], "scroll": {"contentSize": [400, 1200], "pagingEnabled": true, "bounces": \(bounces)}}
            """)
    }

    /// A flick upward from y 380 of 40 points every 5 ms (8,000 points a second).
    func flick(_ r: Rig, from y: Int32 = 380, steps: Int = 8, step: Int32 = 40) {
        var f = Finger()
        f.down(0, 200, y); f.syn(after: 5)
        for k in 1...steps { f.move(0, 200, y - step * Int32(k)); f.syn(after: 5) }
        f.up(0); f.syn()
        r.feed(f)
    }


    @Test(arguments: [false, true])
    func aHardFlickSettlesOnTheNextPageWithoutShowingTheOneAfter(_ bounces: Bool) {
        let r = Rig(pager(bounces: bounces))
        flick(r)
        r.advance(to: 5_000_000)
        let moving = r.scrolls().filter { !$0.dragging }
        let released = r.scrolls().last { $0.dragging }?.offset.y ?? 0
        #expect(released > 200 && released < 400, "\(released)")
        #expect(moving.last?.offset.y == 400)
        #expect(moving.allSatisfy { $0.offset.y >= released && $0.offset.y <= 400 }, "\(moving.map(\.offset.y))")
    }
}
