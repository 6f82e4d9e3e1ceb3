import Testing
import TouchCore

/// Scenes for the engine's tests, written as config JSON (the rig, the test devices and the
/// finger are in TouchTestSupport).

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
