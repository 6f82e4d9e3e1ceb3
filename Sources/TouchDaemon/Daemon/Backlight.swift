import TouchCore
import TouchSystem

/// The backlights of the outputs whose session names one (`session.backlight`, a
/// `/sys/class/backlight` device's directory): a consumer of the engine's output like TUIO, it
/// turns a panel off at `idle` and on at `wake`. Off is `bl_power` 4 (FB_BLANK_POWERDOWN) and —
/// since some panels' drivers ignore `bl_power` — `brightness` 0, the brightness it had written
/// back at `wake` with `bl_power` 0 (FB_BLANK_UNBLANK). Either attribute alone does where the
/// other is missing. Every write goes through TouchSystem's FileSystem (a test points the config
/// at a directory of its own); one that fails is logged, never fatal.
final class Backlight {
    /// What a panel's attributes are, as found (`check`).
    struct Panel: Equatable {
        var path: String
        var power: Bool
        var brightness: Bool
        /// The brightness to write back at `wake` (read when it went off).
        var restore: String?
    }

    private var panels: [String: Panel] = [:]
    /// Outputs turned off, by id, with the panel that was: a `wake` after a reload that changed
    /// the path still lights the panel it darkened.
    private var dark: [String: Panel] = [:]
    let log: LogFunction

    init(_ kiosk: KioskSettings, log: @escaping LogFunction) {
        self.log = log
        configure(kiosk)
    }

    /// The panels of `kiosk`'s sessions, each checked; what is missing or unwritable is said
    /// once, clearly (the session still goes idle and wakes: its messages go out as usual).
    func configure(_ kiosk: KioskSettings) {
        panels = [:]
        for (id, s) in kiosk.sessions.sorted(by: { $0.key < $1.key }) {
            guard let path = s.backlight else { continue }
            let p = Backlight.panel(at: path)
            if let problem = Backlight.problem(p) {
                log(.warning, "output \(id): session.backlight \(path): \(problem); the output goes idle and wakes, but its backlight stays as it is (docs/kiosk.md, \"Idle and wake\")")
            } else {
                log(.info, "output \(id): backlight \(path) (\(p.power ? "bl_power" : "")\(p.power && p.brightness ? " and " : "")\(p.brightness ? "brightness" : ""))")
            }
            panels[id] = p
        }
    }

    /// What the directory offers this process.
    static func panel(at path: String) -> Panel {
        Panel(path: path, power: FileSystem.isWritable(path + "/bl_power"), brightness: FileSystem.isWritable(path + "/brightness"))
    }

    /// Why the daemon cannot turn this panel off (nil: it can).
    static func problem(_ p: Panel) -> String? {
        if p.power || p.brightness { return nil }
        if !FileSystem.exists(p.path) { return "no such backlight (ls /sys/class/backlight lists the panel's)" }
        let present = FileSystem.exists(p.path + "/bl_power") || FileSystem.exists(p.path + "/brightness")
        if !present { return "neither bl_power nor brightness is there: not a backlight device's directory" }
        return "bl_power and brightness are not writable by this process (touchd's package gives them to group touchd-backlight: systemd/70-touchd.rules; touchd doctor says more)"
    }

    /// The engine's messages: `idle` and `wake` of an output with a backlight.
    func take(_ m: Message) {
        switch m {
        case .idle(let i): off(i.output)
        case .wake(let w): on(w.output)
        default: break
        }
    }

    func off(_ output: String) {
        guard dark[output] == nil, var p = panels[output] else { return }
        if p.brightness {
            p.restore = read(p.path + "/brightness")
            write(p.path + "/brightness", "0", output)
        }
        if p.power { write(p.path + "/bl_power", "4", output) }
        dark[output] = p
    }

    func on(_ output: String) {
        guard let p = dark.removeValue(forKey: output) ?? panels[output] else { return }
        if p.power { write(p.path + "/bl_power", "0", output) }
        if p.brightness {
            // A panel found dark with nothing to write back (the daemon stopped while it was
            // off) comes back at its maximum.
            var level = p.restore
            if level == nil || level == "0" { level = read(p.path + "/max_brightness") }
            if let level, level != "0" { write(p.path + "/brightness", level, output) }
        }
    }

    /// At the daemon's stop: every panel it darkened lit again (a kiosk whose daemon stopped
    /// should not stay dark).
    func lightDarkened() {
        for id in dark.keys.sorted() { on(id) }
    }

    /// At start: every panel on, as its session starts awake.
    func lightAll() {
        for id in panels.keys.sorted() {
            let p = panels[id]!
            guard p.power || p.brightness else { continue }
            if p.power, read(p.path + "/bl_power") != "0" { write(p.path + "/bl_power", "0", id) }
            if p.brightness, read(p.path + "/brightness") == "0", let max = read(p.path + "/max_brightness") {
                write(p.path + "/brightness", max, id)
            }
        }
    }

    func read(_ path: String) -> String? {
        do {
            let bytes = try FileSystem.read(path, limit: 64)
            var s = String(decoding: bytes, as: UTF8.self)
            while s.last == "\n" || s.last == " " { s.removeLast() }
            return s.isEmpty ? nil : s
        } catch {
            log(.warning, "reading \(error)")
            return nil
        }
    }

    func write(_ path: String, _ value: String, _ output: String) {
        do { try FileSystem.writeExisting(path, Array((value + "\n").utf8)) } catch {
            log(.warning, "output \(output): cannot write \(value) to \(path): \(error)")
        }
    }
}
