/// `update`: a window's changes, checked in order against the scene as the earlier changes
/// leave it (an overlay of ids added and removed, nothing touched), then applied together.
extension Engine {
    /// What the changes checked so far did, by id, without touching the scene.
    struct UpdateOverlay {
        /// Ids added by earlier changes (views, controllers, recognizers) and still there: a
        /// later change that removes them frees them again.
        var added: Set<String> = []
        /// The ids each added view declares (itself, its controller, its recognizers).
        var declaredBy: [String: [String]] = [:]
        /// Each added view's parent (the `to` of its change, or its parent in the subtree).
        var addedParent: [String: String] = [:]
        /// Added views that are scroll views (a later `set.scroll` may change them).
        var addedScroll: Set<String> = []
        /// Added views a later change removed (their subtrees go with them).
        var deadAdded: Set<String> = []
        /// Ids of the scene removed by earlier changes (views, controllers, recognizers): free
        /// again for a later add.
        var removed: Set<String> = []
        /// Views added and their recognizers (clients.views counts both).
        var addedViews = 0
        /// Views of the scene removed and their recognizers (they count against the client's
        /// limit no more).
        var removedViews = 0

        /// A removal: `gone` are the ids it takes away; every added view whose chain of parents
        /// passes through one of them dies with it — now, so that a view added later under the
        /// same id does not bring it back.
        mutating func bury(_ gone: Set<String>) {
            for a in addedParent.keys where !deadAdded.contains(a) {
                var cur = a
                var steps = 0
                while steps <= addedParent.count {
                    if gone.contains(cur) { die(a); break }
                    guard let p = addedParent[cur] else { break }
                    cur = p
                    steps += 1
                }
            }
        }

        /// An added view goes: the ids it declared are free again.
        mutating func die(_ v: String) {
            guard deadAdded.insert(v).inserted else { return }
            for n in declaredBy[v] ?? [] { added.remove(n) }
        }
    }

    /// Does view `v` exist in window `w` once the changes checked so far apply? An added view
    /// lives while its chain of parents reaches a scene view that is still there.
    func alive(_ v: String, in w: ViewIndex, _ o: UpdateOverlay) -> Bool {
        var cur = v
        while let p = o.addedParent[cur] {
            if o.deadAdded.contains(cur) { return false }
            cur = p
        }
        guard let x = scene.viewIndex[cur], !o.removed.contains(cur) else { return false }
        return scene[x].window == w
    }

