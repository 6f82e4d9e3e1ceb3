import TouchCore

/// `touchd run`: the daemon (socket server, live devices) arrives with the daemon issue.
struct RunCommand: Command {
    static let name = "run"
    static let summary = "the daemon: read touchscreens (or a capture), publish on the socket"
    static let help = """
    usage: touchd run [--config FILE] [--socket PATH] [--replay CAPTURE [--speed X]]

    Not available yet in this build: use 'touchd replay' for captures.

    """
    init(arguments: [String]) throws(UsageError) {}
    func run() throws(CommandFailure) -> Int32 {
        throw CommandFailure("the daemon is not part of this build yet; use 'touchd replay'")
    }
}
