import Testing
import TouchCore
import TouchTestSupport

/// Property: random sequences of attach / update / detach / disconnect from three clients,
/// interleaved with random touches (several fingers, moves, lifts, time passing), never leave
/// a touch bound to a view that no longer exists, and every touch that began ends or is
/// cancelled exactly once, with nothing about it after that. Every message names views of the
/// scene of its time (the outbox's scene changes come before the messages they concern), and
/// names the right one: a scroll view in a scroll message, a control in a control message, the
/// view that has the recognizer in a gesture message, a view of the touch's window in a frame.
@Suite struct LiveScenePropertyTests {
    typealias RNG = SplitMix64

    final class World {
        var rng: RNG
        let rig: Rig
        var engine: Engine { rig.engine }
        var device: DeviceIndex { rig.device }
        var finger = Finger()
        var current: Scene
        var down: [Int32: Bool] = [:]
        /// Windows each client believes it owns, with the view ids inside.
        var windows: [Int: [String: [String]]] = [1: [:], 2: [:], 3: [:]]
        var nextID = 0
        /// Per touch: "open" after began, "closed" after ended/cancelled.
        var touchState: [Int: String] = [:]
        var problems: [String] = []
        var applied = 0, refused = 0, cancelledByScene = 0

        init(seed: UInt64) {
            rng = RNG(state: seed)
            let cfg = scene("""
                {"id": "base", "frame": [0, 0, 800, 480], "gestures": [{"id": "base-pan", "kind": "pan"}],
                 "subviews": [{"id": "base-button", "frame": [300, 200, 200, 80], "control": "button"}]}
                """)
            rig = Rig(cfg, device: screenDevice(), id: "d", name: "d")
            current = cfg.scene
            rig.observer = { [unowned self] o in
                switch o {
                case .sceneChanged(let s): self.current = s
                case .message(let m): self.observe(m)
                case .contacts, .reply, .calibration, .notice, .swallowed: break
                }
            }
            check()
        }

        func fresh(_ prefix: String) -> String {
            nextID += 1
            return "\(prefix)\(nextID)"
        }

        func rect(_ w: Int, _ h: Int) -> String {
            "[\(rng.int(w)), \(rng.int(h)), \(40 + rng.int(w)), \(40 + rng.int(h))]"
        }

        /// A random subtree: a view with up to 3 children, some controls, recognizers, scrolls.
        func view(depth: Int, ids: inout [String], reuse: String? = nil) -> String {
            let id = reuse ?? fresh("v")
            ids.append(id)
            var json = "{\"id\": \"\(id)\", \"frame\": \(rect(400, 300))"
            switch rng.int(7) {
            case 0: json += ", \"control\": \"button\""
            case 1: json += ", \"gestures\": [{\"id\": \"\(fresh("g"))\", \"kind\": \"tap\"}]"
            case 2: json += ", \"gestures\": [{\"id\": \"\(fresh("g"))\", \"kind\": \"pan\"}]"
            case 3: json += ", \"scroll\": {\"contentSize\": [800, 2000]}"
            case 4: json += ", \"multipleTouch\": true"
            default: break
            }
            if depth < 2 {
                let kids = (0..<rng.int(3)).map { _ in view(depth: depth + 1, ids: &ids) }
                if !kids.isEmpty { json += ", \"subviews\": [\(kids.joined(separator: ", "))]" }
            }
            return json + "}"
        }

