import TouchCore

struct HitTestCommand: Command {
    static let name = "hit-test"
    static let summary = "one hit-test at a screen point, with the responder chain (and --trace)"
    static let operands = "X Y"
    static let takesNegativeNumbers = true
    static let about = """
    Hit-tests the screen point (X, Y) against the configured windows, topmost first, and prints
    one JSON object:
      {"window":…,"view":…,"location":[x,y],"locationInView":[x,y],"chain":[…]}
    "location" is in the window's coordinates, "locationInView" in the hit view's; "chain" is
    the responder chain from the hit view up to the application delegate. With --trace, a
    "trace" array lists every step in call order: hitTest, gate (why a view was skipped
    without asking pointInside), pointInside (its result) and return (the view returned).
    When nothing is hit, "window" and "view" are null and the exit code is still 0.

    With several displays (outputs[]) the point is on one: --output ID (default the first, or
    --window's), and only its windows are asked, as for a finger of a device on it.

    With --accessibility, the screen reader's hit-test instead (the element a finger exploring
    there reads; docs/accessibility.md):
      {"output":…,"window":…,"view":…,"text":…,"hint":…,"traits":[…],"frame":[x,y,w,h],
       "activationPoint":[x,y]}
    "text" and "hint" are what is said (in speech.language), "frame" and "activationPoint" in
    the output's points. Its --trace lists visit, gate (hidden, alpha, accessibilityHidden),
    frame (an element: whether the point is in it), return, and modal (the walk starts at the
    output's modal view).
    """
    static var options: [Option<HitTestCommand>] {
        [.config(\.config, required: true),
         Option(["--window"], value: "ID", help: "ask only this window") { c, v throws(UsageError) in c.window = v },
         Option(["--output"], value: "ID", help: "the display the point is on, an outputs[] id (default the first)") { c, v throws(UsageError) in c.output = v },
         .flag(["--trace"], help: "include the full trace", \.trace),
         .flag(["--accessibility"], help: "the screen reader's hit-test: the element under the point and what is said", \.accessibility)]
    }

    var config = ""
    var window: String?
    var output: String?
    var trace = false
    var accessibility = false
    var point = Point.zero

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.count == 2 else { throw UsageError("give the point as two numbers: X Y") }
        guard let x = decimal(operands[0]), let y = decimal(operands[1]) else {
            throw UsageError("X and Y must be numbers, got \"\(operands[0])\" \"\(operands[1])\"")
        }
        point = Point(x, y)
    }

    func run() throws(CommandFailure) -> Int32 {
        let scene = try loadConfig(config).scene
        var only: ViewIndex?
        if let window {
            guard let w = scene.viewIndex[window], scene[w].isWindow else { throw CommandFailure("no window has id \"\(window)\"") }
            only = w
        }
        guard let o = scene.outputIndex(named: output) else {
            throw CommandFailure("--output \(output ?? ""): no output has that id (outputs: \(scene.outputs.map(\.id).joined(separator: ", ")))", code: 2)
        }
        if let only, output != nil, scene[only].output != o {
            throw CommandFailure("window \"\(window ?? "")\" is on output \(scene.outputs[scene[only].output].id), not \(scene.outputs[o].id)", code: 2)
        }
        if accessibility {
            if window != nil { throw CommandFailure("--window and --accessibility: the screen reader reads every window of the output", code: 2) }
            return printAccessibility(scene, output: o)
        }
        var steps: [HitStep] = []
        let result = scene.hitTest(screen: point, output: only.map { scene[$0].output } ?? o, onlyWindow: only, tracing: trace, trace: &steps)
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"window\":", to: &out)
        JSONWriter.appendOptionalString(scene.id(of: result?.window), to: &out)
        JSONWriter.appendRaw(",\"view\":", to: &out)
        JSONWriter.appendOptionalString(scene.id(of: result?.view), to: &out)
        JSONWriter.appendRaw(",\"location\":", to: &out)
        JSONWriter.appendPoint(result?.location ?? point, to: &out)
        JSONWriter.appendRaw(",\"locationInView\":", to: &out)
        JSONWriter.appendPoint(result.map { scene.convert(windowPoint: $0.location, to: $0.view) } ?? point, to: &out)
        JSONWriter.appendRaw(",\"chain\":[", to: &out)
        if let r = result {
            for (k, c) in scene.chain(from: r.view).enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(scene[c].id, to: &out)
            }
        }
        JSONWriter.appendRaw("]", to: &out)
        if trace {
            JSONWriter.appendRaw(",\"trace\":", to: &out)
            MessageEncoder(scene: scene).encodeTrace(steps, &out)
        }
        JSONWriter.appendRaw("}\n", to: &out)
        let w = OutputWriter.standardOutput()
        w.write(out)
        w.flush()
        return 0
    }

    /// `--accessibility`: the element under the point, what is said of it, and the trace.
    func printAccessibility(_ scene: Scene, output o: Int) -> Int32 {
        var steps: [AccessibilityStep] = []
        let v = scene.accessibilityHitTest(screen: point, output: o, tracing: trace, trace: &steps)
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"output\":", to: &out)
        JSONWriter.appendString(scene.outputs[o].id, to: &out)
        JSONWriter.appendRaw(",\"window\":", to: &out)
        JSONWriter.appendOptionalString(scene.id(of: v.map { scene[$0].window }), to: &out)
        JSONWriter.appendRaw(",\"view\":", to: &out)
        JSONWriter.appendOptionalString(scene.id(of: v), to: &out)
        if let v {
            let a = scene[v].accessibility
            let traits = scene.accessibilityTraits(v)
            let words = SpokenWords.table(for: a?.language, fallback: scene.accessibility.language)
            let said = words.read(label: a?.label, value: a?.value, hint: a?.hint, traits: traits)
            JSONWriter.appendRaw(",\"text\":", to: &out)
            JSONWriter.appendString(said.text, to: &out)
            JSONWriter.appendRaw(",\"hint\":", to: &out)
            JSONWriter.appendOptionalString(said.hint, to: &out)
            JSONWriter.appendRaw(",\"traits\":[", to: &out)
            for (k, t) in traits.list.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(t.rawValue, to: &out)
            }
            let f = scene.screenFrame(of: v)
            JSONWriter.appendRaw("],\"frame\":[", to: &out)
            for (k, n) in [f.minX, f.minY, f.size.width, f.size.height].enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendDouble(n, to: &out)
            }
            JSONWriter.appendRaw("],\"activationPoint\":", to: &out)
            JSONWriter.appendPoint(scene.activationPoint(of: v), to: &out)
        }
        if trace {
            JSONWriter.appendRaw(",\"trace\":", to: &out)
            MessageEncoder(scene: scene).encodeAccessibilityTrace(steps, &out)
        }
        JSONWriter.appendRaw("}\n", to: &out)
        let w = OutputWriter.standardOutput()
        w.write(out)
        w.flush()
        return 0
    }
}
