import TouchSystem

/// `touchd web`: runs touchd-web (python/touchd_web, package touchd-web), the bridge that lets
/// web pages be touchd clients. The options are checked here only as far as their shape (the
/// table gives --help); touchd-web checks their values and reports its own errors.
struct WebCommand: Command {
    static let name = "web"
    static let summary = "serve web pages as touchd clients (runs touchd-web)"
    static let operands = ""
    static let about = """
    Runs touchd-web (execv, no shell) with these options: a WebSocket at /socket carrying the
    socket protocol unchanged, one daemon connection per page; GET /touchd.js (the page's
    library) and --static DIR. A page is accepted only from an --origin (default the server's
    own) and, on loopback, from a socket of the user running it; with --token-file it must also
    offer the token (subprotocol touchd.TOKEN, from #token= in its URL). Run it as the kiosk's
    user. touchd-web is looked for beside touchd, then in the build tree (python/touchd-web),
    then on PATH. docs/web.md says how to run a web kiosk.
    """
    static var options: [Option<WebCommand>] {
        [
            pass(["--socket"], value: "PATH", help: "the daemon's socket (default /run/touchd/touchd.sock)"),
            pass(["--listen"], value: "HOST:PORT", help: "where to listen (default 127.0.0.1:8470)"),
            pass(["--origin"], value: "URL", help: "an Origin allowed to connect (repeat for several)", repeatable: true),
            pass(["--token-file"], value: "FILE", help: "the token pages must offer (its first line)"),
            pass(["--static"], value: "DIR", help: "serve DIR's files (the kiosk's page)"),
            pass(["--max-connections"], value: "N", help: "pages connected at once (default 64)"),
            pass(["--queue-bytes"], value: "N", help: "bytes waiting for one page before its daemon\nconnection is no longer read (default 262144)"),
            pass(["--stall"], value: "S", help: "drop a page that takes nothing for S seconds (default 10)"),
            Option(["--version"], help: "touchd-web's version and websockets API") { c, _ throws(UsageError) in c.passed.append("--version") },
        ]
    }

    static func pass(_ names: [String], value: String, help: String, repeatable: Bool = false) -> Option<WebCommand> {
        Option(names, value: value, help: help, repeatable: repeatable) { c, v throws(UsageError) in c.passed += [names[0], v] }
    }

    var passed: [String] = []

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.isEmpty else { throw UsageError("takes no operands, got \"\(operands[0])\"") }
    }

    func run() throws(CommandFailure) -> Int32 {
        try HelperProgram.run("touchd-web", passed, package: "touchd-web")
    }
}