        func request(_ client: Int) -> String? {
            let mine = windows[client]!
            switch rng.int(mine.isEmpty ? 1 : 5) {
            case 0:
                let w = fresh("w")
                var ids: [String] = []
                let root = view(depth: 0, ids: &ids)
                windows[client]![w] = ids
                return "{\"attach\": {\"id\": \"\(w)\", \"frame\": \(rect(600, 400)), \"level\": \(rng.int(3) - 1), \"private\": \(rng.int(2) == 0), \"view\": \(root)}}"
            case 1:
                let w = mine.keys.sorted()[rng.int(mine.count)]
                windows[client]![w] = nil
                return "{\"detach\": {\"window\": \"\(w)\"}}"
            default:
                // Updates name this client's windows or, now and then, someone else's.
                let all = windows.values.flatMap { $0.keys }.sorted()
                let w = rng.int(5) == 0 && !all.isEmpty ? all[rng.int(all.count)] : mine.keys.sorted()[rng.int(mine.count)]
                let known = windows.values.compactMap { $0[w] }.first ?? []
                var changes: [String] = []
                var lastAdded: [String] = []
                for _ in 0..<(1 + rng.int(5)) {
                    let target = known.isEmpty || rng.int(6) == 0 ? "ghost" : known[rng.int(known.count)]
                    switch rng.int(5) {
                    case 0: changes.append("{\"view\": \"\(target)\", \"set\": {\"frame\": \(rect(400, 300)), \"hidden\": \(rng.int(4) == 0)}}")
                    case 4:
                        // A scroll view's offset and content, now and then one the same update
                        // added (issue 28, item 1: its clamp named a view of no scene).
                        let v = !lastAdded.isEmpty && rng.int(2) == 0 ? lastAdded[rng.int(lastAdded.count)] : target
                        changes.append("{\"view\": \"\(v)\", \"set\": {\"boundsOrigin\": [0, \(rng.int(1500))]}}")
                        changes.append("{\"view\": \"\(v)\", \"set\": {\"scroll\": {\"contentSize\": [800, \(rng.int(2400))]}}}")
                    case 1: changes.append("{\"window\": {\"level\": \(rng.int(3) - 1), \"frame\": \(rect(600, 400))}}")
                    case 2:
                        // Now and then under an id the window uses (refused unless an earlier
                        // change of the same update removed it), or to a view added just before.
                        var ids: [String] = []
                        let reuse = !known.isEmpty && rng.int(3) == 0 ? known[rng.int(known.count)] : nil
                        let to = rng.int(4) == 0 && !lastAdded.isEmpty ? lastAdded[rng.int(lastAdded.count)] : target
                        changes.append("{\"add\": \(view(depth: 1, ids: &ids, reuse: reuse)), \"to\": \"\(to)\"}")
                        lastAdded = ids
                    default: changes.append("{\"remove\": \"\(target)\"}")
                    }
                }
                return "{\"update\": {\"window\": \"\(w)\", \"changes\": [\(changes.joined(separator: ", "))]}}"
            }
        }

        func step() {
            switch rng.int(10) {
            case 0, 1:
                let client = 1 + rng.int(3)
                guard let json = request(client), let r = sceneRequest(json) else { return }
                switch engine.apply(r, from: client, time: finger.time) {
                case .refused: refused += 1
                default: applied += 1
                }
                // Keep the client's idea of its views in step with the scene (what updates add
                // and remove): any id of the window that still exists.
                for (c, ws) in windows {
                    for (w, _) in ws {
                        guard let wi = engine.scene.viewIndex[w] else { windows[c]![w] = nil; continue }
                        windows[c]![w] = engine.scene.subtree(wi).map { engine.scene[$0].id }
                    }
                }
                check()
            case 2:
                if rng.int(4) == 0 {
                    let client = 1 + rng.int(3)
                    engine.clientGone(client, time: finger.time)
                    windows[client] = [:]
                    check()
                }
            default:
                let slot = Int32(rng.int(4))
                if down[slot] == true {
                    if rng.int(3) == 0 { finger.up(slot); down[slot] = false } else { finger.move(slot, Int32(rng.int(800)), Int32(rng.int(480))) }
                } else {
                    finger.down(slot, Int32(rng.int(800)), Int32(rng.int(480)))
                    down[slot] = true
                }
                finger.syn(after: Int64(1 + rng.int(120)))
                for e in finger.events { engine.process(e, device: device) }
                finger.events.removeAll()
                check()
            }
        }

