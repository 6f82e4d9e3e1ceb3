/// The live scene: clients attach windows, change them and detach them between two hardware
/// frames. Each request is checked as a whole first (ids free across the whole scene, the
/// window's owner, the client's limits), then applied at once — all of it, or nothing. A touch
/// whose view goes away is cancelled (view-removed, window-removed, client-gone) and ignored
/// until its finger lifts; what the change did to the scene reaches the caller's outbox as a
/// scene change after any cancellation, so every message is encoded with the ids of its time.

/// How much of the scene one client may own (`clients` in the config).
public struct ClientLimits: Sendable, Equatable {
    public var windows = 16
    public var views = 4096
    /// The levels its windows may take (`clients.levels`, or its `clients.owners` entry's):
    /// a client kept below the kiosk's level cannot cover the kiosk's windows (issue 28, item 4).
    public var levels: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
    /// The outputs it may act on — turn, calibrate a device of (interface.md, "Acting on an
    /// output"): nil, every output (its levels reach the top of the policy's ranges, or there is
    /// no policy); else those whose `outputs[].actors` name it. The daemon decides (issue 40).
    public var actsOn: Set<String>?
    /// How long a calibration waits for a tap before it ends by itself (`clients.calibrationTimeout`,
    /// microseconds; reason `timeout`).
    public var calibrationTimeout: Int64 = 30_000_000
    public init() {}

    /// Why this client may not act on output `id` (nil: it may).
    func actProblem(_ id: String, _ what: String) -> String? {
        guard let actsOn, !actsOn.contains(id) else { return nil }
        return "\(what) output \"\(id)\" is for clients whose levels reach the top of clients.owners' ranges (this client's highest: \(ClientLimits.format(levels.upperBound))), or that outputs[].actors names"
    }

    /// Why a window may not take this level, or nil when it may.
    func levelProblem(_ level: Double) -> String? {
        if level > levels.upperBound { return "level \(ClientLimits.format(level)) is above this client's highest, \(ClientLimits.format(levels.upperBound)) (clients.levels, or its clients.owners entry)" }
        if level < levels.lowerBound { return "level \(ClientLimits.format(level)) is below this client's lowest, \(ClientLimits.format(levels.lowerBound)) (clients.levels, or its clients.owners entry)" }
        return nil
    }

    static func format(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d) }
}

/// The answer to a scene request, for the client that sent it.
public enum SceneReply: Sendable, Equatable {
    case attached(window: String, version: Int)
    case updated(window: String, version: Int)
    case detached(window: String)
    /// An output request was carried out: the output as it is now.
    case turned(Output)
    /// A calibration started (its first target) or was cancelled (`ended`).
    case calibration(CalibrationMessage)
    /// A screen reader request was carried out (AccessibilityRequests.swift).
    case accessibility(AccessibilityReply)
    /// A session request was carried out: the output's session as it is now.
    case session(output: String, idle: Bool, keepAwake: Int)
    /// `window` is nil when the request did not get as far as naming one.
    case refused(request: String, window: String?, error: SceneRequestError)
}

extension Engine {
    /// Applies one request of client `client`.
    public func apply(_ request: SceneRequest, from client: Int, limits: ClientLimits = ClientLimits(), time: Int64) -> SceneReply {
        if time > lastTime { lastTime = time }
        // The top of its range as it was last asked: what a higher client's attach is measured
        // against when it wants one of this client's ids (preemption).
        clientTops[client] = limits.levels.upperBound
        let result: Result<SceneReply, SceneRequestError>
        switch request {
        case .attach(let f, let isPrivate, let refs): result = attach(f, isPrivate: isPrivate, references: refs, client: client, limits: limits, time: time)
        case .update(let w, let changes): result = update(w, changes, client: client, limits: limits, time: time)
        case .detach(let w): result = detach(w, client: client, time: time)
        case .output(let id, let r): result = turnOutput(id, to: r, limits: limits, time: time)
        case .calibrate(let device, let targets): result = startCalibration(device: device, targets: targets, client: client, limits: limits, time: time)
        case .cancelCalibration(let device): result = cancelCalibration(device: device, client: client)
        case .accessibility(let r): result = accessibilityRequest(r, client: client, limits: limits, time: time)
        case .session(let output, let action): result = sessionRequest(output: output, action, client: client, limits: limits, time: time)
        }
        switch result {
        case .success(let reply): return reply
        case .failure(let e): return .refused(request: request.name, window: request.window, error: e)
        }
    }

    /// Puts the answer to a scene request (`tag`: the caller's) in the outbox, after what the
    /// request published, so that its asker reads them in that order whoever drains.
    public func answer(tag: Int, _ reply: SceneReply) { outbox.reply(tag: tag, reply) }

