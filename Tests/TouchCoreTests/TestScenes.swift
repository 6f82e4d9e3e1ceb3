import Testing
import TouchCore
import TouchTestSupport

/// Scenes and scene requests for the engine's tests, written as JSON (the rig, the test devices
/// and the finger are in TouchTestSupport).

/// A test's config; one that does not parse fails the test (not the whole run) and gives an
/// empty one-window scene.
func config(_ json: String) -> Config {
    do { return try Config.parse(json) } catch {
        Issue.record("test config does not parse: \(error)")
        return try! Config.parse("{\"windows\": [{\"id\": \"broken\", \"frame\": [0, 0, 800, 480]}]}")
    }
}

/// A one-window scene: `views` is the root view's subviews JSON.
func scene(_ subviews: String, rootExtra: String = "", extra: String = "") -> Config {
    config("""
    {"screen": {"width": 800, "height": 480},
     "application": {"id": "app", "delegate": "appDelegate", "scene": "scene"},
     "windows": [{"id": "main", "frame": [0, 0, 800, 480],
                  "view": {"id": "root", "frame": [0, 0, 800, 480] \(rootExtra), "subviews": [\(subviews)]}}]
     \(extra)}
    """)
}

/// A client's request as it would arrive on the socket: `{"attach":{…}}` and so on.
func sceneRequest(_ json: String) -> SceneRequest? {
    guard let node = try? JSONParser.parse(json), let m = node.members?.first else {
        Issue.record("test request is not JSON: \(json)")
        return nil
    }
    switch SceneRequest.parse(m.key, m.value) {
    case .success(let r): return r
    case .failure(let e):
        Issue.record("test request does not parse: \(e)")
        return nil
    case nil:
        Issue.record("not a scene request: \(m.key)")
        return nil
    }
}

extension Rig {
    /// A client's request, written as on the socket (`{"attach":{…}}`); the engine's reply.
    /// One that does not parse fails the test and sends nothing.
    @discardableResult
    func send(_ json: String, from client: Int) -> SceneReply? { send(sceneRequest(json), from: client) }
}
