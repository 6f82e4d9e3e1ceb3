import TouchCore

/// The manual: `touchd help --all` prints it as text, `touchd help --man` as the roff of
/// touchd(1) (the Debian package installs that). One source: the commands' own help texts and
/// the sections below.
enum Manual {
    struct Section {
        var title: String
        var body: String
    }

    static let description = """
    touchd turns a Linux touchscreen into something that delivers touches the way iOS does. It
    reads multitouch events from the kernel's evdev devices (libevdev; protocol A through
    libmtdev; devices found and followed with libudev), hit-tests each new finger against a view
    tree (windows, views, controls, gesture recognizers, scroll views), binds the finger to the
    view it landed on, routes began / moved / ended / cancelled through a UIKit-style responder
    chain, and publishes what happened as NDJSON on a Unix socket. Client programs may own
    windows of their own in the scene (the live scene). Recorded captures (evemu, libinput
    record, raw input_event dumps, Android getevent) replay through the same pipeline, offline
    and deterministically. Frames can also go out as TUIO 1.1 over UDP.
    """

    static let sections: [Section] = [
        Section(title: "CONFIGURATION", body: """
        A JSON file (default /etc/touchd/touchd.json; `touchd check-config FILE` validates it and
        names every problem by JSON path and line). Top-level keys: screen {width, height} or
        outputs [{id, width, height, rotation, actors {users, groups}, screenReader}] (displays; `touchd outputs` lists them); socket {path, mode, group}; clients {queue, max, windows, views, levels, owners {users, groups} or [{users, groups, levels}], speakers {users, groups}, calibrationTimeout};
        devices [{match {name, vendor, product, properties}, output, rotation, flipX, flipY, swapXY,
        calibration [a,b,c,d,e,f], grab, ignore, axes, filter {debounce, debounceDistance,
        hysteresis, pressure {down, up}, palmSize, minimumDuration, minimumFrames, deadZone
        [top, left, bottom, right]}, uinput {name}}] (first match wins); tuio {targets,
        source, fullStateInterval, output}; application {id, delegate, scene}; windows [{id, frame,
        level, output, view, hidden, userInteractionEnabled}] with views {id, frame, boundsOrigin,
        hidden, userInteractionEnabled, alpha, hitOutset, shape, hitTest, controller, control,
        enabled, touches, multipleTouch, exclusiveTouch, gestures, scroll, subviews, accessibility
        {label, value, hint, traits, element, hidden, modal, secure, activationPoint, language,
        rate, order}}; responders {ID: {touches}}; speech {language, rate}. With screenReader (true, or
        "headphones": on while they are plugged in) the output's
        fingers are VoiceOver's gestures and the screen reader publishes what to say. Device positions are normalised, calibrated, swapped, flipped, rotated,
        then scaled to the screen. `uinput` re-exports a device's conditioned contacts as a
        virtual touchscreen (through /dev/uinput) for toolkits that read evdev or libinput.
        `filter` conditions a noisy panel: a debounce (seconds; a lift it holds is published
        up to that much later with its own time, and nothing else changes), hysteresis,
        pressure and palm thresholds, and against ghost touches minimumDuration (seconds) and
        minimumFrames (a touch-down is delivered once it has lasted that long: every touch-down
        is published that much later) and deadZone (points per edge: contacts that begin there
        are ignored). `touchd measure` suggests one.
        The full reference is /usr/share/doc/touchd/config.md.gz (docs/config.md in the source).
        """),
        Section(title: "PROTOCOL", body: """
        The daemon's Unix socket carries NDJSON both ways. It greets with {"type":"hello"} and a
        {"type":"snapshot"} of the touches down, then publishes frame, control, gesture, scroll
        and device messages. Requests: {"subscribe":{"types":[…],"windows":[…],"views":[…],
        "maxRate":HZ}}, {"ping":N}, {"stats":true}, and the live scene's {"attach":{WINDOW}},
        {"update":{"window":ID,"changes":[…]}}, {"detach":{"window":ID}}. Errors come back as
        {"type":"error",…} with the request's line (and the JSON path of a bad change); the
        connection stays usable. A slow client has its moves coalesced, then messages dropped
        with an overflow notice and a new snapshot. SIGTERM cancels every touch (reason
        shutdown) and says {"type":"bye"}. The full reference is protocol.md.gz and messages.md.gz
        in /usr/share/doc/touchd (docs/ in the source); C clients: client-c.md.gz there.
        """),
        Section(title: "SIGNALS", body: """
        SIGTERM and SIGINT stop the daemon cleanly; SIGHUP reloads the configuration (a bad one
        is rejected with its errors logged and the old one kept; clients' windows stay).
        """),
        Section(title: "FILES", body: """
        /etc/touchd/touchd.json       the configuration
        /run/touchd/touchd.sock       the socket (and touchd.sock.lock: one daemon per socket)
        touchd.service, touchd.socket systemd units (Type=notify, socket activation, watchdog)
        /usr/share/doc/touchd/        README.md.gz; kiosk.md.gz (a board, uinput, toolkits),
                                      commands.md.gz, clients.md.gz, config.md.gz,
                                      protocol.md.gz, messages.md.gz, client-c.md.gz
        touchd-tuio.conf              a drop-in allowing the UDP sockets TUIO needs
                                      (/usr/share/doc/touchd/examples/touchd-tuio.conf)
        70-touchd.rules               a udev rule giving touchscreens to group input
        sysusers.d/touchd.conf        the group touchd, whose members may connect to the socket
        """),
        Section(title: "EXIT STATUS", body: """
        0 on success; 1 when the input is bad or an operation fails (the message names the
        place: file and line, or JSON path); 2 for a command-line mistake.
        """),
        Section(title: "SEE ALSO", body: """
        evemu-record(1), libinput(4), udev(7), systemd.service(5)
        """),
    ]