    func update(_ id: String, _ changes: [SceneChange], client: Int, limits: ClientLimits, time: Int64) -> Result<SceneReply, SceneRequestError> {
        let w: ViewIndex
        switch ownedWindow(id, client: client) {
        case .failure(let e): return .failure(e)
        case .success(let x): w = x
        }
        // 1. Check every change, in order, without changing anything.
        var o = UpdateOverlay()
        for (i, c) in changes.enumerated() {
            let at = "changes[\(i)]"
            switch c {
            case .set(let v, let p):
                guard alive(v, in: w, o) else { return .failure(SceneRequestError(path: at + ".view", message: "no view \"\(v)\" in window \"\(id)\"")) }
                let isScroll = o.addedParent[v] != nil ? o.addedScroll.contains(v) : scene.viewIndex[v].map { scene[$0].scroll != nil } == true
                if p.scroll != nil && !isScroll {
                    return .failure(SceneRequestError(path: at + ".set.scroll", message: "\"\(v)\" is not a scroll view (a view is one when added with \"scroll\")"))
                }
                // An order's ids are views of the window (those not under the view when it is
                // read are skipped: AccessibilityTree.swift).
                for (k, x) in (p.accessibility?.orderIDs ?? []).enumerated() where !alive(x, in: w, o) {
                    return .failure(SceneRequestError(path: at + ".set.accessibility.order[\(k)]", message: "no view \"\(x)\" in window \"\(id)\""))
                }
            case .window(let p):
                if let l = p.level, let problem = limits.levelProblem(l) { return .failure(SceneRequestError(path: at + ".window.level", message: problem)) }
            case .add(let f, let to, _, let refs):
                guard alive(to, in: w, o) else { return .failure(SceneRequestError(path: at + ".to", message: "no view \"\(to)\" in window \"\(id)\"")) }
                // The fragment's paths already start with this change's ("changes[1].add…").
                if let e = taken(f, skippingRoot: true, freed: o.removed, added: o.added) { return .failure(e) }
                for ref in refs {
                    for g in ref.ids where !f.gestureIDs.contains(g) && !o.added.contains(g) && (!referable(g, by: client) || o.removed.contains(g)) {
                        return .failure(SceneRequestError(path: ref.path, message: "no gesture recognizer has id \"\(g)\""))
                    }
                }
                o.addedViews += f.limitedObjects
                for n in f.ids(skippingRoot: true) + f.gestureIDs { o.added.insert(n) }
                for k in f.views.indices.dropFirst() {
                    let parent = f.views[k].superview.map { $0.rawValue == 0 ? to : f.views[$0.rawValue].id } ?? to
                    o.addedParent[f.views[k].id] = parent
                    // An id removed earlier in this update is a new view now.
                    o.deadAdded.remove(f.views[k].id)
                    let v = f.views[k]
                    if v.scroll != nil { o.addedScroll.insert(v.id) } else { o.addedScroll.remove(v.id) }
                    o.declaredBy[v.id] = [v.id] + v.gestures.map(\.id) + (v.controller.map { [f.responders[$0.rawValue].id] } ?? [])
                }
            case .remove(let v):
                guard alive(v, in: w, o) else { return .failure(SceneRequestError(path: at + ".remove", message: "no view \"\(v)\" in window \"\(id)\"")) }
                if v == id { return .failure(SceneRequestError(path: at + ".remove", message: "\"\(v)\" is the window: detach removes a window")) }
                if o.addedParent[v] != nil {
                    o.die(v)
                    o.bury([v])
                } else if let x = scene.viewIndex[v] {
                    let gone = sceneIDs(under: x)
                    o.removed.formUnion(gone)
                    o.removedViews += limitedObjects(under: x)
                    o.bury(Set(gone))
                }
            }
        }
        if o.addedViews > o.removedViews && owned(by: client).views + o.addedViews - o.removedViews > limits.views {
            return .failure(SceneRequestError(path: "changes", message: "too many views for one client (the limit is \(limits.views) views and gesture recognizers)"))
        }
        // 2. Apply them, in order. The check above guarantees every id below exists; were it
        // ever wrong, the change is skipped rather than the daemon stopped.
        // A message is read with the scene of its time (its view indices, its window's privacy):
        // a change that can publish (a scroll clamp, the cancellations of a removal) first hands
        // the consumers the scene as the earlier changes left it, if they changed its structure
        // (issue 28, item 1: a clamp naming a view added by the same update trapped the encoder).
        var structural = false
        func flush() {
            if structural { outbox.sceneChanged(scene) }
            structural = false
        }
        for c in changes {
            switch c {
            case .set(let v, let p):
                guard let x = scene.viewIndex[v] else { continue }
                let moved = x == w && p.frame.map { $0.origin != scene[w].frame.origin } == true
                let origin = scene[w].frame.origin
                scene.set(p, on: x)
                if moved { rebaseTouches(in: w, from: origin) }
                // The window's own frame, set through its id as a view: as `window.frame`.
                if x == w && p.frame != nil { structural = true }
                // A moving scroll view: a client's offset stops it (published); new keys or a new
                // size retarget its motion (ScrollViews.keysChanged).
                if p.boundsOrigin != nil && scrolls.isMoving(x) {
                    flush()
                    carryOut(scrolls.offsetSet(x, time: time, scene: scene))
                }
                if p.scroll != nil {
                    flush()
                    let dragging = arbiter.scrollSpecChanged(x, scene: scene)
                    carryOut(scrolls.keysChanged(x, dragging: dragging, time: time, scene: scene))
                } else if p.frame != nil && scrolls.isMoving(x) {
                    flush()
                    carryOut(scrolls.keysChanged(x, dragging: false, time: time, scene: scene))
                }
            case .window(let p):
                let origin = scene[w].frame.origin
                scene.set(p, on: w)
                if scene[w].frame.origin != origin { rebaseTouches(in: w, from: origin) }
                // A window's frame matters to whoever turns window points into screen points
                // (and it changes seldom): subscribers get the new scene.
                if p.frame != nil { structural = true }
            case .add(let f, let to, let index, _):
                guard let parent = scene.viewIndex[to] else { continue }
                let slots = scene.insert(f, under: parent, at: index)
                arbiter.add(views: slots, scene: scene)
                structural = true
            case .remove(let v):
                guard let x = scene.viewIndex[v] else { continue }
                // Only touches make a removal publish (their cancellations, their recognizers'
                // ends): with no finger down, removals in a row make one scene change.
                if touches.count > 0 { flush() }
                removeViews(scene.subtree(x), reason: .viewRemoved, time: time)
                _ = scene.remove(x)
                structural = true
            }
        }
        scene.views[w.rawValue].version += 1
        flush()
        return .success(.updated(window: id, version: scene[w].version))
    }

    /// Every id removing this scene view takes away: its subtree, their controllers and
    /// recognizers.
    func sceneIDs(under x: ViewIndex) -> [String] {
        var out: [String] = []
        for n in scene.subtree(x) {
            let node = scene[n]
            out.append(node.id)
            if let c = node.controller { out.append(scene[c].id) }
            out += node.gestures.map(\.id)
        }
        return out
    }
}
