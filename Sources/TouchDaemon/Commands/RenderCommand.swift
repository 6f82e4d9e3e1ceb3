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
    circle) to ended (a dot) or cancelled (a cross), labelled with its id and view: every
    touch, also one a recognizer took before any view saw it (a scroll view's drag), drawn
    along its recognizer's locations. Trails are where the fingers were on the screen; the
    scene is drawn as it stood at one moment, when touch --touch N went down (default: the
    last touch to go down) — scroll views at their offsets of that moment. Opens in any
    browser. System gestures are marked: a tap's region dashed, an edge swipe's band along
    its edge, each with its name (a long press, which has no place, in the legend at the
    bottom). A touch a session swallowed (the one that woke an idle output, and the fingers
    down with it) is drawn grey and dashed, labelled "swallowed": no view saw it.

    --scene SCRIPT replays a live scene with the captures, as replay --scene does: the windows
    clients attach are drawn, and trails are labelled with their views. The scene changes as
    the script goes; the picture shows it as it stood when touch N went down, and only the
    trails of the touches down then or later.

    With several displays (outputs[]) the picture is one display's, --output ID (default the
    first): its point space as it is turned, its windows, and the trails of the touches of the
    devices on it.
    """
    static var options: [Option<RenderCommand>] {
        [.config(\.config, required: true, help: "the configuration"),
         .deviceInfo(\.deviceInfos),
         .format(\.format),
         .maxInputSize(\.maxInputSize),
         Option(["--scene"], value: "SCRIPT", help: "replay a live scene too: timed attach/update/detach requests (NDJSON)") { c, v throws(UsageError) in c.scene = v },
         .count(["--touch"], help: "draw the scene as it stood when touch N went down (default: the last)", range: 1...Int.max, \.touch),
         Option(["-o"], value: "OUT.svg", help: "where to write the picture (required)", required: true) { c, v throws(UsageError) in c.file = v },
         Option(["--output"], value: "ID", help: "the display drawn, an outputs[] id (default the first): its windows,\nand the trails of its devices' touches") { c, v throws(UsageError) in c.display = v }]
    }

    var config = ""
    var captures: [String] = []
    var deviceInfos: [String] = []
    var maxInputSize = CaptureFiles.defaultMaxBytes
    var format: CaptureFormat?
    var file = ""
    var display: String?
    var scene: String?
    var touch = 0

    mutating func validate(operands: [String]) throws(UsageError) {
        captures = operands
        if scene != nil && captures.isEmpty { throw UsageError("--scene needs a CAPTURE: the script's requests are played on its timeline") }
        if touch > 0 && captures.isEmpty { throw UsageError("--touch needs a CAPTURE: it names one of its touches") }
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try loadConfig(config)
        guard let o = cfg.scene.outputIndex(named: display) else {
            throw CommandFailure("--output \(display ?? ""): no output has that id (outputs: \(cfg.outputs.map(\.id).joined(separator: ", ")))", code: 2)
        }
        var sink = RenderSink(digest: SummarySink(scene: cfg.scene), touch: touch)
        if !captures.isEmpty {
            let log = StderrLog(threshold: .warning)
            defer { log.flush() }
            // Traced, so that every touch-down is seen: a touch a recognizer takes before any
            // view sees it is in no frame, only in its hit-test and its recognizer's messages.
            // The config's kiosk (sessions, system gestures) too: swallowed touches are drawn.
            var options = EngineOptions()
            options.tracing = true
            let engine = Engine(config: cfg, options: options, log: log.function)
            let player = try scene.map { path throws(CommandFailure) in ScenePlayer(script: try loadSceneScript(path), limits: cfg.clients.limits) }
            let session = try replaySession(config: cfg, captures: captures, deviceInfos: deviceInfos, format: format, maxBytes: maxInputSize, engine: engine, log: log)
            session.run(into: &sink, scene: player)
            sink.outputs = { engine.outputID(of: $0) }
        }
        if touch > 0 && sink.drawn == nil {
            throw CommandFailure("--touch \(touch): no touch \(touch) went down in the captures (their touches: 1 to \(sink.digest.logs.map(\.id).max() ?? 0))")
        }
        // The scene as it stood when the touch drawn went down: its scroll offsets (and with a
        // scene script the clients' windows) of that moment.
        let drawn = sink.drawn ?? cfg.scene
        // With a live scene, the trails of touches over before the one drawn are left out: they
        // were made on another picture.
        var trails = scene == nil ? sink.digest.logs : sink.digest.logs.filter { !sink.overBefore.contains($0.id) }
        // With several displays, one picture each: the trails of the touches on this one.
        let several = drawn.outputs.count > 1
        if several { trails = trails.filter { $0.output == drawn.outputs[o].id } }
        let swallowed = sink.swallowedTrails.filter { !several || $0.output == drawn.outputs[o].id }.map(\.points)
        let gestures = cfg.kiosk.systemGestures.filter { $0.output == nil || $0.output == drawn.outputs[o].id }
        let svg = SVGRenderer(scene: drawn, output: o, touches: trails, swallowed: swallowed, gestures: gestures).svg()
        let w = try OutputWriter.file(file)
        w.write(svg)
        w.flush()
        if let e = w.failure { throw CommandFailure("writing \(file): \(e)") }
        let stdout = OutputWriter.standardOutput()
        let (windows, views) = sceneCounts(drawn, output: several ? o : nil)
        stdout.write("\(file): \(views) views in \(windows) window(s), \(trails.count) touch trail(s)" + (swallowed.isEmpty ? "" : ", \(swallowed.count) swallowed") +
                     (several ? " on output \(drawn.outputs[o].id) (of \(drawn.outputs.map(\.id).joined(separator: ", ")))\n" : "\n"))
        stdout.flush()
        return 0
    }
}

/// The digest of `render`, and the scene to draw: as it stood when touch `touch` (0: the last)
/// went down — its hit-test, or its `began` when there was none — with its scroll offsets, and
/// which touches were over by then.
struct RenderSink: OutputSink {
    var digest: SummarySink
    let touch: Int
    private(set) var drawn: Scene?
    private(set) var overBefore: Set<Int> = []
    private var over: Set<Int> = []
    /// Touches seen go down (a delayed `began` comes after the touch-down's hit-test).
    private var down: Set<Int> = []
    /// Touches seen in a frame; the others, by the recognizer that took them, which ends them.
    private var delivered: Set<Int> = []
    private var takenBy: [Int: String] = [:]
    /// Each scroll view's latest offset (its `scroll` messages), with its id: the history's
    /// scene changes only with the windows, so offsets since are put into the scene drawn.
    private var offsets: [ViewIndex: (id: String, offset: Point)] = [:]

    init(digest: SummarySink, touch: Int) { self.digest = digest; self.touch = touch }

    mutating func wentDown(_ id: Int, _ history: SceneHistory) {
        guard down.insert(id).inserted, touch == 0 || id == touch else { return }
        var scene = history.scene
        for (v, o) in offsets where v.rawValue < scene.views.count {
            let node = scene[v]
            if !node.removed, node.scroll != nil, node.id == o.id { scene.setBoundsOrigin(o.offset, of: v) }
        }
        drawn = scene
        overBefore = over
    }

    mutating func take(_ m: Message, history: SceneHistory) {
        switch m {
        case .hitTest(let h):
            wentDown(h.touch, history)
        case .frame(let f):
            for t in f.touches {
                delivered.insert(t.id)
                if t.phase == .began { wentDown(t.id, history) }
                if t.phase == .ended || t.phase == .cancelled { over.insert(t.id) }
            }
        case .scroll(let m):
            offsets[m.view] = (history.scene[m.view].id, m.offset)
        case .gesture(let g):
            for id in g.touches where !delivered.contains(id) {
                if (g.state == .began || g.state == .recognized) && takenBy[id] == nil { takenBy[id] = g.recognizer }
                if takenBy[id] == g.recognizer && [.ended, .recognized, .cancelled, .failed].contains(g.state) { over.insert(id) }
            }
        default:
            break
        }
        digest.take(m, history: history)
    }

    mutating func sceneChanged(_ history: SceneHistory) { digest.sceneChanged(history) }

    /// The contacts a session swallowed, as trails: each from its touch-down to its lift, with
    /// its device (its output is looked up once the replay is over: `outputs`).
    private(set) var swallowed: [(device: DeviceIndex, points: [Point])] = []
    private var open: [ContactKey: Int] = [:]
    var outputs: (DeviceIndex) -> String = { _ in "" }
    var swallowedTrails: [(output: String, points: [Point])] { swallowed.map { (outputs($0.device), $0.points) } }

    mutating func swallowed(_ frame: ScreenContactFrame) {
        for c in frame.contacts {
            let key = ContactKey(device: frame.device, slot: c.slot)
            if case .began = c.kind {
                open[key] = swallowed.count
                swallowed.append((frame.device, [c.point]))
                continue
            }
            guard let k = open[key] else { continue }
            if swallowed[k].points.last != c.point { swallowed[k].points.append(c.point) }
            if case .moved = c.kind { continue }
            open[key] = nil
        }
    }
    mutating func reply(_ line: [UInt8]) { digest.reply(line) }
}
