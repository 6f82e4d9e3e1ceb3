// Every fuzz target's entry, by the name scripts/fuzz and touchd-fuzz use. The harnesses are
// one library (TouchFuzz, a package target built by `swift build`); scripts/fuzz links each
// into a libFuzzer binary through a one-line LLVMFuzzerTestOneInput, and touchd-fuzz (the
// runner, Fuzz/Runner) plays saved inputs through them without libFuzzer (CI's replay).

public enum FuzzTargets {
    public typealias Entry = @Sendable (UnsafePointer<UInt8>, Int) -> CInt

    /// The targets in the order they are listed and fuzzed; scenebig is the scene harness fed
    /// large inputs (its own corpus and max_len, scripts/fuzz).
    public static let all: [(name: String, entry: Entry)] = [
        ("evemu", fuzzEvemu), ("libinput", fuzzLibinput), ("raw", fuzzRaw), ("getevent", fuzzGetevent),
        ("config", fuzzConfig), ("wire", fuzzWire), ("scene", fuzzScene), ("scenebig", fuzzScene), ("replay", fuzzReplay),
    ]

    public static func named(_ name: String) -> Entry? { all.first { $0.name == name }?.entry }
}
