/// UIKit's accessibility rules over the scene (docs/config.md "Accessibility"): which views are
/// elements and with which traits, what is not read, the reading order of an output, and the
/// accessibility hit-test (the element under a finger, beside the touch hit-test). Pure reads of
/// the scene, tested with plain values (AccessibilityTreeTests).

/// Why a view and everything under it are not read.
public enum AccessibilityGate: String, Sendable, Equatable {
    /// `hidden` (the view, or the window).
    case hidden
    /// `alpha` below 0.01, as the touch hit-test's gate.
    case alpha
    /// `accessibility.hidden` (accessibilityElementsHidden).
    case accessibilityHidden
}

/// One step of an accessibility hit-test's trace, in call order.
public struct AccessibilityStep: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The walk starts at the output's modal view: nothing else is read.
        case modal
        case visit
        case gate(AccessibilityGate)
        /// An element: whether the point is inside its frame.
        case frame(Bool)
        /// What the view returned (nil: nothing under the point).
        case result(ViewIndex?)
    }
    public var view: ViewIndex
    public var kind: Kind
    public init(view: ViewIndex, kind: Kind) { self.view = view; self.kind = kind }
}

extension Scene {
    /// Why `v` and its subtree are not read (nil: they may be).
    public func accessibilityGate(_ v: ViewIndex) -> AccessibilityGate? {
        let n = self[v]
        if n.hidden { return .hidden }
        if n.alpha < 0.01 { return .alpha }
        if n.accessibility?.hidden == true { return .accessibilityHidden }
        return nil
    }

    /// isAccessibilityElement: as given, else a control or a view with a label is one. A window
    /// never is (UIWindow is a container).
    public func isAccessibilityElement(_ v: ViewIndex) -> Bool {
        let n = self[v]
        if n.isWindow { return false }
        if let e = n.accessibility?.element { return e }
        return n.control != nil || n.accessibility?.label != nil
    }

    /// accessibilityTraits: as given, else `button` for a control; a disabled control is
    /// `notEnabled` whatever was given (UIControl's, read from `enabled` each time).
    public func accessibilityTraits(_ v: ViewIndex) -> AccessibilityTraits {
        let n = self[v]
        var t = n.accessibility?.traits ?? (n.control != nil ? .button : [])
        if n.control != nil && !n.enabled { t.insert(.notEnabled) }
        return t
    }

    /// A point of `v`'s superview's coordinates in its output's points (a window's own
    /// frame is already there).
    func screenPoint(_ p: Point, inSuperviewOf v: ViewIndex) -> Point {
        var q = p
        var c = self[v].isWindow ? nil : self[v].superview
        while let s = c {
            let node = self[s]
            q = q - node.boundsOrigin + node.frame.origin
            if node.isWindow { break }
            c = node.superview
        }
        return q
    }

    /// The view's frame in its output's points (the accessibilityFrame).
    public func screenFrame(of v: ViewIndex) -> Rect {
        Rect(origin: screenPoint(self[v].frame.origin, inSuperviewOf: v), size: self[v].frame.size)
    }

    /// Where an activation taps, in the output's points: `activationPoint` (superview
    /// coordinates, as `frame`), else the centre of the frame.
    public func activationPoint(of v: ViewIndex) -> Point {
        if let p = self[v].accessibility?.activationPoint { return screenPoint(p, inSuperviewOf: v) }
        let f = screenFrame(of: v)
        return Point(f.midX, f.midY)
    }

    /// The view whose `modal` confines reading on output `o`: the first found from the top —
    /// windows topmost first, in each the subviews on top first — among the views that are read.
    public func accessibilityModal(output o: Int) -> ViewIndex? {
        func find(_ v: ViewIndex) -> ViewIndex? {
            guard accessibilityGate(v) == nil else { return nil }
            if self[v].accessibility?.modal == true { return v }
            for s in self[v].subviews.reversed() { if let m = find(s) { return m } }
            return nil
        }
        for w in windowOrder where self[w].output == o { if let m = find(w) { return m } }
        return nil
    }

    /// Every element of output `o` in reading order: windows from the highest level down (the
    /// touch hit-test's order), in each its elements as `accessibilityChildren` orders them;
    /// only the modal view's subtree while there is one.
    public func readingOrder(output o: Int) -> [ViewIndex] {
        var out: [ViewIndex] = []
        func collect(_ v: ViewIndex) {
            guard accessibilityGate(v) == nil else { return }
            if isAccessibilityElement(v) { out.append(v); return }
            for c in accessibilityChildren(of: v) { collect(c) }
        }
        if let m = accessibilityModal(output: o) { collect(m); return out }
        for w in windowOrder where self[w].output == o { collect(w) }
        return out
    }

    /// A container's children in reading order: the views its `order` lists (those of its
    /// subtree, nothing gated between them and it), or its subviews by place: top to bottom
    /// in rows, each row left to right (`byPlace`).
    public func accessibilityChildren(of v: ViewIndex) -> [ViewIndex] {
        guard let ids = self[v].accessibility?.order else { return byPlace(self[v].subviews) }
        return ids.compactMap { id in
            guard let x = viewIndex[id], x != v, let path = pathUp(from: x, to: v) else { return nil }
            return path.allSatisfy { accessibilityGate($0) == nil } ? x : nil
        }
    }

    /// The views strictly between `x` and its ancestor `a` (nil when `a` is no ancestor).
    func pathUp(from x: ViewIndex, to a: ViewIndex) -> [ViewIndex]? {
        var out: [ViewIndex] = []
        var c = self[x].superview
        while let s = c {
            if s == a { return out }
            out.append(s)
            c = self[s].superview
        }
        return nil
    }

