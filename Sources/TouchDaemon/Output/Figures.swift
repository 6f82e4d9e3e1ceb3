import TouchCore

/// Numbers as people read them, with fixed decimals: the figures of calibrate, measure, the
/// replay summary and touchd-bench.
package func format3(_ v: Double) -> String { fixed(v, 3) }
package func format1(_ v: Double) -> String { fixed(v, 1) }
package func formatRate(_ v: Double) -> String {
    v >= 1e6 ? fixed(v / 1e6, 2) + "M" : fixed(v / 1e3, 1) + "k"
}
package func fixed(_ v: Double, _ digits: Int) -> String {
    var out: [UInt8] = []
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (v * scale).rounded() / scale
    JSONWriter.appendDouble(r, digits: digits, to: &out)
    var s = String(decoding: out, as: UTF8.self)
    let decimals = s.split(separator: ".").last?.count ?? 0
    if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
    return s
}
extension String {
    package func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