    /// The whole manual as plain text.
    static func text() -> String {
        var s = "TOUCHD(1)\n\nNAME\n    touchd - iOS-style touch delivery for Linux touchscreens\n\nSYNOPSIS\n"
        for c in CLI.commands { s += "    touchd \(c.name) \(c.operands.isEmpty ? "[options]" : "[options] \(c.operands)")\n" }
        s += "\nDESCRIPTION\n" + indent(description) + "\n\nCOMMANDS\n"
        for c in CLI.commands { s += "\n  \(c.name): \(c.summary)\n\n" + indent(c.help) + "\n" }
        for sec in sections { s += "\n\(sec.title)\n" + indent(sec.body) + "\n" }
        return s
    }

    static func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
    }

    /// The same as roff for man(7).
    static func roff(date: String) -> String {
        var s = ".TH TOUCHD 1 \"\(date)\" \"touchd \(touchdVersion)\" \"User Commands\"\n"
        s += ".SH NAME\ntouchd \\- iOS-style touch delivery for Linux touchscreens\n.SH SYNOPSIS\n"
        for c in CLI.commands {
            s += ".B touchd \(escape(c.name))\n" + (c.operands.isEmpty ? "[options]\n" : "[options] \(escape(c.operands))\n") + ".br\n"
        }
        s += ".SH DESCRIPTION\n" + escape(description) + "\n.SH COMMANDS\n"
        for c in CLI.commands {
            s += ".SS \(escape(c.name))\n\(escape(c.summary)).\n.PP\n.nf\n" + escape(c.help) + "\n.fi\n"
        }
        for sec in sections {
            s += ".SH \(sec.title)\n"
            s += sec.title == "FILES" ? ".nf\n" + escape(sec.body) + "\n.fi\n" : escape(sec.body) + "\n"
        }
        return s
    }

    /// Backslashes doubled; a line that starts with . or ' guarded.
    static func escape(_ text: String) -> String {
        text.replacingEvery("\\", with: "\\e").split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation in the binary).
    func replacingEvery(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        let t = Array(target.utf8), r = Array(replacement.utf8)
        let bytes = Array(utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if i + t.count <= bytes.count && bytes[i] == t[0] && Array(bytes[i..<i + t.count]) == t {
                out += r
                i += t.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
