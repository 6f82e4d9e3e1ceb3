import TouchCore

/// `touchd replay --summary`: a human-readable digest instead of NDJSON — per touch its view,
/// start and end point, the finger's duration (from its timestamps, not from when the views
/// were told) and how it ended; per recognizer and control what fired. With hit-test traces in
/// the stream it also lists touches no view ever saw (taken by a recognizer before delivery).
struct SummarySink: OutputSink {
    struct TouchLog {
        var id: Int
        var device: String
        var window: String?
        var view: String?
        var start: Point
        var end: Point
        var began: Int64
        var last: Int64
        var ending = "still down"
        var ignored: String?
        var points: [Point] = []
        /// Seen in a frame (a touch taken before delivery only shows in hitTest and gesture messages).
        var delivered = true
        var takenBy: String?
        /// The output its device is on, with several (touches say; `render --output`).
        var output: String?
    }

    var scene: Scene
    var devices: [DeviceDescriptor] = []
    /// Every touch seen, in the order first seen; `slot` finds a touch's log by its id. A log
    /// is only ever appended with its slot, so a looked-up slot always indexes `logs`.
    private(set) var logs: [TouchLog] = []
    private var slot: [Int: Int] = [:]
    var gestures: [(String, String, String, [(String, Int64)])] = []   // id, kind, view, states with times
    var controls: [(String, [(String, Int)])] = []
    var scrolls: [(String, Point, Point, Int)] = []
    /// The kiosk's events in order: "idle", "wake" or a system gesture's name, its output, time.
    var kiosk: [(String, String, Int64)] = []
    /// Headphones plugged into or pulled from an output (issue 46): plugged, output, source, time.
    var headphones: [(Bool, String, String, Int64)] = []

    init(scene: Scene) { self.scene = scene }

    func name(_ i: ViewIndex?) -> String? { scene.id(of: i) }

    mutating func take(_ m: Message, history: SceneHistory) {
        scene = history.scene   // the scene of the message's time (a reference, not a copy)
        publish(m)
    }

    mutating func publish(_ m: Message) {
        switch m {
        case .device(let d):
            if d.action == .added { devices.append(d.device) }
        case .frame(let f):
            for t in f.touches {
                let screen = t.location + (t.window.map { scene[$0].frame.origin } ?? .zero)
                let k = slot[t.id] ?? append(TouchLog(id: t.id, device: f.device, window: name(t.window), view: name(t.view),
                                                      start: t.location, end: t.location, began: t.timestamp, last: t.timestamp))
                if !logs[k].delivered {
                    logs[k].delivered = true
                    logs[k].device = f.device
                    logs[k].ending = "still down"
                }
                logs[k].end = t.location
                if let o = t.output { logs[k].output = o }
                logs[k].last = max(logs[k].last, t.timestamp)
                if logs[k].points.last != screen { logs[k].points.append(screen) }
                if let ig = t.ignored { logs[k].ignored = ig.rawValue }
                if t.phase == .ended { logs[k].ending = "ended" }
                if t.phase == .cancelled { logs[k].ending = "cancelled (\(t.reason?.rawValue ?? "?"))" }
            }
        case .gesture(let g):
            if g.state == .recognized || g.state == .began {
                for id in g.touches {
                    guard let k = slot[id], !logs[k].delivered, logs[k].takenBy == nil else { continue }
                    logs[k].takenBy = g.recognizer
                    logs[k].ending = "not delivered: taken by \(g.recognizer)"
                    logs[k].last = g.time
                }
            }
            // A touch no view saw moves only in its recognizer's messages: where a continuous
            // recognizer follows it alone (a scroll view's pan, a one-finger pan or long press),
            // its location is the finger's (window coordinates) at the message's time, so the
            // touch's path, its end and its duration come from them. A recognizer of several
            // fingers gives their centroid, not this one's; a discrete one's decision may come
            // after the lift (a tap waiting for a double tap to fail).
            if g.touches.count == 1, [.began, .changed, .ended].contains(g.state), let k = slot[g.touches[0]], !logs[k].delivered {
                let screen = g.location + scene[scene[g.view].window].frame.origin
                logs[k].end = g.location
                logs[k].last = max(logs[k].last, g.time)
                if logs[k].points.last != screen { logs[k].points.append(screen) }
            }
            if let i = gestures.firstIndex(where: { $0.0 == g.recognizer }) {
                gestures[i].3.append((g.state.rawValue, g.time))
            } else {
                gestures.append((g.recognizer, g.kind.rawValue, name(g.view) ?? "?", [(g.state.rawValue, g.time)]))
            }
        case .control(let c):
            let control = name(c.control) ?? "?"
            let k = controls.firstIndex { $0.0 == control } ?? { controls.append((control, [])); return controls.count - 1 }()
            if let e = controls[k].1.firstIndex(where: { $0.0 == c.event.rawValue }) { controls[k].1[e].1 += 1 }
            else { controls[k].1.append((c.event.rawValue, 1)) }
        case .scroll(let s):
            let v = name(s.view) ?? "?"
            if let i = scrolls.firstIndex(where: { $0.0 == v }) { scrolls[i].2 = s.offset; scrolls[i].3 += 1 }
            else { scrolls.append((v, .zero, s.offset, 1)) }
        case .hitTest(let h):
            // Every touch-down, delivered or not: where and when the finger landed.
            guard slot[h.touch] == nil else { break }
            let origin = h.window.map { scene[$0].frame.origin } ?? .zero
            var log = TouchLog(id: h.touch, device: "?", window: name(h.window), view: name(h.view),
                               start: h.point - origin, end: h.point - origin, began: h.time, last: h.time)
            log.delivered = false
            if scene.outputs.count > 1, let w = h.window { log.output = scene.outputs[scene[w].output].id }
            log.ending = "not delivered to its view"
            log.points = [h.point]
            append(log)
        case .headphones(let h):
            headphones.append((h.plugged, h.output, h.source, h.time))
        case .output:
            break   // no touch of its own (the touches an output's turn cancelled are in their frames)
        case .accessibility:
            break   // the screen reader's messages: the NDJSON output lists them
        case .idle(let i): kiosk.append(("idle", i.output, i.time))
        case .wake(let w): kiosk.append(("wake", w.output, w.time))
        case .systemGesture(let g): kiosk.append(("system gesture \(g.name)", g.output, g.time))
        }
    }

