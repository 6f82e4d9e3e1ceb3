import TouchCore

/// `touchd doctor`'s checks: a pure function from a Board to findings, one per line, each
/// problem with the command that fixes it. Order: the config, the touchscreens (matched,
/// holders and grabs, permissions, WL_OUTPUT), /dev/uinput, the socket's group, the socket,
/// the daemon.
enum Doctor {
    static func findings(_ board: Board) -> [Finding] {
        var out: [Finding] = []
        let config = configFindings(board, into: &out)
        deviceFindings(board, config: config, into: &out)
        uinputFindings(board, config: config, into: &out)
        backlightFindings(board, into: &out)
        socketFindings(board, config: config, into: &out)
        return out
    }

    /// 0 when every finding is ok, 1 otherwise (a warning is a problem too).
    static func exitCode(_ findings: [Finding]) -> Int32 {
        findings.contains { $0.level != .ok } ? 1 : 0
    }

    /// Why the EVIOCGRAB test is not to be tried on a touchscreen, or nil to try it. A grab
    /// takes every event from the device's other readers while it lasts (microseconds: grab,
    /// then release), so it is tried only where it can tell something and a touch cannot be
    /// cut: someone else may hold the device (a grab lives on an open descriptor), touchd is
    /// not the one meant to hold the grab, and no contact is down.
    static func reasonNotToGrab(holders: [Board.Holder], hiddenProcesses: Int, touchdGrabs: Bool,
                                contactsDown: Bool, allowed: Bool) -> String? {
        if !allowed { return "not tried (--no-grab-test)" }
        let others = holders.filter { !$0.isTouchd }
        if touchdGrabs && holders.contains(where: \.isTouchd) { return "not tried: touchd has it open and its entry grabs it" }
        if others.isEmpty && hiddenProcesses == 0 { return "not tried: no other process has it open, so none can hold a grab" }
        if contactsDown { return "not tried: a touch is down (a grab now would take its events from the programs reading it)" }
        return nil
    }

    /// A value in a suggested config entry: a JSON string (a name with a quote cannot add keys).
    static func jsonString(_ s: String) -> String {
        var o: [UInt8] = []
        JSONWriter.appendString(s, to: &o)
        return String(decoding: o, as: UTF8.self)
    }

    // MARK: the config

    static func configFindings(_ board: Board, into out: inout [Finding]) -> Config? {
        let path = board.configPath
        let quoted = Shell.quoted(path)
        switch board.config {
        case .missing:
            out.append(.error("config", "no config at \(path): the service (touchd run --config \(quoted)) does not start",
                              fix: "write one (docs/config.md; the package's is a good start), then: touchd check-config \(quoted)"))
            return nil
        case .unreadable(let why):
            out.append(.error("config", "cannot read \(path): \(why)", fix: "sudo touchd doctor (or: sudo chmod 644 \(quoted))"))
            return nil
        case .text(let bytes):
            do {
                let c = try Config.parse(bytes)
                out.append(.ok("config", "\(path): valid, \(c.devices.count) device entr\(c.devices.count == 1 ? "y" : "ies")"))
                return c
            } catch {
                for e in error.errors {
                    out.append(.error("config", "\(path): \(e)", fix: "edit \(path), then: touchd check-config \(quoted)"))
                }
                return nil
            }
        }
    }

    // MARK: the touchscreens

    static func deviceFindings(_ board: Board, config: Config?, into out: inout [Finding]) {
        let screens = board.devices.filter(\.touchscreen)
        guard !screens.isEmpty else {
            let why = board.udevRunning ? "no input device has ID_INPUT_TOUCHSCREEN=1 (udev)"
                                        : "udevd does not run and no input device has INPUT_PROP_DIRECT with touch axes"
            out.append(.error("device", "no touchscreen found: \(why)",
                              fix: "check the panel's driver and wiring: dmesg | grep -i -e touch -e input; touchd devices lists every input device"))
            return
        }
        let configName = board.configPath
        var read = 0
        for d in screens {
            let entry = config?.deviceEntry(name: d.name, vendor: d.vendor, product: d.product, properties: d.properties ?? [:])
            let label = "\(d.node) \"\(d.name)\""
            if let entry, entry.settings.ignore {
                out.append(.warning("device", "\(label): ignored by \(entry.label) (\"ignore\": true): touchd does not read it",
                                    fix: "remove \"ignore\" from \(entry.label) in \(configName), then: sudo systemctl reload touchd"))
            } else if let entry {
                read += 1
                let grab = entry.settings.grab || entry.settings.uinput != nil
                out.append(.ok("device", "\(label): read by touchd, matched by \(entry.label)\(grab ? ", which grabs it" : "")"))
            } else if let config, !config.devices.isEmpty {
                read += 1
                out.append(.warning("device", "\(label): matched by none of the \(config.devices.count) devices[] entries: read with defaults (no rotation, calibration or grab)",
                                    fix: "add {\"match\": {\"name\": \(jsonString(d.name))}, …} to devices in \(configName) (touchd devices shows each device's name, vendor and product)"))
            } else if config == nil {
                read += 1
                out.append(.ok("device", "\(label): found (which devices[] entry matches it is unknown: the config does not load)"))
            } else {
                read += 1
                out.append(.ok("device", "\(label): read by touchd with defaults (no devices[] entries)"))
            }
            holderFindings(board, d, label: label, entry: entry, into: &out)
            permissionFindings(board, d, label: label, into: &out)
            outputFindings(board, d, label: label, into: &out)
        }
        if read == 0 {
            out.append(.error("device", "touchd reads no touchscreen: every one is ignored",
                              fix: "remove \"ignore\" from the entry of the touchscreen to use in \(configName)"))
        }
        for e in config?.devices ?? [] where !screens.contains(where: { e.match.matches(name: $0.name, vendor: $0.vendor, product: $0.product, properties: $0.properties ?? [:]) }) {
            out.append(.warning("device", "\(e.label) matches no touchscreen present",
                                fix: "correct \(e.label).match in \(configName): touchd devices shows each device's name, vendor and product"))
        }
    }

