import Testing
@testable import TouchCore

// The recognizer tests' scenes and readers of their numbers (recognizers on synthetic input:
// their states, in order, and their numbers).

/// One full-screen view "pad" that handles touches and carries `gestures`.
func gestureScene(_ gestures: String, viewExtra: String = "", children: String = "") -> Config {
    scene("""
        {"id": "pad", "frame": [0, 0, 800, 480], "touches": "handle", "multipleTouch": true \(viewExtra),
         "gestures": [\(gestures)], "subviews": [\(children)]}
        """)
}

func number(_ v: GestureValue?) -> Double? { if case .number(let n)? = v { return n }; return nil }
func point(_ v: GestureValue?) -> Point? { if case .point(let p)? = v { return p }; return nil }
func integer(_ v: GestureValue?) -> Int? { if case .integer(let n)? = v { return n }; return nil }
func near(_ a: Point?, _ b: Point, _ eps: Double = 1e-9) -> Bool { a.map { abs($0.x - b.x) < eps && abs($0.y - b.y) < eps } ?? false }
