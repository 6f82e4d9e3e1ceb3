import Testing
@testable import TouchCore
import TouchTestSupport

/// The accessibility model with plain values: the `accessibility` key read and checked, UIKit's
/// defaults (UIAccessibility: controls are elements with trait button, a disabled one
/// notEnabled, a labelled view is one, elements hide their subviews, hidden views and
/// accessibilityElementsHidden are not read, a modal view confines reading), the reading order
/// and the accessibility hit-test. Each expectation is worked out by hand from those rules.
@Suite struct AccessibilityTreeTests {
    func ids(_ s: Scene, _ vs: [ViewIndex]) -> [String] { vs.map { s[$0].id } }
    func order(_ c: Config, output: Int = 0) -> [String] { ids(c.scene, c.scene.readingOrder(output: output)) }
    func errors(_ json: String) -> [String] {
        do { _ = try Config.parse(json); return [] } catch { return error.errors.map { "\($0.path): \($0.message)" } }
    }

    @Test func controlsAndLabelledViewsAreElementsWithUIKitsTraits() {
        let c = scene("""
            {"id": "ok", "frame": [20, 20, 100, 44], "control": "button"},
            {"id": "off", "frame": [20, 80, 100, 44], "control": "button", "enabled": false},
            {"id": "title", "frame": [20, 140, 300, 30], "accessibility": {"label": "Menu", "traits": ["header"]}},
            {"id": "plain", "frame": [20, 200, 300, 30]},
            {"id": "notOne", "frame": [20, 240, 100, 44], "control": "button", "accessibility": {"element": false}},
            {"id": "forced", "frame": [20, 300, 100, 44], "accessibility": {"element": true}},
            {"id": "link", "frame": [20, 360, 100, 44], "control": "button", "accessibility": {"traits": ["link"]}}
            """)
        let s = c.scene
        func v(_ id: String) -> ViewIndex { s.viewIndex[id]! }
        #expect(s.isAccessibilityElement(v("ok")) && s.accessibilityTraits(v("ok")) == .button)
        // A disabled control is notEnabled besides its traits (UIControl reads isEnabled).
        #expect(s.accessibilityTraits(v("off")).list == [.button, .notEnabled])
        #expect(s.isAccessibilityElement(v("title")) && s.accessibilityTraits(v("title")).list == [.header])
        #expect(!s.isAccessibilityElement(v("plain")) && s.accessibilityTraits(v("plain")).list.isEmpty)
        #expect(!s.isAccessibilityElement(v("notOne")))
        #expect(s.isAccessibilityElement(v("forced")))
        // Traits given replace the control's button.
        #expect(s.accessibilityTraits(v("link")).list == [.link])
        #expect(!s.isAccessibilityElement(v("main")) && !s.isAccessibilityElement(v("root")))
        #expect(order(c) == ["ok", "off", "title", "forced", "link"])
    }

    @Test func anElementsSubviewsAndHiddenSubtreesAreNotRead() {
        let c = scene("""
            {"id": "card", "frame": [0, 0, 400, 100], "accessibility": {"label": "Card"},
             "subviews": [{"id": "inner", "frame": [10, 10, 80, 40], "control": "button"}]},
            {"id": "gone", "frame": [0, 100, 400, 100], "hidden": true,
             "subviews": [{"id": "g1", "frame": [10, 10, 80, 40], "control": "button"}]},
            {"id": "faded", "frame": [0, 200, 400, 100], "alpha": 0,
             "subviews": [{"id": "f1", "frame": [10, 10, 80, 40], "control": "button"}]},
            {"id": "muted", "frame": [0, 300, 400, 100], "accessibility": {"hidden": true},
             "subviews": [{"id": "m1", "frame": [10, 10, 80, 40], "control": "button"}]},
            {"id": "box", "frame": [0, 400, 400, 80], "userInteractionEnabled": false,
             "subviews": [{"id": "b1", "frame": [10, 10, 80, 40], "accessibility": {"label": "Read anyway"}}]}
            """)
        // userInteractionEnabled is the touch hit-test's gate, not the screen reader's.
        #expect(order(c) == ["card", "b1"])
        let s = c.scene
        #expect(s.accessibilityGate(s.viewIndex["gone"]!) == .hidden)
        #expect(s.accessibilityGate(s.viewIndex["faded"]!) == .alpha)
        #expect(s.accessibilityGate(s.viewIndex["muted"]!) == .accessibilityHidden)
    }

