/// `touchd speak`: runs touchd-speak (python/touchd_speak), the client that speaks the daemon's
/// `speech` messages through speech-dispatcher in the kiosk user's session. The daemon itself
/// has no sound device and links no speech library (libspeechd brings GLib); the options are
/// checked here only as far as their shape, touchd-speak checks their values.
struct SpeakCommand: Command {
    static let name = "speak"
    static let summary = "speak the screen reader's speech (runs touchd-speak)"
    static let operands = ""
    static let about = """
    Runs touchd-speak (execv, no shell): subscribes to the daemon's speech and headphones messages
    and speaks them through speech-dispatcher as VoiceOver would — a new focus interrupts what is
    being said, an announcement waits its turn — in each utterance's language and rate. A missing
    speech-dispatcher is a warning (it is started with speech-dispatcher --spawn unless
    --no-spawn, and looked for again); a daemon that goes away is waited for. Private text is to
    reach it only through the speaker role (clients.speakers, proposed in docs/accessibility.md:
    the daemon does not grant it yet), and is spoken only while headphones are plugged in. Run
    it as the kiosk's user (systemd/touchd-speak.service). touchd-speak is looked for beside
    touchd, then in the build tree (python/touchd-speak), then on PATH. docs/accessibility.md
    says how a kiosk is made readable.
    """
    static var options: [Option<SpeakCommand>] {
        [
            pass(["--socket"], value: "PATH", help: "the daemon's socket (default /run/touchd/touchd.sock)"),
            pass(["--speech"], value: "ADDRESS", help: "speech-dispatcher's address: unix_socket:PATH or\ninet_socket:HOST:PORT (default libspeechd's)"),
            pass(["--output"], value: "ID", help: "speak only this output's speech (repeat for several)", repeatable: true),
            flag(["--no-spawn"], help: "never start speech-dispatcher"),
            flag(["--verbose"], help: "log each utterance spoken (never private text)"),
            flag(["--version"], help: "touchd-speak's version"),
        ]
    }

    static func pass(_ names: [String], value: String, help: String, repeatable: Bool = false) -> Option<SpeakCommand> {
        Option(names, value: value, help: help, repeatable: repeatable) { c, v throws(UsageError) in c.passed += [names[0], v] }
    }

    static func flag(_ names: [String], help: String) -> Option<SpeakCommand> {
        Option(names, help: help) { c, _ throws(UsageError) in c.passed.append(names[0]) }
    }

    var passed: [String] = []

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.isEmpty else { throw UsageError("takes no operands, got \"\(operands[0])\"") }
    }

    func run() throws(CommandFailure) -> Int32 {
        try HelperProgram.run("touchd-speak", passed, package: "touchd-speak")
    }
}
