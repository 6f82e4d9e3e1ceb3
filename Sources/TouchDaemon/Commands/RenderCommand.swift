import TouchCore
import TouchCapture

/// `touchd render`: an SVG picture of the scene — windows and views to scale with their ids,
/// hit areas where they differ from the frame, pass-through and intercepting views marked,
/// hidden or disabled views greyed — and, with captures, each touch's trail in its own colour.
struct RenderCommand: Command {
    static let name = "render"
    static let summary = "an SVG picture of the scene, hit areas and touch trails"
    static let operands = "[CAPTURE...]"
    static let about = """
    Draws the configured scene to scale (screen points = SVG units): windows bottom to top,
    every view with its id; dashed outlines show hit areas that differ from the frame
    (hitOutset, ellipse shapes); pass-through views (hitTest none / passthrough) are dotted,
    intercepting ones (hitTest self) drawn thick; hidden, disabled or interaction-less views
    are greyed. With captures, each touch's trail is drawn in its own colour from began (a
    circle) to ended (a dot) or cancelled (a cross), labelled with its id and view. Opens in
    any browser.
    """
    static var options: [Option<RenderCommand>] {
        [.config(\.config, required: true, help: "the configuration"),
         .deviceInfo(\.deviceInfos),
         .format(\.format, formats: CaptureLoader.formats),
         .maxInputSize(\.maxInputSize),
         Option(["-o", "--output"], value: "OUT.svg", help: "where to write the picture (required)", required: true) { c, v throws(UsageError) in c.output = v }]
    }

    var config = ""
    var captures: [String] = []
    var deviceInfos: [String] = []
    var maxInputSize = CaptureFiles.defaultMaxBytes
    var format: String?
    var output = ""

    mutating func validate(operands: [String]) throws(UsageError) { captures = operands }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try loadConfig(config)
        var digest = SummarySink(scene: cfg.scene)
        if !captures.isEmpty {
            let log = StderrLog(threshold: .warning)
            defer { log.flush() }
            // Trails are drawn on the scene as configured (scrolling is not replayed in the picture).
            let engine = Engine(scene: cfg.scene, log: log.function)
            let session = try replaySession(config: cfg, captures: captures, deviceInfos: deviceInfos, format: format, maxBytes: maxInputSize, engine: engine, log: log)
            session.run(into: &digest)
        }
        let svg = SVGRenderer(config: cfg, touches: digest.logs).svg()
        let w = try OutputWriter.file(output)
        w.write(svg)
        w.flush()
        if let e = w.failure { throw CommandFailure("writing \(output): \(e)") }
        let stdout = OutputWriter.standardOutput()
        stdout.write("\(output): \(cfg.scene.views.count) views in \(cfg.scene.windowOrder.count) window(s), \(digest.logs.count) touch trail(s)\n")
        stdout.flush()
        return 0
    }
}
