/// Text from outside (a device's name, a udev property, /proc/PID/comm, a client's window id)
/// made safe to print on a terminal or in a log line.
enum TerminalText {
    /// Control characters (C0, DEL and C1: ESC starts a terminal's escape sequences, U+009B is
    /// CSI for some) and line separators written as \u escapes: printed, the text stays on its
    /// line and cannot move the cursor, clear a line or forge another (issue 21, item 6; issue
    /// 40, item 7).
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            if needsEscape(u) {
                let hex = String(u.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7f...0x9f).contains(u.value) || u == "\u{2028}" || u == "\u{2029}"
    }
}

/// Words of a suggested command (doctor's fixes), quoted so that a pasted command runs as shown
/// whatever the values hold (issue 40, item 7: a socket.path "/run/touchd/x.sock;id;#" made
/// the fix run `id`).
enum Shell {
    /// `word` as a POSIX shell reads it back: unchanged when it holds only letters, digits and
    /// `@%+=:,./_-` (no shell treats those specially), else in single quotes, each single quote
    /// written '\''.
    static func quoted(_ word: String) -> String {
        if !word.isEmpty && word.unicodeScalars.allSatisfy(isPlain) { return word }
        var out = String.UnicodeScalarView(["'"])
        for u in word.unicodeScalars {   // scalars: a quote with a combining mark is still a quote
            if u == "'" { out.append(contentsOf: "'\\''".unicodeScalars) } else { out.append(u) }
        }
        out.append("'")
        return String(out)
    }

    static func isPlain(_ u: Unicode.Scalar) -> Bool {
        switch u {
        case "a"..."z", "A"..."Z", "0"..."9", "@", "%", "+", "=", ":", ",", ".", "/", "_", "-": return true
        default: return false
        }
    }
}