    @Test func readingOrderIsRowsTopToBottomEachLeftToRight() {
        // Added in a jumbled order. `label` (y 110…130) is centred on the taller `buy`
        // (y 100…144): overlap 20 ≥ half of 20, one row, read left to right. `b` (y 60…104)
        // overlaps `a` (y 50…94) by 34 ≥ 22: one row although its top is 10 lower. `c`
        // (y 160…204) overlaps `buy` by nothing: a new row.
        let c = scene("""
            {"id": "buy", "frame": [300, 100, 100, 44], "control": "button"},
            {"id": "c", "frame": [20, 160, 100, 44], "control": "button"},
            {"id": "b", "frame": [200, 60, 100, 44], "control": "button"},
            {"id": "label", "frame": [20, 110, 200, 20], "accessibility": {"label": "Total"}},
            {"id": "a", "frame": [20, 50, 100, 44], "control": "button"}
            """)
        #expect(order(c) == ["a", "b", "label", "buy", "c"])
    }

    @Test func aContainerIsReadAsAUnitByItsPlace() {
        // The toolbar (y 400) holds two buttons; the list above it (y 0) holds two rows, given
        // bottom row first. The list is read first, whole, then the toolbar.
        let c = scene("""
            {"id": "toolbar", "frame": [0, 400, 800, 80], "subviews": [
                {"id": "next", "frame": [600, 10, 100, 44], "control": "button"},
                {"id": "back", "frame": [10, 10, 100, 44], "control": "button"}]},
            {"id": "list", "frame": [0, 0, 800, 400], "scroll": {"contentSize": [800, 1200]}, "boundsOrigin": [0, 100], "subviews": [
                {"id": "row2", "frame": [0, 200, 800, 60], "accessibility": {"label": "Two"}},
                {"id": "row1", "frame": [0, 100, 800, 60], "accessibility": {"label": "One"}}]}
            """)
        #expect(order(c) == ["row1", "row2", "back", "next"])
        // row1 at content y 100 in a list scrolled by 100: at the screen's top.
        #expect(c.scene.screenFrame(of: c.scene.viewIndex["row1"]!) == Rect(0, 0, 800, 60))
    }

    @Test func orderListsTheViewsAContainerReads() {
        let c = scene("""
            {"id": "form", "frame": [0, 0, 800, 480], "accessibility": {"order": ["total", "pay", "deep"]}, "subviews": [
                {"id": "pay", "frame": [10, 10, 100, 44], "control": "button"},
                {"id": "skipped", "frame": [10, 60, 100, 44], "control": "button"},
                {"id": "total", "frame": [10, 400, 100, 44], "accessibility": {"label": "Total"}},
                {"id": "group", "frame": [400, 0, 400, 480], "hidden": true, "subviews": [
                    {"id": "deep", "frame": [0, 0, 100, 44], "control": "button"}]}]}
            """)
        // Only the views listed, in that order; `deep` sits in a hidden group: not read.
        #expect(order(c) == ["total", "pay"])
    }

    @Test func windowsAreReadFromTheHighestLevelDownAndAModalConfines() {
        let c = config("""
            {"screen": {"width": 800, "height": 480},
             "windows": [
               {"id": "base", "frame": [0, 0, 800, 480], "level": 0,
                "view": {"id": "baseRoot", "frame": [0, 0, 800, 480], "subviews": [{"id": "b1", "frame": [0, 0, 100, 44], "control": "button"}]}},
               {"id": "top", "frame": [0, 240, 800, 240], "level": 2,
                "view": {"id": "topRoot", "frame": [0, 0, 800, 240], "subviews": [{"id": "t1", "frame": [0, 0, 100, 44], "control": "button"}]}}]}
            """)
        #expect(order(c) == ["t1", "b1"])
        let m = config("""
            {"screen": {"width": 800, "height": 480},
             "windows": [
               {"id": "base", "frame": [0, 0, 800, 480],
                "view": {"id": "baseRoot", "frame": [0, 0, 800, 480], "subviews": [
                  {"id": "b1", "frame": [0, 0, 100, 44], "control": "button"},
                  {"id": "alert", "frame": [200, 100, 400, 200], "accessibility": {"modal": true}, "subviews": [
                    {"id": "yes", "frame": [10, 100, 100, 44], "control": "button"},
                    {"id": "msg", "frame": [10, 10, 380, 40], "accessibility": {"label": "Delete?"}}]}]}}]}
            """)
        #expect(order(m) == ["msg", "yes"])
        var t: [AccessibilityStep] = []
        // b1 is under the finger, but the modal alert confines reading: nothing there.
        #expect(m.scene.accessibilityHitTest(screen: Point(50, 20), output: 0, tracing: false, trace: &t) == nil)
        #expect(m.scene.accessibilityHitTest(screen: Point(250, 220), output: 0, tracing: false, trace: &t) == m.scene.viewIndex["yes"])
    }

