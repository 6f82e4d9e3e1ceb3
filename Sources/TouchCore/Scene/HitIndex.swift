/// A spatial index over a view's subviews, so that hit-testing a view with many subviews does
/// not ask each of them in turn. It never decides anything: it only skips the subviews that
/// cannot hit at a point, and hands over the others in the linear walk's order (topmost
/// first), so hit-testing returns exactly what the walk returns (a differential test over
/// random scenes proves it). With a trace, hit-testing walks every subview as UIKit does.
///
/// What a subview can hit — its *reach*, in its superview's coordinates — is its hit rectangle
/// (frame, bounds origin, hitOutset; an ellipse lies inside it): in UIKit's default mode, and
/// for `passthrough` and `self`, nothing under a view hits outside the view's own hit area,
/// because pointInside is asked first. With `outsideChildren` the reach also takes in the
/// reach of every subview. A gated view (hidden, interaction off, alpha, disabled, `none`)
/// reaches nothing. Reaches are grown by a hair so that rounding in the two ways of
/// converting a point can only add candidates, never lose one.
///
/// The index is a uniform grid over the bounding box of the reaches; each cell lists the
/// subviews whose reach overlaps it, topmost first. It is built when a hit-test needs it and
/// dropped by any change to the subviews or to what they reach (Scene's mutations call
/// `invalidateSubviews` and `invalidateReach`).

struct HitIndex: Sendable {
    /// Views with fewer subviews are walked (the walk is as fast).
    static let threshold = 16
    static let epsilon = 1e-6

    var minX = 0.0, minY = 0.0, cellW = 1.0, cellH = 1.0
    var cols = 1, rows = 1
    /// Cell c's entries are entries[cellStart[c] ..< cellStart[c + 1]].
    var cellStart: [Int32] = [0, 0]
    /// Positions in the superview's `subviews`, descending within a cell.
    var entries: [Int32] = []
    /// Per position: its reach (grown), or nil.
    var reach: [Rect?] = []

    /// Positions whose reach contains `p`, topmost first.
    @inline(__always)
    func forEachCandidate(_ p: Point, _ body: (Int) -> Bool) {
        let fx = (p.x - minX) / cellW, fy = (p.y - minY) / cellH
        guard fx >= 0, fy >= 0, fx < Double(cols), fy < Double(rows) else { return }
        let c = Int(fy) * cols + Int(fx)
        var i = Int(cellStart[c])
        let end = Int(cellStart[c + 1])
        while i < end {
            let k = Int(entries[i])
            if let r = reach[k], p.x >= r.minX, p.x <= r.maxX, p.y >= r.minY, p.y <= r.maxY {
                if body(k) { return }
            }
            i += 1
        }
    }

    init() {}

    init(reaches: [Rect?]) {
        reach = reaches
        var box: Rect?
        var n = 0
        for r in reaches {
            guard let r else { continue }
            n += 1
            box = box.map { union($0, r) } ?? r
        }
        guard let box, n > 0 else { return }
        minX = box.minX
        minY = box.minY
        let w = max(box.size.width, 1e-9), h = max(box.size.height, 1e-9)
        // About one cell per subview, shaped like the box; coarser while the entries would be
        // many times the subviews (big overlapping reaches in every cell).
        var cells = max(1, n)
        while true {
            // Clamped as Doubles before converting: a box millions of times wider than high (or
            // infinitely: frames far apart) made a column count beyond Int (a trap, found by
            // the scenebig fuzzer).
            cols = Int(HitIndex.gridCount((Double(cells) * w / h).squareRoot()))
            rows = Int(HitIndex.gridCount(Double(cells) / Double(cols)))
            cellW = w / Double(cols)
            cellH = h / Double(rows)
            var total = 0
            for r in reaches {
                guard let r else { continue }
                let (c0, c1, r0, r1) = span(r)
                total += (c1 - c0 + 1) * (r1 - r0 + 1)
            }
            if total <= 8 * n + 64 || (cols == 1 && rows == 1) { break }
            cells /= 4
        }
        var counts = [Int32](repeating: 0, count: cols * rows + 1)
        for r in reaches {
            guard let r else { continue }
            let (c0, c1, r0, r1) = span(r)
            for row in r0...r1 { for col in c0...c1 { counts[row * cols + col + 1] += 1 } }
        }
        for c in 1..<counts.count { counts[c] += counts[c - 1] }
        cellStart = counts
        var fill = Array(counts.dropLast())
        entries = [Int32](repeating: 0, count: Int(counts[cols * rows]))   // the running total
        // Topmost (last) subviews first in every cell.
        for k in reaches.indices.reversed() {
            guard let r = reaches[k] else { continue }
            let (c0, c1, r0, r1) = span(r)
            for row in r0...r1 {
                for col in c0...c1 {
                    let c = row * cols + col
                    entries[Int(fill[c])] = Int32(k)
                    fill[c] += 1
                }
            }
        }
    }

