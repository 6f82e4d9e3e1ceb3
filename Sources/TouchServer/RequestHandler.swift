import TouchCore

/// What a client's request line asks for, decided without I/O: a reply, an error (with the
/// request's line), a new subscription, the statistics, or a scene request for the engine.
public enum RequestHandler {
    public enum Response: Equatable, Sendable {
        case reply([UInt8])
        case error(RequestError)
        case subscribe(SubscriptionFilter)
        case stats
        case systemGestures
        case scene(SceneRequest)
    }

    public static func respond(to line: [UInt8], scene: Scene, client: Int? = nil) -> Response {
        switch WireProtocol.parse(line) {
        case .failure(let e):
            return .error(e)
        case .success(.scene(let r)):
            return .scene(r)
        case .success(.ping(let v)):
            return .reply(WireProtocol.pong(v))
        case .success(.stats):
            return .stats
        case .success(.systemGestures):
            return .systemGestures
        case .success(.subscribe(let types, let windows, let views, let maxRate, let speaker)):
            var f = SubscriptionFilter()
            f.maxRate = maxRate
            f.speaker = speaker   // a claim: the server asks its host whether the policy grants it
            if let types { f.types = Set(types) }
            f.windowIDs = windows ?? []
            f.viewIDs = views ?? []
            let unknown = f.resolve(in: scene, client: client)
            if !unknown.isEmpty {
                return .error(RequestError("subscribe: no window or view has id \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")); subscription unchanged"))
            }
            return .subscribe(f)
        }
    }
}
