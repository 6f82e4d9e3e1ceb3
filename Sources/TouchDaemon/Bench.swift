import TouchCore
struct BenchCommand: Command {
    static let name = "bench"
    static let summary = "benchmarks: replay throughput and hit-test time"
    static let help = "usage: touchd bench\n"
    init(arguments: [String]) throws(UsageError) {}
    func run() throws(CommandFailure) -> Int32 { 0 }
}