    static func holderFindings(_ board: Board, _ d: Board.Device, label: String, entry: DeviceEntry?, into out: inout [Finding]) {
        let others = d.holders.filter { !$0.isTouchd }
        let touchdGrabs = entry.map { $0.settings.grab || $0.settings.uinput != nil } ?? false
        let ignored = entry?.settings.ignore ?? false
        let hidden = board.hiddenProcesses > 0 ? " (\(board.hiddenProcesses) processes not readable: sudo touchd doctor sees them)" : ""
        let list = others.map(\.description).joined(separator: ", ")
        if d.grab == .grabbed && !(touchdGrabs && d.holders.contains(where: \.isTouchd)) {
            let who = others.isEmpty ? "another program\(hidden)" : "one of: \(list)"
            // No interface names the grab's holder: with one other reader it is that one.
            let stop = others.count == 1 ? "sudo kill \(others[0].pid) (or stop its service: systemctl status \(others[0].pid))"
                : others.isEmpty ? "find it: sudo touchd doctor; sudo fuser -v \(Shell.quoted(d.node))"
                : "stop the one of them that grabs it (systemctl status \(others.map { String($0.pid) }.joined(separator: " ")) names their services)"
            out.append(.error("holders", "\(label) is grabbed (EVIOCGRAB) by \(who): \(ignored ? "nobody else" : "touchd") receives none of its events",
                              fix: "\(stop), or configure it to leave \(d.node); then: sudo systemctl restart touchd"))
            return
        }
        let grabNote: String
        switch d.grab {
        case .free: grabNote = "not grabbed"
        case .grabbed: grabNote = "grabbed by touchd"
        case .notTried(let why): grabNote = "grab test \(why)"
        }
        if !others.isEmpty && !ignored && !touchdGrabs {
            out.append(.warning("holders", "\(label) is also read by \(list): they act on the same touches as touchd (\(grabNote))",
                                fix: "set \"grab\": true in \(entry?.label ?? "its devices[] entry") of \(board.configPath) (touchd then reads it alone; devices[].uinput re-exports it for toolkits), or stop them"))
        } else {
            let open = d.holders.isEmpty ? "open in no other process" : "open in \(d.holders.map(\.description).joined(separator: ", "))"
            out.append(.ok("holders", "\(label): \(open)\(hidden); \(grabNote)"))
        }
    }

    /// The daemon (its unit's groups) must read the node. Without an installed unit the daemon
    /// is started by hand, as whoever runs it: only the mode is shown.
    static func permissionFindings(_ board: Board, _ d: Board.Device, label: String, into out: inout [Finding]) {
        guard let file = d.file else {
            out.append(.error("permissions", "\(label): \(d.node) does not exist",
                              fix: "sudo udevadm trigger -s input (udev makes the node); check: ls -l /dev/input"))
            return
        }
        if let groups = board.daemonGroups, !file.allows(4, groups: groups) {
            out.append(.error("permissions", "\(d.node) is \(file.description): the service (groups \(groups.joined(separator: ", "))) cannot read it",
                              fix: "install systemd/70-touchd.rules (the package's /usr/lib/udev/rules.d/70-touchd.rules), then: sudo udevadm control --reload && sudo udevadm trigger -s input"))
        } else {
            out.append(.ok("permissions", "\(d.node) is \(file.description)"))
        }
    }

    /// WL_OUTPUT (a udev property compositors read) names the output a touchscreen maps to.
    static func outputFindings(_ board: Board, _ d: Board.Device, label: String, into out: inout [Finding]) {
        guard let outputs = board.outputs else { return }
        let wl = d.properties?["WL_OUTPUT"]
        let listed = outputs.isEmpty ? "none connected" : "connected: \(outputs.joined(separator: ", "))"
        // A connector's name in a udev rule's string: the kernel's are letters, digits and "-";
        // another (a quote, udev's % and $ substitutions) is left for the reader to fill in.
        let rule = { (o: String) in
            let value = o.unicodeScalars.allSatisfy { Shell.isPlain($0) && $0 != "%" } ? o : "OUTPUT"
            return "a udev rule in /etc/udev/rules.d/: ENV{ID_INPUT_TOUCHSCREEN}==\"1\", ENV{WL_OUTPUT}=\"\(value)\"; then: sudo udevadm trigger -s input"
        }
        if let wl, !outputs.isEmpty, !outputs.contains(wl) {
            out.append(.warning("output", "\(label): WL_OUTPUT=\(wl) names no connected output (\(listed)): a compositor maps its touches to another",
                                fix: rule(outputs[0])))
        } else if wl == nil && outputs.count > 1 {
            out.append(.warning("output", "\(label): no WL_OUTPUT and \(outputs.count) outputs (\(listed)): a compositor may map its touches to the wrong one",
                                fix: rule(outputs[0])))
        } else {
            out.append(.ok("output", "\(label): \(wl.map { "WL_OUTPUT=\($0)" } ?? "no WL_OUTPUT") (\(listed))"))
        }
    }
}