    /// A client went away: all its windows at once; their touches are cancelled (client-gone).
    public func clientGone(_ client: Int, time: Int64) { _ = clientsGone([client], time: time) }

    /// Clients went away: all their windows in one change (one pass over the windows, one
    /// scene change for all of them: 250 clients leaving at once made 250 changes, each copying
    /// the whole scene). Returns the windows removed per client, in `clients`' order.
    public func clientsGone(_ clients: [Int], time: Int64) -> [(client: Int, windows: Int)] {
        // Their calibrations end, nothing changed (the daemon ends them at once, before it
        // spreads a mass disconnect's windows over turns; a replayed scene's disconnect here).
        for c in clients { calibrationClientGone(c); sessionClientGone(c, time: time); clientTops[c] = nil }
        let set = Set(clients)
        var windows: [ViewIndex] = []
        var count: [Int: Int] = [:]
        for w in scene.windowOrder {
            guard let o = scene[w].owner, set.contains(o) else { continue }
            windows.append(w)
            count[o, default: 0] += 1
        }
        guard !windows.isEmpty else { return clients.map { ($0, 0) } }
        removeViews(windows.flatMap { scene.subtree($0) }, reason: .clientGone, time: time)
        for w in windows { _ = scene.remove(w) }
        outbox.sceneChanged(scene)
        return clients.map { ($0, count[$0] ?? 0) }
    }

    /// The views client `client`'s windows hold (for spreading a mass disconnect over turns).
    public func viewsOwned(by client: Int) -> Int {
        scene.windowOrder.reduce(0) { scene[$1].owner == client ? $0 + scene.subtree($1).count : $0 }
    }

    /// Windows client `client` owns, and what counts against its `clients.views`: its views
    /// (windows' root views excepted) and their gesture recognizers.
    public func owned(by client: Int) -> (windows: Int, views: Int) {
        let windows = scene.windowOrder.filter { scene[$0].owner == client }
        return (windows.count, windows.reduce(0) { $0 + limitedObjects(under: $1) - 1 })
    }

    /// The views of `x`'s subtree and their gesture recognizers.
    func limitedObjects(under x: ViewIndex) -> Int {
        scene.subtree(x).reduce(0) { $0 + 1 + scene[$1].recognizerCount }
    }

    // MARK: Requests

    func attach(_ f: SceneFragment, isPrivate: Bool, references: [GestureReference], client: Int, limits: ClientLimits, time: Int64) -> Result<SceneReply, SceneRequestError> {
        let id = f.views[0].id
        let mine = owned(by: client)
        if mine.windows + 1 > limits.windows {
            return .failure(SceneRequestError(path: "", message: "too many windows for one client (the limit is \(limits.windows))"))
        }
        if mine.views + f.limitedObjects > limits.views {
            return .failure(SceneRequestError(path: "view", message: "too many views for one client (the limit is \(limits.views) views and gesture recognizers; this window has \(f.limitedObjects))"))
        }
        if let problem = limits.levelProblem(f.views[0].level) { return .failure(SceneRequestError(path: "level", message: problem)) }
        if let o = f.views[0].outputID, scene.outputIndex(named: o) == nil {
            return .failure(SceneRequestError(path: "output", message: "no output has id \"\(o)\" (outputs: \(scene.outputs.map(\.id).joined(separator: ", ")))"))
        }
        if let e = taken(f, skippingRoot: false, freed: []) {
            // Ids are not first come, first served: a client whose range reaches above every
            // holder's takes them, and the holders' windows go (issue 40, item 3).
            guard let holders = preemptable(f, by: client, top: limits.levels.upperBound) else { return .failure(e) }
            if let e = unresolved(references, in: f, freed: [], client: client) { return .failure(e) }
            for w in holders {
                let (id, owner) = (scene[w].id, scene[w].owner!)
                removeViews(scene.subtree(w), reason: .windowRemoved, time: time)
                _ = scene.remove(w)
                outbox.notice(client: owner, .detached(window: id, reason: "preempted"))
                log?(.notice, "window \"\(id)\" of client \(owner) preempted by client \(client), whose levels reach higher")
            }
            outbox.sceneChanged(scene)
            if let e = taken(f, skippingRoot: false, freed: []) { return .failure(e) }
        }
        if let e = unresolved(references, in: f, freed: [], client: client) { return .failure(e) }
        let w = scene.attachWindow(f, owner: client, isPrivate: isPrivate)
        scene.views[w.rawValue].version = 1
        arbiter.add(views: scene.subtree(w), scene: scene)
        outbox.sceneChanged(scene)
        return .success(.attached(window: id, version: 1))
    }

