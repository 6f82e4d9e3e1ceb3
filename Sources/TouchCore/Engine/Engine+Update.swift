/// `update`: a window's changes, checked in order against the scene as the earlier changes
/// leave it (an overlay of ids added and removed, nothing touched), then applied together.
extension Engine {
    /// What the changes checked so far did, by id, without touching the scene.
    struct UpdateOverlay {
        /// Ids added by earlier changes (views, controllers, recognizers): taken for the rest of
        /// the update, even if a later change removes them again.
        var added: Set<String> = []
        /// Each added view's parent (the `to` of its change, or its parent in the subtree).
        var addedParent: [String: String] = [:]
        /// Added views a later change removed (their subtrees go with them).
        var deadAdded: Set<String> = []
        /// Ids of the scene removed by earlier changes (views, controllers, recognizers): free
        /// again for a later add.
        var removed: Set<String> = []
        var addedViews = 0
        var structural = false
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
            case .set(let v, _):
                guard alive(v, in: w, o) else { return .failure(SceneRequestError(path: at + ".view", message: "no view \"\(v)\" in window \"\(id)\"")) }
            case .window:
                // A window's frame and level matter to whoever turns window points into screen
                // points (and they change seldom): subscribers get the new scene.
                o.structural = true
            case .add(let f, let to, _, let refs):
                guard alive(to, in: w, o) else { return .failure(SceneRequestError(path: at + ".to", message: "no view \"\(to)\" in window \"\(id)\"")) }
                if let e = taken(f, skippingRoot: true, freed: o.removed, added: o.added) {
                    return .failure(SceneRequestError(path: at + "." + e.path, message: e.message))
                }
                for ref in refs {
                    for g in ref.ids where !f.gestureIDs.contains(g) && !o.added.contains(g) && (arbiter.byID[g] == nil || o.removed.contains(g)) {
                        return .failure(SceneRequestError(path: at + "." + ref.path, message: "no gesture recognizer has id \"\(g)\""))
                    }
                }
                o.addedViews += f.views.count - 1
                for n in f.ids(skippingRoot: true) + f.gestureIDs { o.added.insert(n) }
                for k in f.views.indices.dropFirst() {
                    let parent = f.views[k].superview.map { $0.rawValue == 0 ? to : f.views[$0.rawValue].id } ?? to
                    o.addedParent[f.views[k].id] = parent
                }
                o.structural = true
            case .remove(let v):
                guard alive(v, in: w, o) else { return .failure(SceneRequestError(path: at + ".remove", message: "no view \"\(v)\" in window \"\(id)\"")) }
                if v == id { return .failure(SceneRequestError(path: at + ".remove", message: "\"\(v)\" is the window: detach removes a window")) }
                if o.addedParent[v] != nil {
                    o.deadAdded.insert(v)
                } else {
                    o.removed.formUnion(sceneIDs(under: scene.viewIndex[v]!))
                }
                o.structural = true
            }
        }
        if o.addedViews > 0 && owned(by: client).views + o.addedViews > limits.views {
            return .failure(SceneRequestError(path: "changes", message: "too many views for one client (the limit is \(limits.views))"))
        }
        // 2. Apply them, in order.
        for c in changes {
            switch c {
            case .set(let v, let p):
                scene.set(p, on: scene.viewIndex[v]!)
            case .window(let p):
                scene.set(p, on: w)
            case .add(let f, let to, let index, _):
                let slots = scene.insert(f, under: scene.viewIndex[to]!, at: index)
                arbiter.add(views: slots, scene: scene)
            case .remove(let v):
                let x = scene.viewIndex[v]!
                removeViews(scene.subtree(x), reason: .viewRemoved, time: time)
                _ = scene.remove(x)
            }
        }
        scene.views[w.rawValue].version += 1
        if o.structural { outbox.sceneChanged(scene) }
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
