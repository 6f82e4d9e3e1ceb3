@preconcurrency import Glibc
import TouchCore
import TouchCapture

/// `touchd render`: an SVG picture of the scene — windows and views to scale with their ids,
/// hit areas where they differ from the frame, pass-through and intercepting views marked,
/// hidden or disabled views greyed — and, with captures, each touch's trail in its own colour.
struct RenderCommand: Command {
    static let name = "render"
    static let summary = "an SVG picture of the scene, hit areas and touch trails"
    static let help = """
    usage: touchd render --config FILE [--device-info DESC]... [--format FORMAT] [CAPTURE...] -o OUT.svg

    Draws the configured scene to scale (screen points = SVG units): windows bottom to top,
    every view with its id; dashed outlines show hit areas that differ from the frame
    (hitOutset, ellipse shapes); pass-through views (hitTest none / passthrough) are dotted,
    intercepting ones (hitTest self) drawn thick; hidden, disabled or interaction-less views
    are greyed. With captures, each touch's trail is drawn in its own colour from began (a
    circle) to ended (a dot) or cancelled (a cross), labelled with its id and view. Opens in
    any browser.

    options:
      --config FILE        the configuration
      --device-info DESC   description for a header-less or raw capture (as for replay)
      --format FORMAT      capture format (as for replay)
      -o OUT.svg           where to write the picture (required)

    """

    var config: String
    var captures: [String]
    var deviceInfos: [String] = []
    var format: String?
    var output: String

    init(arguments: [String]) throws(UsageError) {
        var list = ArgumentList(arguments)
        var c: String?, o: String?, f: String?
        var d: [String] = []
        try list.parse { (name, l) throws(UsageError) in
            switch name {
            case "--config", "-c": c = try l.value(for: name)
            case "-o", "--output": o = try l.value(for: name)
            case "--device-info": d.append(try l.value(for: name))
            case "--format":
                let v = try l.value(for: name)
                guard CaptureLoader.formats.contains(v) else { throw UsageError("unknown format \"\(v)\"") }
                f = v
            default: return false
            }
            return true
        }
        guard let c else { throw UsageError("--config FILE is required") }
        guard let o else { throw UsageError("-o OUT.svg is required") }
        config = c
        output = o
        captures = list.positionals
        deviceInfos = d
        format = f
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try loadConfig(config)
        var digest = SummarySink(scene: cfg.scene)
        if !captures.isEmpty {
            let log = StderrLog(threshold: .warning)
            do {
                let devices = try CaptureLoader.load(paths: captures, deviceInfos: deviceInfos, format: format) { log(.warning, $0) }
                // Trails are drawn on the scene as configured (scrolling is not replayed in the picture).
                let session = try ReplaySession(config: cfg, captures: devices, options: EngineOptions(), log: log.function, sink: &digest)
                session.runToEnd(sink: &digest)
            } catch let e as CaptureError {
                throw CommandFailure(e.description)
            } catch {
                throw CommandFailure("\(error)")
            }
        }
        let svg = SVGRenderer(config: cfg, touches: digest.order.map { digest.touches[$0]! }).svg()
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CommandFailure("cannot write \(output): \(String(cString: strerror(errno)))") }
        let w = FDWriter(fd: fd)
        w.write(svg)
        w.flush()
        close(fd)
        print("\(output): \(cfg.scene.views.count) views in \(cfg.scene.windowOrder.count) window(s), \(digest.order.count) touch trail(s)")
        return 0
    }
}

struct SVGRenderer {
    let config: Config
    let touches: [SummarySink.TouchLog]
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
        let scene = config.scene
        let w = config.screen.width, h = config.screen.height
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(SVGRenderer.n(w))\" height=\"\(SVGRenderer.n(h))\" viewBox=\"0 0 \(SVGRenderer.n(w)) \(SVGRenderer.n(h))\" font-family=\"sans-serif\" font-size=\"11\">\n"
        s += "<title>touchd scene</title>\n"
        s += "<rect id=\"screen\" x=\"0\" y=\"0\" width=\"\(SVGRenderer.n(w))\" height=\"\(SVGRenderer.n(h))\" fill=\"#f7f7f7\" stroke=\"#333\"/>\n"
        for win in scene.windowOrder.reversed() {
            let node = scene.views[win]
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
        s += "</svg>\n"
        return s
    }

    func drawSubviews(of parent: Int, window: Int, inheritedGrey: String?, into s: inout String) {
        let scene = config.scene
        let worigin = scene.views[window].frame.origin
        for v in scene.views[parent].subviews {
            let node = scene.views[v]
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
            if !node.gestures.isEmpty { marks.append(node.gestures.map { "\($0.kind) \($0.id)" }.joined(separator: ", ")) }
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
            drawSubviews(of: v, window: window, inheritedGrey: grey, into: &s)
        }
    }
}
