import TouchSystem
import TouchDaemon

// touchd-bench: the engine's benchmark, a program of its own so the shipped touchd carries none
// of it (scripts/bench engine and compare run it; Benchmarks/README.md says what is where).
ThisProcess.ignoreBrokenPipes()
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    ThisProcess.writeOutput(BenchCommand.help)
    ThisProcess.exit(0)
}
ThisProcess.exit(CLI.run(BenchCommand.self, arguments))