    /// Starts a touch's log; returns its slot in `logs`.
    @discardableResult
    private mutating func append(_ log: TouchLog) -> Int {
        slot[log.id] = logs.count
        logs.append(log)
        return logs.count - 1
    }

    static func pt(_ p: Point) -> String {
        var out: [UInt8] = [UInt8(ascii: "(")]
        JSONWriter.appendDouble(p.x, digits: 1, to: &out)
        out += Array(", ".utf8)
        JSONWriter.appendDouble(p.y, digits: 1, to: &out)
        out.append(UInt8(ascii: ")"))
        return String(decoding: out, as: UTF8.self)
    }

    static func seconds(_ micros: Int64) -> String { fixed(Double(micros) / 1e6, 3) }

    func text() -> String {
        var s = "devices:\n"
        for d in devices { s += "  \(d.id)  \"\(d.name)\"  protocol \(d.touchProtocol.rawValue), \(d.slots) slot(s)\n" }
        s += "touches: \(logs.count)\n"
        for t in logs {
            var line = "  #\(t.id)".padding(6) + (t.view ?? "(no view)").padding(14)
            line += "\(SummarySink.pt(t.start)) → \(SummarySink.pt(t.end))".padding(30)
            line += "\(SummarySink.seconds(t.last - t.began)) s".padding(10) + t.ending
            if let ig = t.ignored { line += "  [not delivered: \(ig)]" }
            s += line + "\n"
        }
        if !gestures.isEmpty {
            s += "recognizers:\n"
            for (id, kind, view, states) in gestures {
                s += "  \(id) (\(kind) on \(view)): " + states.map { "\($0.0) at \(SummarySink.seconds($0.1))" }.joined(separator: ", ") + "\n"
            }
        }
        if !controls.isEmpty {
            s += "controls:\n"
            for (control, events) in controls {
                s += "  \(control): " + events.map { $0.1 > 1 ? "\($0.0) ×\($0.1)" : $0.0 }.joined(separator: ", ") + "\n"
            }
        }
        if !scrolls.isEmpty {
            s += "scroll views:\n"
            for (v, _, end, n) in scrolls { s += "  \(v): offset \(SummarySink.pt(end)) after \(n) change(s)\n" }
        }
        if !kiosk.isEmpty {
            s += "session:\n"
            for (what, output, time) in kiosk { s += "  \(what) on \(output) at \(SummarySink.seconds(time))\n" }
        }
        if !headphones.isEmpty {
            s += "headphones:\n"
            for (plugged, output, source, time) in headphones {
                s += "  \(plugged ? "plugged into" : "pulled from") \(output) at \(SummarySink.seconds(time)) (\(source))\n"
            }
        }
        return s
    }
}