        func check() {
            rig.collect()
            // No touch the views know is bound to a view that is gone.
            for (t, _) in engine.snapshot().touches {
                if let v = t.view, v.rawValue >= engine.scene.views.count || engine.scene[v].removed {
                    problems.append("touch \(t.id) is bound to a removed view slot \(v.rawValue)")
                }
            }
        }

        func isLive(_ v: ViewIndex) -> Bool { v.rawValue < current.views.count && !current[v].removed }

        func live(_ v: ViewIndex?, _ what: String) {
            guard let v else { return }
            if v.rawValue >= current.views.count || current[v].removed { problems.append("\(what) names a view not in the scene of its time") }
        }

        func observe(_ m: Message) {
            switch m {
            case .frame(let f):
                for t in f.touches {
                    live(t.view, "touch \(t.id) \(t.phase.name)")
                    live(t.window, "touch \(t.id)'s window")
                    if let v = t.view, isLive(v), current[v].window != t.window { problems.append("touch \(t.id) names \(current[v].id), not in its window") }
                    let state = touchState[t.id]
                    switch t.phase {
                    case .began:
                        if state != nil { problems.append("touch \(t.id) began twice") }
                        touchState[t.id] = "open"
                    case .moved, .stationary:
                        if state != "open" { problems.append("touch \(t.id) \(t.phase.name) while \(state ?? "unknown")") }
                    case .ended, .cancelled:
                        if state != "open" { problems.append("touch \(t.id) \(t.phase.name) while \(state ?? "unknown")") }
                        touchState[t.id] = "closed"
                        if let r = t.reason, [.viewRemoved, .windowRemoved, .clientGone].contains(r) { cancelledByScene += 1 }
                    }
                }
            case .control(let c):
                live(c.control, "control \(c.event.rawValue)")
                if isLive(c.control), current[c.control].control == nil { problems.append("control \(c.event.rawValue) names \(current[c.control].id), not a control") }
            case .gesture(let g):
                live(g.view, "gesture \(g.recognizer)")
                // A recognizer of the view it names: one it declares, or its scroll view's pan.
                if isLive(g.view), !(current[g.view].gestures.contains { $0.id == g.recognizer } || g.recognizer == current[g.view].id + ".pan") {
                    problems.append("gesture \(g.recognizer) names \(current[g.view].id), which has no such recognizer")
                }
            case .scroll(let s):
                live(s.view, "scroll")
                if isLive(s.view), current[s.view].scroll == nil { problems.append("scroll names \(current[s.view].id), not a scroll view") }
            default: break
            }
        }
    }

    @Test(arguments: 0..<24)
    func aLiveSceneNeverStrandsATouch(seed: Int) {
        let w = World(seed: UInt64(seed) &* 0x2545F4914F6CDD1D &+ 7)
        for _ in 0..<600 { w.step() }
        w.engine.shutdown(time: w.finger.time + 1_000_000)
        w.check()
        let open = w.touchState.filter { $0.value == "open" }.keys.sorted()
        #expect(open.isEmpty, "touches never ended: \(open)")
        #expect(w.problems.isEmpty, "\(w.problems.prefix(5))")
        #expect(w.engine.liveTouchCount == 0)
        // The run did what it is meant to: changes applied and refused, touches cancelled by them.
        #expect(w.applied > 40 && w.refused > 5, "applied \(w.applied) refused \(w.refused) touches \(w.touchState.count)")
        // (Views see fewer touches since a finger joining a pan under way goes to the pan,
        // issue 20 item 4: 23…47 per seed where it was over 50; 20…46 since updates also set
        // scroll views' offsets and content, issue 28.)
        #expect(w.touchState.count >= 15, "touches \(w.touchState.count)")
    }

    @Test func acrossAllSeedsSomeTouchesAreCancelledByTheScene() {
        var total = 0
        for seed in 0..<24 {
            let w = World(seed: UInt64(seed) &* 0x2545F4914F6CDD1D &+ 7)
            for _ in 0..<600 { w.step() }
            total += w.cancelledByScene
        }
        #expect(total > 50, "cancelled by the scene: \(total)")
    }
}
