import Testing
import TouchCore
import TouchTestSupport

/// Issue 28, item 4: a client attached a private full-screen window at level 1e300 and took
/// every touch-down, the kiosk's PIN digits included. `clients.levels` (or a client's
/// `clients.owners` entry) bounds the levels its windows may take, at attach and at update.
@Suite struct LiveSceneLevelTests {
    /// A full-screen window that would cover everything.
    func overlay(level: String) -> String {
        """
        {"attach": {"id": "overlay", "frame": [0, 0, 800, 480], "level": \(level), "private": true,
                    "view": {"id": "glass", "frame": [0, 0, 800, 480], "touches": "handle"}}}
        """
    }
    let kiosk = """
    {"attach": {"id": "kiosk", "frame": [0, 0, 800, 480], "level": 10,
                "view": {"id": "pin", "frame": [0, 0, 800, 480],
                         "subviews": [{"id": "digit1", "frame": [100, 100, 100, 100], "control": "button"}]}}}
    """

    @Test func aClientKeptBelowTheKioskCannotCoverIt() {
        let r = Rig(config(liveBase))
        r.limits.levels = 0...100              // the kiosk's entry
        #expect(r.send(kiosk, from: 1) == .attached(window: "kiosk", version: 1))
        r.limits.levels = -100...0             // everyone else's
        guard case .refused(let request, let window, let e) = r.send(overlay(level: "1e300"), from: 2) else {
            Issue.record("the overlay was attached above the kiosk")
            return
        }
        #expect(request == "attach" && window == "overlay")
        #expect(e.path == "level")
        #expect(e.message == "level 1e+300 is above this client's highest, 0 (clients.levels, or its clients.owners entry)")
        #expect(r.scene.viewIndex["overlay"] == nil)
        // Within its range it attaches, below the kiosk: the digit still gets its tap.
        #expect(r.send(overlay(level: "0"), from: 2) == .attached(window: "overlay", version: 1))
        r.tap(150, 150)
        #expect(r.take() == ["t1 began digit1", "digit1 touchDown", "t1 ended digit1", "digit1 touchUpInside", "digit1 primaryActionTriggered"])
    }

    @Test func anUpdateCannotRaiseAWindowPastItsRange() {
        let r = Rig(config(liveBase))
        r.limits.levels = -100...0
        r.send(overlay(level: "-1"), from: 2)
        let raise = #"{"update": {"window": "overlay", "changes": [{"window": {"frame": [0, 0, 10, 10]}}, {"window": {"level": 50}}]}}"#
        guard case .refused(_, _, let e) = r.send(raise, from: 2) else {
            Issue.record("the update raised the window past its range")
            return
        }
        #expect(e.path == "changes[1].window.level")
        #expect(e.message.hasPrefix("level 50 is above this client's highest, 0"))
        // Nothing of the update applied: the first change's frame neither.
        #expect(r.frameOf("overlay") == Rect(0, 0, 800, 480))
        let lower = #"{"update": {"window": "overlay", "changes": [{"window": {"level": -500}}]}}"#
        guard case .refused(_, _, let e2) = r.send(lower, from: 2) else { Issue.record("below the range"); return }
        #expect(e2.message.hasPrefix("level -500 is below this client's lowest, -100"))
        #expect(r.send(#"{"update": {"window": "overlay", "changes": [{"window": {"level": -100}}]}}"#, from: 2) == .updated(window: "overlay", version: 2))
    }

    @Test func withoutARangeEveryFiniteLevelIsAllowed() {
        let r = Rig(config(liveBase))
        #expect(r.send(overlay(level: "1e300"), from: 2) == .attached(window: "overlay", version: 1))
    }
}

/// `clients.levels` and the list form of `clients.owners` in the config.
@Suite struct ClientLevelsConfigTests {
    func parse(_ clients: String) -> (Config?, [String]) {
        do {
            return (try Config.parse(#"{"windows": [], "clients": \#(clients)}"#), [])
        } catch {
            return (nil, error.errors.map { "\($0.path): \($0.message)" })
        }
    }

    @Test func levelsAndOwnersEntriesAreRead() {
        let (c, problems) = parse("""
            {"levels": [-10, 0], "owners": [{"users": ["kiosk"], "levels": [0, 100]}, {"groups": ["touchd"]}]}
            """)
        #expect(problems.isEmpty, "\(problems)")
        #expect(c?.clients.limits.levels == -10...0)
        #expect(c?.clients.owners?.entries == [OwnersPolicy.Entry(users: ["kiosk"], levels: 0...100), OwnersPolicy.Entry(groups: ["touchd"])])
        // The first entry that names a peer decides: a user in both gets the first's range.
        let e = c?.clients.owners?.entry(uid: 1000, userName: "kiosk", groups: [(1000, "touchd")])
        #expect(e?.levels == 0...100)
        #expect(c?.clients.owners?.entry(uid: 1001, userName: "other", groups: [(1001, "touchd")])?.levels == nil)
        #expect(c?.clients.owners?.entry(uid: 1002, userName: "stranger", groups: [(1002, "stranger")]) == nil)
        // The object form is one entry, as before.
        #expect(parse(#"{"owners": {"users": ["a"], "groups": ["b"]}}"#).0?.clients.owners == OwnersPolicy(users: ["a"], groups: ["b"]))
    }

    @Test func mistakesAreNamedByPath() {
        #expect(parse(#"{"levels": [5, 1]}"#).1 == ["$.clients.levels: the lowest level (5) is above the highest (1)"])
        #expect(parse(#"{"levels": 3}"#).1 == ["$.clients.levels: expected [lowest, highest] levels, got a number"])
        #expect(parse(#"{"owners": [{"users": ["a"], "levels": [1]}]}"#).1 == ["$.clients.owners[0].levels: expected [lowest, highest] levels, got an array of 1 numbers"])
        #expect(parse(#"{"owners": {"users": ["a"], "levels": [0, 1]}}"#).1.first?.hasPrefix("$.clients.owners.levels: unknown key") == true)
        #expect(parse(#"{"owners": []}"#).1.first?.hasPrefix("$.clients.owners: an empty list lets no client own windows") == true)
    }
}