    /// Views sorted as VoiceOver reads a screen: by their top edge; one starts a new row unless
    /// its vertical extent overlaps that of the row's first view by at least half the shorter
    /// of the two heights (a label beside a taller button, centred on it, is on its row; two
    /// stacked buttons are not); each row left to right. Stable for equal places.
    public func byPlace(_ views: [ViewIndex]) -> [ViewIndex] {
        guard views.count > 1 else { return views }
        var items: [Placed] = []
        items.reserveCapacity(views.count)
        for (k, v) in views.enumerated() { items.append(Placed(k: k, v: v, f: screenFrame(of: v))) }
        items.sort(by: Placed.topFirst)
        var out: [ViewIndex] = []
        out.reserveCapacity(views.count)
        var row: [Placed] = []
        for item in items {
            if let anchor = row.first, !Scene.sameRow(anchor.f, item.f) {
                out += row.sorted(by: Placed.leftFirst).map(\.v)
                row.removeAll(keepingCapacity: true)
            }
            row.append(item)
        }
        out += row.sorted(by: Placed.leftFirst).map(\.v)
        return out
    }

    /// A view with its frame on the screen and its place among its siblings (ties).
    struct Placed {
        var k: Int
        var v: ViewIndex
        var f: Rect
        static func topFirst(_ a: Placed, _ b: Placed) -> Bool {
            if a.f.minY != b.f.minY { return a.f.minY < b.f.minY }
            if a.f.minX != b.f.minX { return a.f.minX < b.f.minX }
            return a.k < b.k
        }
        static func leftFirst(_ a: Placed, _ b: Placed) -> Bool {
            if a.f.minX != b.f.minX { return a.f.minX < b.f.minX }
            if a.f.minY != b.f.minY { return a.f.minY < b.f.minY }
            return a.k < b.k
        }
    }

    /// The row rule of `byPlace`: the vertical extents overlap by at least half the shorter
    /// height (two views of no height: the same top).
    static func sameRow(_ a: Rect, _ b: Rect) -> Bool {
        let shorter = min(a.size.height, b.size.height)
        if shorter <= 0 { return a.minY == b.minY }
        return min(a.maxY, b.maxY) - max(a.minY, b.minY) >= shorter / 2
    }

    /// The element under screen point `p` of output `o` (VoiceOver's explore): windows topmost
    /// first (only the modal view while there is one), in each the views on top first — a
    /// container's `order`, last listed first, instead of its subviews — gated as for reading;
    /// an element answers when `p` is in its frame (not its hit area: `hitOutset`, `shape` and
    /// `hitTest` are the touch hit-test's; a container does not clip its elements).
    public func accessibilityHitTest(screen p: Point, output o: Int, tracing: Bool, trace: inout [AccessibilityStep]) -> ViewIndex? {
        func hit(_ v: ViewIndex) -> ViewIndex? {
            if tracing { trace.append(AccessibilityStep(view: v, kind: .visit)) }
            if let g = accessibilityGate(v) {
                if tracing { trace += [AccessibilityStep(view: v, kind: .gate(g)), AccessibilityStep(view: v, kind: .result(nil))] }
                return nil
            }
            if isAccessibilityElement(v) {
                let inside = screenFrame(of: v).contains(p)
                if tracing { trace += [AccessibilityStep(view: v, kind: .frame(inside)), AccessibilityStep(view: v, kind: .result(inside ? v : nil))] }
                return inside ? v : nil
            }
            let candidates = self[v].accessibility?.order != nil ? accessibilityChildren(of: v) : self[v].subviews
            for c in candidates.reversed() {
                if let r = hit(c) {
                    if tracing { trace.append(AccessibilityStep(view: v, kind: .result(r))) }
                    return r
                }
            }
            if tracing { trace.append(AccessibilityStep(view: v, kind: .result(nil))) }
            return nil
        }
        if let m = accessibilityModal(output: o) {
            if tracing { trace.append(AccessibilityStep(view: m, kind: .modal)) }
            return hit(m)
        }
        for w in windowOrder where self[w].output == o {
            if let r = hit(w) { return r }
        }
        return nil
    }

    /// The scroll view a view scrolls with: itself or its nearest ancestor that is one.
    public func enclosingScrollView(of v: ViewIndex) -> ViewIndex? {
        var c: ViewIndex? = v
        while let x = c {
            if self[x].scroll != nil { return x }
            c = self[x].superview
        }
        return nil
    }
}

extension MessageEncoder {
    /// An accessibility hit-test's steps: `{"view":…,"step":"visit"}`, `"gate"` with its
    /// reason, `"frame"` with whether the point is inside an element's frame, `"return"` with
    /// the element (null for none), and `"modal"` where the walk starts at a modal view.
    public func encodeAccessibilityTrace(_ trace: [AccessibilityStep], _ out: inout [UInt8]) {
        raw("[", &out)
        for (k, s) in trace.enumerated() {
            if k > 0 { raw(",", &out) }
            raw("{\"view\":", &out)
            nodeID(s.view, &out)
            switch s.kind {
            case .modal: raw(",\"step\":\"modal\"}", &out)
            case .visit: raw(",\"step\":\"visit\"}", &out)
            case .gate(let g):
                raw(",\"step\":\"gate\",\"result\":", &out)
                JSONWriter.appendString(g.rawValue, to: &out)
                raw("}", &out)
            case .frame(let b): raw(b ? ",\"step\":\"frame\",\"result\":true}" : ",\"step\":\"frame\",\"result\":false}", &out)
            case .result(let r):
                raw(",\"step\":\"return\",\"result\":", &out)
                nodeID(r, &out)
                raw("}", &out)
            }
        }
        raw("]", &out)
    }
}