    func detach(_ id: String, client: Int, time: Int64) -> Result<SceneReply, SceneRequestError> {
        let w: ViewIndex
        switch ownedWindow(id, client: client) {
        case .failure(let e): return .failure(e)
        case .success(let x): w = x
        }
        removeViews(scene.subtree(w), reason: .windowRemoved, time: time)
        _ = scene.remove(w)
        outbox.sceneChanged(scene)
        return .success(.detached(window: id))
    }

    func ownedWindow(_ id: String, client: Int) -> Result<ViewIndex, SceneRequestError> {
        guard let w = scene.viewIndex[id], scene[w].isWindow else {
            return .failure(SceneRequestError(path: "window", message: "no window has id \"\(id)\""))
        }
        guard scene[w].owner == client else {
            // Another client's window is answered as one that does not exist: an error must
            // not tell a client which ids another client's windows have.
            if scene[w].owner != nil { return .failure(SceneRequestError(path: "window", message: "no window has id \"\(id)\"")) }
            return .failure(SceneRequestError(path: "window", message: "window \"\(id)\" belongs to the configuration: only its owner may change it"))
        }
        return .success(w)
    }

    /// The windows holding the fragment's taken ids, when client `client` (whose levels reach
    /// `top`) may take them all: each another client's, whose levels (as it last asked) reach
    /// lower. nil when any id is the config's or its own, or a holder reaches as high.
    func preemptable(_ f: SceneFragment, by client: Int, top: Double) -> [ViewIndex]? {
        var holders: [ViewIndex] = []
        func hold(_ w: ViewIndex) -> Bool {
            guard let owner = scene[w].owner, owner != client, (clientTops[owner] ?? .infinity) < top else { return false }
            if !holders.contains(w) { holders.append(w) }
            return true
        }
        for id in f.ids(skippingRoot: false) {
            if let v = scene.viewIndex[id] {
                guard hold(scene[v].window) else { return nil }
            } else if let r = scene.responderIndex[id] {
                // A controller's id: the window of the view it is.
                guard let v = scene.responders[r.rawValue].view, hold(scene[v].window) else { return nil }
            }
        }
        for id in f.gestureIDs {
            if let r = arbiter.byID[id] { guard hold(scene[arbiter[r].view].window) else { return nil } }
        }
        return holders.isEmpty ? nil : holders
    }

    /// An id of the fragment that the scene already uses (ids freed earlier in the same update
    /// are free again).
    func taken(_ f: SceneFragment, skippingRoot: Bool, freed: Set<String>, added: Set<String> = []) -> SceneRequestError? {
        for id in f.ids(skippingRoot: skippingRoot) {
            let inScene = (scene.viewIndex[id] != nil || scene.responderIndex[id] != nil) && !freed.contains(id)
            if inScene || added.contains(id) {
                return SceneRequestError(path: idPath(f.paths[id]), message: "id \"\(id)\" is taken: ids are unique across the whole scene")
            }
        }
        for id in f.gestureIDs where (arbiter.byID[id] != nil && !freed.contains(id)) || added.contains(id) {
            return SceneRequestError(path: idPath(f.paths[id]), message: "gesture recognizer id \"\(id)\" is taken")
        }
        return nil
    }

    /// Where an id is written: the `id` key of a view, window or recognizer object, or a
    /// view's `controller` key itself.
    func idPath(_ path: String?) -> String {
        guard let path, !path.isEmpty else { return "id" }
        return path.hasSuffix(".controller") ? path : path + ".id"
    }

    func unresolved(_ refs: [GestureReference], in f: SceneFragment, freed: Set<String>, client: Int) -> SceneRequestError? {
        let own = Set(f.gestureIDs)
        for ref in refs {
            for id in ref.ids where !own.contains(id) && (!referable(id, by: client) || freed.contains(id)) {
                return SceneRequestError(path: ref.path, message: "no gesture recognizer has id \"\(id)\"")
            }
        }
        return nil
    }

    /// A recognizer a client may name (requireToFail, simultaneousWith): one of the config's or
    /// of its own windows — another client's recognizers are not its business (and a private
    /// window's would tell it what happens there).
    func referable(_ id: String, by client: Int) -> Bool {
        guard let r = arbiter.byID[id] else { return false }
        let owner = scene[scene[arbiter[r].view].window].owner
        return owner == nil || owner == client
    }

    /// Touches whose place is gone (their output turned): cancelled for whoever knows them — the
    /// responders that saw them begin, their recognizers, subscribers — then followed, undelivered,
    /// until their fingers lift (Engine+Outputs' cancelTouches).
    func cancelForEveryone(_ affected: [Int], reason: CancelReason, time: Int64) {
        publishCancellations(affected.map { touches[$0] }.filter(\.isVisible), reason: reason, time: time)
        carryOut(arbiter.cancel(touches: affected, arbiterContext(time)))
        for i in affected {
            _ = touches[i].live(.unbound)
            touches[i].view = nil
            touches[i].window = nil
            touches[i].ignored = nil
            touches[i].recognizers = []
        }
    }

