/// A new scene (a config reload): which touches keep their view, matched by id — the view
/// must still exist, in a window of the same id — and which lose it. Those that lose it are
/// cancelled (reason view-removed) through the old scene and then tracked, undelivered, until
/// their fingers lift.
enum SceneReloader {
    struct Plan {
        /// Touch table positions with the view and window they are bound to in the new scene.
        var survivors: [(index: Int, view: ViewIndex, window: ViewIndex)] = []
        /// Touch table positions of the touches whose view is gone.
        var removed: [Int] = []
    }

    static func plan(_ touches: TouchTable, from old: Scene, to new: Scene) -> Plan {
        var plan = Plan()
        for i in touches.ordered {
            guard let view = touches[i].view else { continue }
            let newView = new.viewIndex[old[view].id]
            let newWindow = touches[i].window.flatMap { new.viewIndex[old[$0].id] }
            if let v = newView, let w = newWindow, new[v].window == w {
                plan.survivors.append((i, v, w))
            } else {
                plan.removed.append(i)
            }
        }
        return plan
    }
}
