import TouchSystem
import TouchDaemon

ThisProcess.ignoreBrokenPipes()
ThisProcess.exit(CLI.main(CommandLine.arguments))
