@preconcurrency import Glibc
import TouchDaemon

// Writing to a reader that has gone away must not kill the process: EPIPE is handled as a value.
signal(SIGPIPE, SIG_IGN)
exit(CLI.main(CommandLine.arguments))
