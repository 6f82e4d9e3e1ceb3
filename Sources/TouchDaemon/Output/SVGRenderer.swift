import TouchCore

/// The SVG of `touchd render`: windows bottom to top, views with ids, hit areas, marks, trails.
struct SVGRenderer {
    /// The scene drawn: the config's, or a live scene's at one moment (`render --scene`).
    let scene: Scene
    /// The display drawn (an index in the scene's outputs): its point space and its windows.
    let output: Int
    let touches: [SummarySink.TouchLog]
    /// Touches a session swallowed (render marks them), and the system gestures of the output.
    var swallowed: [[Point]] = []
    var gestures: [SystemGestureSettings] = []
    static let palette = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324", "#469990", "#808000"]

    static func esc(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    static func n(_ v: Double) -> String {
        var out: [UInt8] = []
        JSONWriter.appendDouble(v, digits: 2, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Why a view does not take touches, if it does not.
    func greyReason(_ v: ViewNode) -> String? {
        if v.hidden { return "hidden" }
        if !v.userInteractionEnabled { return "interaction off" }
        if v.alpha < 0.01 { return "alpha < 0.01" }
        if v.control != nil && !v.enabled { return "disabled" }
        return nil
    }

    func svg() -> String {
        let size = scene.outputs[output].pointSize, several = scene.outputs.count > 1
        let w = size.width, h = size.height
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(SVGRenderer.n(w))\" height=\"\(SVGRenderer.n(h))\" viewBox=\"0 0 \(SVGRenderer.n(w)) \(SVGRenderer.n(h))\" font-family=\"sans-serif\" font-size=\"11\">\n"
        s += several ? "<title>touchd scene, output \(SVGRenderer.esc(scene.outputs[output].id))</title>\n" : "<title>touchd scene</title>\n"
        s += "<rect id=\"screen\" x=\"0\" y=\"0\" width=\"\(SVGRenderer.n(w))\" height=\"\(SVGRenderer.n(h))\" fill=\"#f7f7f7\" stroke=\"#333\"/>\n"
        for win in scene.windowOrder.reversed() where !several || scene[win].output == output {
            let node = scene[win]
            let origin = node.frame.origin
            s += "<g class=\"window\" id=\"window-\(SVGRenderer.esc(node.id))\" data-level=\"\(SVGRenderer.n(node.level))\">\n"
            s += "  <rect class=\"window-frame\" x=\"\(SVGRenderer.n(origin.x))\" y=\"\(SVGRenderer.n(origin.y))\" width=\"\(SVGRenderer.n(node.frame.size.width))\" height=\"\(SVGRenderer.n(node.frame.size.height))\" fill=\"white\" fill-opacity=\"0.6\" stroke=\"#222\" stroke-width=\"2\"/>\n"
            s += "  <text x=\"\(SVGRenderer.n(origin.x + 4))\" y=\"\(SVGRenderer.n(origin.y + node.frame.size.height - 4))\" fill=\"#222\" font-weight=\"bold\">window \(SVGRenderer.esc(node.id))</text>\n"
            drawSubviews(of: win, window: win, inheritedGrey: nil, into: &s)
            s += "</g>\n"
        }
        for (k, t) in touches.enumerated() {
            let colour = SVGRenderer.palette[k % SVGRenderer.palette.count]
            guard let first = t.points.first, let last = t.points.last else { continue }
            s += "<g class=\"touch\" data-id=\"\(t.id)\" data-view=\"\(SVGRenderer.esc(t.view ?? ""))\" data-end=\"\(SVGRenderer.esc(t.ending))\">\n"
            s += "  <polyline class=\"trail\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"3\" stroke-linejoin=\"round\" points=\"" + t.points.map { "\(SVGRenderer.n($0.x)),\(SVGRenderer.n($0.y))" }.joined(separator: " ") + "\"/>\n"
            s += "  <circle class=\"start\" cx=\"\(SVGRenderer.n(first.x))\" cy=\"\(SVGRenderer.n(first.y))\" r=\"7\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            if t.ending.hasPrefix("cancelled") {
                s += "  <path class=\"end cancelled\" d=\"M\(SVGRenderer.n(last.x - 6)),\(SVGRenderer.n(last.y - 6)) L\(SVGRenderer.n(last.x + 6)),\(SVGRenderer.n(last.y + 6)) M\(SVGRenderer.n(last.x + 6)),\(SVGRenderer.n(last.y - 6)) L\(SVGRenderer.n(last.x - 6)),\(SVGRenderer.n(last.y + 6))\" stroke=\"\(colour)\" stroke-width=\"3\"/>\n"
            } else {
                s += "  <circle class=\"end ended\" cx=\"\(SVGRenderer.n(last.x))\" cy=\"\(SVGRenderer.n(last.y))\" r=\"4\" fill=\"\(colour)\"/>\n"
            }
            s += "  <text x=\"\(SVGRenderer.n(first.x + 9))\" y=\"\(SVGRenderer.n(first.y - 9))\" fill=\"\(colour)\" font-weight=\"bold\">#\(t.id) → \(SVGRenderer.esc(t.view ?? "nothing"))</text>\n"
            s += "</g>\n"
        }
        s += kioskMarks()
        s += "</svg>\n"
        return s
    }

    func drawSubviews(of parent: ViewIndex, window: ViewIndex, inheritedGrey: String?, into s: inout String) {
        let worigin = scene[window].frame.origin
        for v in scene[parent].subviews {
            let node = scene[v]
            // The view's bounds in window coordinates: boundsOrigin − offset.
            let topLeft = node.boundsOrigin - scene.convert(windowPoint: .zero, to: v) + worigin
            let rect = Rect(origin: topLeft, size: node.frame.size)
            let grey = greyReason(node) ?? inheritedGrey
            var marks: [String] = []
            var dash = ""
            var width = "1"
            switch node.hitMode {
            case .none: marks.append("pass-through"); dash = " stroke-dasharray=\"2 3\""
            case .passthrough: marks.append("passes through, subviews hit"); dash = " stroke-dasharray=\"2 3\""
            case .self: marks.append("intercepts"); width = "3"
            case .outsideChildren: marks.append("asks children outside its bounds")
            case .default: break
            }
            if let g = greyReason(node) { marks.append(g) }
            if node.control != nil { marks.append(node.control!.rawValue) }
            if node.scroll != nil { marks.append("scroll") }
            if !node.gestures.isEmpty { marks.append(node.gestures.map { "\($0.kind.name.rawValue) \($0.id)" }.joined(separator: ", ")) }
            let fill = grey != nil ? "#d0d0d0" : (node.control != nil ? "#cfe3ff" : "#ffffff")
            let stroke = grey != nil ? "#999" : "#555"
            s += "  <g class=\"view\(grey != nil ? " greyed" : "")\" data-id=\"\(SVGRenderer.esc(node.id))\">\n"
            s += "    <rect class=\"frame\" x=\"\(SVGRenderer.n(rect.minX))\" y=\"\(SVGRenderer.n(rect.minY))\" width=\"\(SVGRenderer.n(rect.size.width))\" height=\"\(SVGRenderer.n(rect.size.height))\" fill=\"\(fill)\" fill-opacity=\"0.7\" stroke=\"\(stroke)\" stroke-width=\"\(width)\"\(dash)/>\n"
            let hit = node.hitRect
            let hitTopLeft = hit.origin - scene.convert(windowPoint: .zero, to: v) + worigin
            if node.shape == .ellipse {
                s += "    <ellipse class=\"hit-area\" cx=\"\(SVGRenderer.n(hitTopLeft.x + hit.size.width / 2))\" cy=\"\(SVGRenderer.n(hitTopLeft.y + hit.size.height / 2))\" rx=\"\(SVGRenderer.n(hit.size.width / 2))\" ry=\"\(SVGRenderer.n(hit.size.height / 2))\" fill=\"none\" stroke=\"#0a7\" stroke-dasharray=\"5 3\"/>\n"
            } else if !node.hitOutset.isZero {
                s += "    <rect class=\"hit-area\" x=\"\(SVGRenderer.n(hitTopLeft.x))\" y=\"\(SVGRenderer.n(hitTopLeft.y))\" width=\"\(SVGRenderer.n(hit.size.width))\" height=\"\(SVGRenderer.n(hit.size.height))\" fill=\"none\" stroke=\"#0a7\" stroke-dasharray=\"5 3\"/>\n"
            }
            let label = node.id + (marks.isEmpty ? "" : " (" + marks.joined(separator: "; ") + ")")
            s += "    <text x=\"\(SVGRenderer.n(rect.minX + 3))\" y=\"\(SVGRenderer.n(rect.minY + 12))\" fill=\"\(grey != nil ? "#888" : "#111")\">\(SVGRenderer.esc(label))</text>\n"
            s += "  </g>\n"
            // A scroll view shows its content through its frame only (UIScrollView clips, and
            // touchd hits nothing of it outside): rows scrolled away are not drawn over others.
            if node.scroll != nil, !node.subviews.isEmpty {
                s += "  <clipPath id=\"clip-\(v.rawValue)\"><rect x=\"\(SVGRenderer.n(rect.minX))\" y=\"\(SVGRenderer.n(rect.minY))\" width=\"\(SVGRenderer.n(rect.size.width))\" height=\"\(SVGRenderer.n(rect.size.height))\"/></clipPath>\n"
                s += "  <g class=\"content\" data-scroll=\"\(SVGRenderer.esc(node.id))\" clip-path=\"url(#clip-\(v.rawValue))\">\n"
                drawSubviews(of: v, window: window, inheritedGrey: grey, into: &s)
                s += "  </g>\n"
            } else {
                drawSubviews(of: v, window: window, inheritedGrey: grey, into: &s)
            }
        }
    }
}

/// The kiosk's marks (issue 44, item 4): system gestures' places, and swallowed touches.
extension SVGRenderer {
    func kioskMarks() -> String {
        var s = ""
        let n = SVGRenderer.n, esc = SVGRenderer.esc
        let size = scene.outputs[output].pointSize
        var legend: [String] = []
        for g in gestures {
            switch g.kind {
            case .tap(let taps, let touches, _, let region):
                let what = "\(g.name): \(taps) tap\(taps == 1 ? "" : "s")\(touches > 1 ? " of \(touches) fingers" : "")"
                guard let r = region else { legend.append(what + " anywhere"); continue }
                s += "<g class=\"system-gesture\" data-name=\"\(esc(g.name))\">\n"
                s += "  <rect class=\"region\" x=\"\(n(r.minX))\" y=\"\(n(r.minY))\" width=\"\(n(r.size.width))\" height=\"\(n(r.size.height))\" fill=\"#c0306a\" fill-opacity=\"0.12\" stroke=\"#c0306a\" stroke-width=\"2\" stroke-dasharray=\"8 4\"/>\n"
                s += "  <text x=\"\(n(r.minX + 3))\" y=\"\(n(r.maxY - 4))\" fill=\"#c0306a\" font-weight=\"bold\">\(esc(what))</text>\n</g>\n"
            case .edgeSwipe(let edge, let distance):
                let band = GestureSettings.ScreenEdgePan.edgeWidth
                let r: Rect
                switch edge {
                case .left: r = Rect(0, 0, band, size.height)
                case .right: r = Rect(size.width - band, 0, band, size.height)
                case .top: r = Rect(0, 0, size.width, band)
                case .bottom: r = Rect(0, size.height - band, size.width, band)
                }
                s += "<g class=\"system-gesture\" data-name=\"\(esc(g.name))\">\n"
                s += "  <rect class=\"edge\" x=\"\(n(r.minX))\" y=\"\(n(r.minY))\" width=\"\(n(r.size.width))\" height=\"\(n(r.size.height))\" fill=\"#c0306a\" fill-opacity=\"0.2\" stroke=\"none\"/>\n"
                let (tx, ty) = edge == .bottom ? (r.minX + 4, r.minY - 4) : edge == .right ? (r.minX - 150, r.midY) : (r.minX + (edge == .left ? band + 4 : 4), edge == .top ? band + 12 : r.midY)
                s += "  <text x=\"\(n(tx))\" y=\"\(n(ty))\" fill=\"#c0306a\" font-weight=\"bold\">\(esc("\(g.name): swipe \(distance == distance.rounded() && distance < 1e9 ? String(Int(distance)) : n(distance)) points from the \(edge.rawValue)"))</text>\n</g>\n"
            case .longPress(let touches, let duration):
                legend.append("\(g.name): \(touches) finger\(touches == 1 ? "" : "s") held \(n(Double(duration) / 1e6)) s")
            }
        }
        if !legend.isEmpty {
            s += "<text class=\"system-gestures\" x=\"\(n(size.width - 4))\" y=\"\(n(size.height - 6))\" text-anchor=\"end\" fill=\"#c0306a\">\(esc("system gestures: " + legend.joined(separator: "; ")))</text>\n"
        }
        for points in swallowed {
            guard let first = points.first else { continue }
            s += "<g class=\"touch swallowed\">\n"
            s += "  <polyline class=\"trail\" fill=\"none\" stroke=\"#888\" stroke-width=\"3\" stroke-dasharray=\"4 4\" points=\"" + points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " ") + "\"/>\n"
            s += "  <circle class=\"start\" cx=\"\(n(first.x))\" cy=\"\(n(first.y))\" r=\"7\" fill=\"none\" stroke=\"#888\" stroke-width=\"2\" stroke-dasharray=\"3 3\"/>\n"
            s += "  <text x=\"\(n(first.x + 9))\" y=\"\(n(first.y + 18))\" fill=\"#666\" font-style=\"italic\">swallowed (woke the screen)</text>\n</g>\n"
        }
        return s
    }
}