    @Test func theHitTestFindsTheTopmostElementByItsFrame() {
        // `big` is under `small` (added first); a round button's corner is in its frame (the
        // screen reader does not ask pointInside), and a hitOutset does not widen it.
        let c = scene("""
            {"id": "big", "frame": [0, 0, 400, 200], "accessibility": {"label": "Big"}},
            {"id": "small", "frame": [100, 50, 100, 100], "control": "button", "shape": "ellipse", "hitOutset": 30},
            {"id": "wrap", "frame": [400, 0, 400, 200], "userInteractionEnabled": false, "subviews": [
                {"id": "note", "frame": [10, 10, 100, 30], "accessibility": {"label": "Note"}}]}
            """)
        let s = c.scene
        var t: [AccessibilityStep] = []
        func hit(_ x: Double, _ y: Double) -> String? { s.id(of: s.accessibilityHitTest(screen: Point(x, y), output: 0, tracing: false, trace: &t)) }
        #expect(hit(102, 52) == "small")     // the ellipse's corner
        #expect(hit(90, 52) == "big")        // in the outset, not the frame
        #expect(hit(420, 20) == "note")      // under a view that takes no touches
        #expect(hit(300, 300) == nil)
        t = []
        _ = s.accessibilityHitTest(screen: Point(102, 52), output: 0, tracing: true, trace: &t)
        var out: [UInt8] = []
        MessageEncoder(scene: s).encodeAccessibilityTrace(t, &out)
        // Windows, then subviews last to first: wrap misses, small answers, and the answer
        // goes back up through root and main.
        #expect(String(decoding: out, as: UTF8.self) == """
            [{"view":"main","step":"visit"},{"view":"root","step":"visit"},{"view":"wrap","step":"visit"},\
            {"view":"note","step":"visit"},{"view":"note","step":"frame","result":false},{"view":"note","step":"return","result":null},\
            {"view":"wrap","step":"return","result":null},{"view":"small","step":"visit"},{"view":"small","step":"frame","result":true},\
            {"view":"small","step":"return","result":"small"},{"view":"root","step":"return","result":"small"},{"view":"main","step":"return","result":"small"}]
            """)
    }

    @Test func activationPointIsInTheSuperviewsCoordinates() {
        let c = config("""
            {"screen": {"width": 800, "height": 480},
             "windows": [{"id": "w", "frame": [0, 100, 800, 380],
               "view": {"id": "r", "frame": [0, 0, 800, 380], "subviews": [
                 {"id": "coffee", "frame": [60, 100, 320, 160], "control": "button", "accessibility": {"activationPoint": [70, 110]}},
                 {"id": "tea", "frame": [400, 100, 200, 100], "control": "button"}]}}]}
            """)
        let s = c.scene
        #expect(s.activationPoint(of: s.viewIndex["coffee"]!) == Point(70, 210))
        #expect(s.activationPoint(of: s.viewIndex["tea"]!) == Point(500, 250))
    }

    @Test func whatIsSaidOfAnElement() {
        let en = SpokenWords.english
        let coffee = en.read(label: "Coffee", value: "large", hint: "Orders a coffee", traits: .button)
        #expect(coffee.text == "Coffee, large, button" && coffee.hint == "Orders a coffee")
        #expect(en.read(label: "Tea", value: nil, hint: nil, traits: AccessibilityTraits([.button, .selected])).text == "selected, Tea, button")
        #expect(en.read(label: "Pay", value: nil, hint: nil, traits: AccessibilityTraits([.button, .notEnabled])).text == "Pay, dimmed, button")
        let volume = en.read(label: "Volume", value: "50%", hint: nil, traits: AccessibilityTraits([.adjustable]))
        #expect(volume.text == "Volume, 50%, adjustable" && volume.hint == "Swipe up or down with one finger to adjust the value.")
        #expect(en.read(label: "Menu", value: nil, hint: nil, traits: AccessibilityTraits([.header, .staticText])).text == "Menu, heading")
        #expect(en.readSecure(traits: AccessibilityTraits([.key])) == "key")
        #expect(en.readSecure(traits: AccessibilityTraits([.staticText])) == nil)
        #expect(en.page(3, 5) == "page 3 of 5")
        #expect(SpokenWords.table(for: "en-GB", fallback: "de") == en && SpokenWords.table(for: "xx", fallback: "en") == en)
    }

    @Test func badKeysAreRefusedWithTheirPaths() {
        let e = errors("""
            {"screen": {"width": 800, "height": 480, "screenReader": "earphones"}, "speech": {"language": "english!"},
             "windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480],
               "accessibility": {"order": ["a", "elsewhere", "a"]}, "subviews": [
                 {"id": "a", "frame": [0, 0, 10, 10], "accessibility": {"traits": ["button", "shiny"], "language": "e", "label": 5, "size": 1}}]}},
               {"id": "w2", "frame": [0, 0, 800, 480], "view": {"id": "elsewhere", "frame": [0, 0, 10, 10]}}]}
            """)
        #expect(e.contains("$.screen.screenReader: expected true, false or \"headphones\" (on while headphones are plugged in), got \"earphones\""))
        #expect(e.contains("$.speech.language: expected a language tag such as \"en\" or \"de-AT\" (BCP 47), got \"english!\""))
        #expect(e.contains("$.windows[0].view.accessibility.order[2]: \"a\" is listed twice"))
        #expect(e.contains { $0.hasPrefix("$.windows[0].view.subviews[0].accessibility.traits[1]: unknown trait \"shiny\"") })
        #expect(e.contains { $0.hasPrefix("$.windows[0].view.subviews[0].accessibility.language: expected a language tag") })
        #expect(e.contains("$.windows[0].view.subviews[0].accessibility.label: expected a string, got a number"))
        #expect(e.contains { $0.hasPrefix("$.windows[0].view.subviews[0].accessibility.size: unknown key \"size\"") })
        let o = errors("""
            {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480],
               "accessibility": {"order": ["a", "elsewhere"]}, "subviews": [{"id": "a", "frame": [0, 0, 10, 10]}]}},
               {"id": "w2", "frame": [0, 0, 800, 480], "view": {"id": "elsewhere", "frame": [0, 0, 10, 10]}}]}
            """)
        #expect(o == ["$.windows[0].view.accessibility.order[1]: no view \"elsewhere\" under \"r\" (order lists views of its own subtree)"])
        let ok = config("""
            {"outputs": [{"id": "DSI-1", "width": 800, "height": 480, "screenReader": true}, {"id": "HDMI-A-1", "width": 1920, "height": 1080}],
             "speech": {"language": "de-AT"}, "windows": []}
            """)
        #expect(ok.scene.accessibility.screenReaderOutputs == ["DSI-1"] && ok.scene.accessibility.language == "de-AT")
    }

    @Test func setMergesTheKeysGivenAndNullResets() {
        let rig = Rig(scene(""))
        #expect(rig.send(sceneRequest("""
            {"attach": {"id": "kiosk", "frame": [0, 0, 800, 480], "view": {"id": "kroot", "frame": [0, 0, 800, 480], "subviews": [
              {"id": "size", "frame": [0, 0, 200, 44], "accessibility": {"label": "Size", "value": "small", "traits": ["adjustable"]}}]}}}
            """), from: 1) == .attached(window: "kiosk", version: 1))
        _ = rig.send(sceneRequest(#"{"update": {"window": "kiosk", "changes": [{"view": "size", "set": {"accessibility": {"value": "large"}}}]}}"#), from: 1)
        var a = rig.engine.scene[rig.engine.scene.viewIndex["size"]!].accessibility
        #expect(a?.label == "Size" && a?.value == "large" && a?.traits == AccessibilityTraits([.adjustable]))
        _ = rig.send(sceneRequest(#"{"update": {"window": "kiosk", "changes": [{"view": "size", "set": {"accessibility": {"label": null, "hidden": true}}}]}}"#), from: 1)
        a = rig.engine.scene[rig.engine.scene.viewIndex["size"]!].accessibility
        #expect(a?.label == nil && a?.value == "large" && a?.hidden == true)
        let bad = rig.send(sceneRequest(#"{"update": {"window": "kiosk", "changes": [{"view": "kroot", "set": {"accessibility": {"order": ["size", "nowhere"]}}}]}}"#), from: 1)
        #expect(bad == .refused(request: "update", window: "kiosk", error: SceneRequestError(path: "changes[0].set.accessibility.order[1]", message: "no view \"nowhere\" in window \"kiosk\"")))
    }
}
