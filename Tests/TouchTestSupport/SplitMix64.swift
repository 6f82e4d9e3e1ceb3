/// The tests' one seeded random number generator: SplitMix64 (Steele, Lea and Flood, 2014;
/// the constants of Vigna's reference code). The same seed gives the same stream on every
/// machine, so a failing seed can be replayed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<n (n > 0). Every call takes one number from the stream, even for n = 1,
    /// so what a seed does does not depend on the sizes asked for along the way.
    public mutating func int(_ n: Int) -> Int {
        precondition(n > 0, "SplitMix64.int(\(n)): the range is empty")
        return Int(next() % UInt64(n))
    }
}