    /// A number of columns or rows: rounded, between 1 and 1,024 (NaN: 1).
    static func gridCount(_ v: Double) -> Double { v.isNaN ? 1 : min(1024, max(1, v.rounded())) }

    /// The cells a rectangle overlaps (clamped to the grid; NaN, from infinite extents, is 0).
    func span(_ r: Rect) -> (Int, Int, Int, Int) {
        func clamp(_ v: Double, _ n: Int) -> Int { !(v > 0) ? 0 : v >= Double(n - 1) ? n - 1 : Int(v) }
        return (clamp((r.minX - minX) / cellW, cols), clamp((r.maxX - minX) / cellW, cols),
                clamp((r.minY - minY) / cellH, rows), clamp((r.maxY - minY) / cellH, rows))
    }
}

func union(_ a: Rect, _ b: Rect) -> Rect {
    let x0 = min(a.minX, b.minX), y0 = min(a.minY, b.minY)
    return Rect(x0, y0, max(a.maxX, b.maxX) - x0, max(a.maxY, b.maxY) - y0)
}

extension Scene {
    /// Where view `v` can hit, in its superview's coordinates (nil: nowhere).
    func reach(of v: ViewIndex) -> Rect? {
        let node = self[v]
        guard node.gate == nil else { return nil }
        let hr = node.hitRect
        var own: Rect? = hr.size.width > 0 && hr.size.height > 0 ? hr : nil
        if node.hitMode == .outsideChildren {
            for s in node.subviews {
                guard let r = reach(of: s) else { continue }
                own = own.map { union($0, r) } ?? r
            }
        }
        guard let r = own else { return nil }
        let e = HitIndex.epsilon * max(1, abs(r.minX), abs(r.minY), abs(r.maxX), abs(r.maxY))
        // Into the superview's coordinates: the view's bounds origin sits at its frame origin.
        return Rect(r.minX + node.frame.origin.x - node.boundsOrigin.x - e, r.minY + node.frame.origin.y - node.boundsOrigin.y - e,
                    r.size.width + 2 * e, r.size.height + 2 * e)
    }

    /// The index of `v`'s subviews, built now.
    func makeHitIndex(_ v: ViewIndex) -> HitIndex {
        HitIndex(reaches: self[v].subviews.map { reach(of: $0) })
    }

    /// `v`'s list of subviews changed: its index goes; and when it asks its subviews outside
    /// its bounds, what it reaches changed too.
    mutating func invalidateSubviews(of v: ViewIndex) {
        if hitIndexes[v] != nil { hitIndexes[v] = nil }
        if views[v.rawValue].subviews.count >= HitIndex.threshold { hitIndexStale.insert(v) }
        if views[v.rawValue].hitMode == .outsideChildren { invalidateReach(of: v) }
    }

    /// View `v` itself changed in what it reaches: its superview's index goes.
    mutating func invalidateReach(of v: ViewIndex) {
        var c = v
        while let sup = views[c.rawValue].superview {
            if hitIndexes[sup] != nil { hitIndexes[sup] = nil }
            if views[sup.rawValue].subviews.count >= HitIndex.threshold { hitIndexStale.insert(sup) }
            // An ancestor that asks outside its bounds reaches what this one reaches.
            guard views[sup.rawValue].hitMode == .outsideChildren else { break }
            c = sup
        }
    }

    /// Builds the indexes that changes dropped (the engine calls this before a hit-test).
    public mutating func refreshHitIndexes() {
        guard !hitIndexStale.isEmpty else { return }
        for v in hitIndexStale where v.rawValue < views.count && !views[v.rawValue].removed
            && views[v.rawValue].subviews.count >= HitIndex.threshold {
            hitIndexes[v] = makeHitIndex(v)
        }
        hitIndexStale.removeAll(keepingCapacity: true)
    }
}
