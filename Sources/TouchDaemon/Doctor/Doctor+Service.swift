import TouchCore

/// `touchd doctor`'s checks of the service's side: /dev/uinput, the socket's group, the socket
/// and the daemon behind it (its `stats`).
extension Doctor {
    static func uinputFindings(_ board: Board, config: Config?, into out: inout [Finding]) {
        let users = (config?.devices ?? []).filter { $0.settings.uinput != nil && !$0.settings.ignore }.map(\.label)
        let needed = users.isEmpty ? "not needed: no devices[] entry has \"uinput\"" : "needed by \(users.joined(separator: ", "))"
        guard let node = board.uinput else {
            if users.isEmpty {
                out.append(.ok("uinput", "/dev/uinput is missing (\(needed))"))
            } else {
                out.append(.error("uinput", "/dev/uinput is missing, \(needed): no virtual touchscreen for toolkits",
                                  fix: "sudo modprobe uinput, and at boot: echo uinput | sudo tee /etc/modules-load.d/uinput.conf"))
            }
            return
        }
        if node.mode & 0o002 != 0 {
            out.append(.warning("uinput", "/dev/uinput is \(node.description): anyone may inject input (keys too)",
                                fix: "sudo chmod 0660 /dev/uinput, and a udev rule giving it to the daemon's group alone (systemd/70-touchd.rules)"))
        } else if !users.isEmpty, let groups = board.daemonGroups, !node.allows(6, groups: groups) {
            out.append(.error("uinput", "/dev/uinput is \(node.description), \(needed): the service (groups \(groups.joined(separator: ", "))) cannot open it",
                              fix: "install systemd/70-touchd.rules (its /dev/uinput rule), then: sudo udevadm control --reload && sudo udevadm trigger /dev/uinput"))
        } else {
            out.append(.ok("uinput", "/dev/uinput is \(node.description) (\(needed))"))
        }
    }

    /// Each backlight a session names (session.backlight): there, a backlight's, and writable
    /// by the service — the udev rule's group, and a unit that lets it write /sys.
    static func backlightFindings(_ board: Board, into out: inout [Finding]) {
        let rule = "install systemd/70-touchd.rules (its backlight rule), then: sudo udevadm control --reload && sudo udevadm trigger -s backlight"
        for b in board.backlights {
            let quoted = Shell.quoted(b.path)
            let what = "output \(b.output): backlight \(b.path)"
            guard b.exists else {
                out.append(.error("backlight", "\(what) does not exist: the output goes idle and wakes, its panel stays lit",
                                  fix: "ls /sys/class/backlight, and name one in the output's session.backlight"))
                continue
            }
            let attributes = [("bl_power", b.power), ("brightness", b.brightness)].compactMap { n, node in node.map { (n, $0) } }
            guard !attributes.isEmpty else {
                out.append(.error("backlight", "\(what) has neither bl_power nor brightness: not a backlight device",
                                  fix: "ls \(quoted); name a /sys/class/backlight device in session.backlight"))
                continue
            }
            let shown = attributes.map { "\($0.0) \($0.1.description)" }.joined(separator: ", ")
            guard let groups = board.daemonGroups else {
                out.append(.ok("backlight", "\(what): \(shown) (no unit installed: the daemon runs as whom you start it)"))
                continue
            }
            if !attributes.contains(where: { $0.1.allows(2, groups: groups) }) {
                out.append(.error("backlight", "\(what): \(shown): the service (groups \(groups.joined(separator: ", "))) cannot write them",
                                  fix: groups.contains("touchd-backlight") ? rule : "give the service group touchd-backlight (touchd.service's SupplementaryGroups=, the group from touchd.sysusers.conf), and " + rule))
            } else if board.unitWritesSys == false {
                out.append(.error("backlight", "\(what): the unit makes /sys read-only for the service (ProtectKernelTunables=yes without ReadWritePaths=/sys/devices)",
                                  fix: "add ReadWritePaths=-/sys/devices to touchd.service (the package's unit has it), then: sudo systemctl daemon-reload && sudo systemctl restart touchd"))
            } else {
                out.append(.ok("backlight", "\(what): \(shown): the service can write it"))
            }
        }
    }