    /// Touches on these views are cancelled with `reason` for the views (those that had not
    /// seen them cancelled already) and go on, undelivered, until their fingers lift; the
    /// views' own recognizers end and go. A touch's recognizers are fixed at its touch-down
    /// (UIKit): those of the views that stay — ancestors', pending or recognized — keep
    /// following it to its lift (a list whose pan took a drag keeps following the finger when
    /// the client replaces the row it began on).
    func removeViews(_ views: [ViewIndex], reason: CancelReason, time: Int64) {
        if !reader.isEmpty { reader.forget(views) }
        let (gone, actions) = arbiter.remove(views: views, arbiterContext(time))
        scrolls.forget(recognizers: gone, views: views)
        carryOut(actions)
        let set = Set(views)
        touches.taps.reset { set.contains($0) }
        let removed = Set(gone)
        // Touches bound to a removed view, and those that a removed view's recognizer or window
        // still names (a touch whose row went earlier, when its list goes now).
        let affected = touches.ordered.filter {
            let t = touches[$0]
            return t.view.map(set.contains) == true || t.window.map(set.contains) == true || t.recognizers.contains(where: removed.contains)
        }
        guard !affected.isEmpty else { return }
        publishCancellations(affected.map { touches[$0] }.filter { $0.isVisible && $0.view.map(set.contains) == true }, reason: reason, time: time)
        for i in affected {
            if touches[i].view.map(set.contains) == true {
                _ = touches[i].live(.unbound)
                touches[i].view = nil
                touches[i].ignored = nil
            }
            if touches[i].window.map(set.contains) == true { touches[i].window = nil }
            // The removed recognizers' slots will be reused: the touch forgets them.
            touches[i].recognizers.removeAll { removed.contains($0) }
        }
        // What the recognizers' ends released (touches they held) is delivered now.
        deliver(time: time)
        finishStep(time: time)
    }

    /// A window moved under its touches: the fingers stay where they are on the screen, so their
    /// locations in the window move the other way (and recognizers keep screen points right).
    func rebaseTouches(in w: ViewIndex, from old: Point) {
        let origin = scene[w].frame.origin
        let delta = origin - old
        for i in touches.ordered where touches[i].window == w {
            touches[i].windowOrigin = origin
            touches[i].location = touches[i].location - delta
            touches[i].previous = touches[i].previous - delta
            touches[i].start = touches[i].start - delta
        }
    }
}

/// A reload enforces the new policy on the windows clients already own (issue 40, item 4): a
/// tightened range used to leave a window at its old level over the kiosk, and a client taken
/// out of `clients.owners` could still update its window to full screen.
extension Engine {
    /// The clients that own windows now, in the order of their first window.
    public var windowOwners: [Int] {
        var seen = Set<Int>()
        return scene.windowOrder.compactMap { scene[$0].owner }.filter { seen.insert($0).inserted }
    }

    /// Brings client `client`'s windows under its new policy: `levels` nil, it may own none —
    /// every window of its goes (touches cancelled, window-removed); otherwise each window out of
    /// `levels` moves to the nearest level within it. The owner gets a notice per window
    /// (reason `policy`). Returns how many windows were changed or removed.
    @discardableResult
    public func enforcePolicy(client: Int, levels: ClosedRange<Double>?, time: Int64) -> Int {
        if time > lastTime { lastTime = time }
        let mine = scene.windowOrder.filter { scene[$0].owner == client }
        guard let levels else {
            clientTops[client] = nil
            for w in mine {
                let id = scene[w].id
                removeViews(scene.subtree(w), reason: .windowRemoved, time: time)
                _ = scene.remove(w)
                outbox.notice(client: client, .detached(window: id, reason: "policy"))
                log?(.notice, "window \"\(id)\" of client \(client) removed: the reloaded clients.owners no longer names its client")
            }
            if !mine.isEmpty { outbox.sceneChanged(scene) }
            return mine.count
        }
        clientTops[client] = levels.upperBound
        var limits = ClientLimits()
        limits.levels = levels
        var changed = 0
        for w in mine where !levels.contains(scene[w].level) {
            let id = scene[w].id
            let level = min(max(scene[w].level, levels.lowerBound), levels.upperBound)
            var p = WindowProperties()
            p.level = level
            guard case .success(.updated(_, let version)) = update(id, [.window(p)], client: client, limits: limits, time: time) else { continue }
            outbox.notice(client: client, .level(window: id, level: level, version: version, reason: "policy"))
            log?(.notice, "window \"\(id)\" of client \(client) moved to level \(ClientLimits.format(level)): the reloaded policy's range for its client")
            changed += 1
        }
        return changed
    }
}