    static func socketFindings(_ board: Board, config: Config?, into out: inout [Finding]) {
        let settings = config?.socket ?? SocketSettings()
        let path = board.socketPath
        if let name = settings.group {
            let group = Shell.quoted(name)
            if let g = board.socketGroup {
                if g.members.isEmpty {
                    out.append(.warning("group", "group \(name) (the socket's) has no members: only root and the daemon may connect",
                                        fix: "sudo usermod -aG \(group) USER (the kiosk's user), then log in again"))
                } else {
                    out.append(.ok("group", "group \(name) (the socket's): \(g.members.joined(separator: ", "))"))
                }
            } else {
                out.append(.error("group", "group \(name) (socket.group) does not exist: the socket keeps the daemon's group, so no client may connect",
                                  fix: "sudo groupadd --system \(group) (the package's sysusers.d file makes it: sudo systemd-sysusers), then add the clients' users: sudo usermod -aG \(group) USER"))
            }
        }
        if let s = board.socket {
            let want = settings.group.map { " group \($0)" } ?? ""
            if s.kind != .socket {
                out.append(.error("socket", "\(path) is not a socket (\(s.description))",
                                  fix: "sudo rm \(Shell.quoted(path)); sudo systemctl restart touchd.socket touchd"))
            } else if s.mode != settings.mode || (settings.group.map { $0 != s.group } ?? false) {
                out.append(.warning("socket", "\(path) is \(s.description), the config says mode \(String(settings.mode, radix: 8))\(want)",
                                    fix: "sudo systemctl restart touchd.socket touchd (touchd.socket's SocketMode= and SocketGroup= must agree with the config)"))
            } else {
                out.append(.ok("socket", "\(path) is \(s.description)"))
            }
        }
        out.append(daemonFinding(board, group: settings.group))
        realtimeFindings(board, into: &out)
    }

    /// The daemon's real-time priority (its `stats`' "scheduling") and the kernel's throttling
    /// of real-time tasks, the guard behind the daemon's own (docs/reliability.md).
    static func realtimeFindings(_ board: Board, into out: inout [Finding]) {
        if case .running(let line) = board.daemon, let s = schedulingOfStats(line), let state = s["realtime"]?.string {
            let at = "\(s["policy"]?.string ?? "?") \(s["priority"]?.number.map { String(Int($0)) } ?? "?")"
            switch state {
            case "on":
                out.append(.ok("realtime", "touchd's loop runs at real-time priority (\(at))"))
            case "refused":
                out.append(.warning("realtime", "touchd was refused real-time priority and runs at normal priority: while the UI keeps every core busy, touches wait (milliseconds)",
                                    fix: "the unit needs LimitRTPRIO= (the package's has it) and no RestrictRealtime=; journalctl -u touchd -g real-time says why it was refused; then: sudo systemctl restart touchd"))
            case "demoted":
                out.append(.warning("realtime", "touchd's loop ran too long without blocking and its guard put it back to normal priority (\(at))",
                                    fix: "journalctl -u touchd -g 'without blocking' (please report it), then: sudo systemctl restart touchd"))
            default:
                out.append(.ok("realtime", "touchd's real-time priority is off (the config's \"realtime\" or --realtime)"))
            }
        }
        if board.realtimeRuntime == -1 {
            out.append(.warning("realtime", "the kernel's real-time throttling is off (kernel.sched_rt_runtime_us = -1): a real-time task that never blocks can take a whole core",
                                fix: "sudo sysctl kernel.sched_rt_runtime_us=950000 (the kernel's default; and remove the setting from /etc/sysctl.d)"))
        }
    }

    static func daemonFinding(_ board: Board, group: String?) -> Finding {
        let path = board.socketPath
        switch board.daemon {
        case .noSocket:
            return .error("daemon", "touchd is not running: no socket at \(path)",
                          fix: "sudo systemctl enable --now touchd.socket touchd (or by hand: touchd run --config \(Shell.quoted(board.configPath)))")
        case .refused:
            return .error("daemon", "nothing listens on \(path): touchd stopped or crashed",
                          fix: "journalctl -u touchd -e (why it stopped), then: sudo systemctl restart touchd")
        case .denied:
            return .error("daemon", "you may not connect to \(path) (permission denied)",
                          fix: "sudo usermod -aG \(group.map(Shell.quoted) ?? "GROUP") $USER, then log in again (or: sudo touchd doctor)")
        case .noAnswer(let why):
            return .warning("daemon", "touchd accepted the connection on \(path) but \(why)",
                            fix: "journalctl -u touchd -e; sudo systemctl restart touchd")
        case .running(let line):
            return .ok("daemon", "touchd is running on \(path): \(statsSummary(line))")
        }
    }

    /// The "scheduling" object of a stats line; nil when the line is not JSON (statsSummary says
    /// so) or an older daemon's without it.
    static func schedulingOfStats(_ line: String) -> JSONNode? {
        do { return try JSONParser.parse(line)["scheduling"] } catch { return nil }
    }

    /// "2 clients, 5120 published, 0 dropped, input latency p99 850 µs" from a stats line.
    static func statsSummary(_ line: String) -> String {
        let node: JSONNode
        do { node = try JSONParser.parse(line) } catch { return "stats: \(line)" }
        func int(_ v: JSONNode?) -> String { v?.number.map { String(Int($0)) } ?? "?" }
        var parts = ["\(int(node["clients"])) client(s)", "\(int(node["published"])) published", "\(int(node["dropped"])) dropped",
                     "\(int(node["liveTouches"])) touch(es) down"]
        if let p99 = node["inputLatencyMicros"]?["p99"]?.number { parts.append("input latency p99 \(Int(p99)) µs") }
        return parts.joined(separator: ", ")
    }
}
