import TouchCore
import TouchSystem
import TouchInput

/// Gathers a Board from the files of a root directory ("/" for the running system; a fake
/// tree for the tests): /sys/class/input and udev's database (/run/udev/data) for the devices,
/// /proc/*/fd for who holds them, /dev for permissions, /etc/group for the socket's group (NSS
/// on the running system), the installed unit for the daemon's groups, /sys/class/drm for the
/// outputs, and the socket itself. The EVIOCGRAB test runs only on the running system, when
/// Doctor.reasonNotToGrab allows it. Reads, never writes; every file under `root` through
/// FileSystem.Tree, so nothing outside the tree is read (a symlink out of it resolves inside
/// it, a FIFO is not opened), whoever made the tree.
struct BoardReader {
    var root = "/"
    var configPath = "/etc/touchd/touchd.json"
    /// --socket: used as given (not under `root`); nil: the config's socket.path under `root`.
    var socketPath: String?
    var grabTests = true

    var live: Bool { root == "/" }
    var tree: FileSystem.Tree { FileSystem.Tree(root: root) }

    func text(_ p: String) -> String? { BoardFiles.text(tree, p) }

    func read() -> Board {
        var b = Board()
        b.configPath = configPath
        b.config = readConfig()
        var config: Config?
        if case .text(let bytes) = b.config {
            do { config = try Config.parse(bytes) } catch { config = nil }
        }
        b.udevRunning = tree.exists("/run/udev/control")
        let (holders, hidden) = readHolders()
        b.hiddenProcesses = hidden
        b.devices = readDevices(udev: b.udevRunning).map { d in
            var d = d
            d.holders = holders[d.node] ?? []
            if d.touchscreen { d.grab = grabTest(d, config: config, hidden: hidden) }
            return d
        }
        b.uinput = node("/dev/uinput")
        let settings = config?.socket ?? SocketSettings()
        b.socketPath = socketPath ?? settings.path
        // --socket is the user's own path, and the running system's is its own; a --root
        // tree's is connected to as the tree's walk reaches it (a directory on the way that is
        // a symlink out of the tree is resolved inside it), and a symlink there is not connected
        // through (connect(2) would follow it).
        b.socket = socketPath.map { node(userPath: $0) } ?? node(settings.path, follow: false)
        if let socketPath {
            b.daemon = DaemonProbe.ask(socketPath, exists: b.socket != nil)
        } else if live {
            b.daemon = DaemonProbe.ask(settings.path, exists: b.socket != nil)
        } else if let s = b.socket {
            b.daemon = s.kind != .socket ? .refused   // what connect(2) says of a file that is not a socket
                : tree.withWalkedPath(settings.path) { DaemonProbe.ask($0, exists: true) } ?? .noSocket
        } else {
            b.daemon = .noSocket
        }
        b.socketGroup = settings.group.flatMap { socketGroup($0) }
        b.outputs = readOutputs()
        b.daemonGroups = readUnitGroups()
        b.realtimeRuntime = BoardFiles.text(tree, "/proc/sys/kernel/sched_rt_runtime_us").flatMap { Int($0.split(separator: "\n").first ?? "") }
        b.unitWritesSys = readUnit().map(BoardFiles.unitWritesSys)
        b.backlights = (config?.outputs ?? []).compactMap { o in
            guard let path = config?.kiosk.sessions[o.id]?.backlight else { return nil }
            return Board.Backlight(output: o.id, path: path, exists: tree.exists(path),
                                   power: node(path + "/bl_power"), brightness: node(path + "/brightness"))
        }
        return b
    }

    /// The config: on the running system the file the user named (as any command reads it),
    /// under --root the tree's.
    func readConfig() -> Board.ConfigSource {
        if live {
            guard FileSystem.exists(configPath) else { return .missing }
            do { return .text(try FileSystem.read(configPath, limit: 64 << 20)) } catch { return .unreadable(error.message) }
        }
        guard tree.exists(configPath) else { return .missing }
        do { return .text(try tree.read(configPath, limit: 64 << 20)) } catch { return .unreadable(error.message) }
    }

    // MARK: devices

    func readDevices(udev: Bool) -> [Board.Device] {
        let dir = "/sys/class/input"
        let names = BoardFiles.list(tree, dir).filter { $0.hasPrefix("event") }.sorted { BoardFiles.number($0) < BoardFiles.number($1) }
        return names.map { n in
            let sys = "\(dir)/\(n)"
            let dev = text("\(sys)/dev") ?? ""
            let props = udev ? text("/run/udev/data/c\(dev)").map(BoardFiles.udevProperties) : nil
            let node = "/dev/input/\(n)"
            var d = Board.Device(node: node, name: text("\(sys)/device/name") ?? "?",
                                 vendor: Int(text("\(sys)/device/id/vendor") ?? "", radix: 16) ?? 0,
                                 product: Int(text("\(sys)/device/id/product") ?? "", radix: 16) ?? 0,
                                 properties: props, touchscreen: false, file: self.node(node))
            if let props, props["ID_INPUT"] != nil {
                d.touchscreen = props["ID_INPUT_TOUCHSCREEN"] == "1"
            } else {
                d.touchscreen = BoardFiles.touchCapabilities(properties: text("\(sys)/device/properties") ?? "",
                                                             abs: text("\(sys)/device/capabilities/abs") ?? "",
                                                             key: text("\(sys)/device/capabilities/key") ?? "")
            }
            return d
        }
    }

    /// Every /dev/input/eventN some process has open (its /proc/PID/fd links), and how many
    /// processes' descriptors could not be read.
    func readHolders() -> ([String: [Board.Holder]], Int) {
        var out: [String: [Board.Holder]] = [:]
        var hidden = 0
        let me = live ? Int(ThisProcess.id) : -1
        for p in BoardFiles.list(tree, "/proc") {
            guard let pid = Int(p), pid != me else { continue }
            guard let fds = BoardFiles.linksOrDenied(tree, "/proc/\(p)/fd") else { hidden += 1; continue }
            var seen = Set<String>()
            for f in fds {
                guard let target = f.target, target.hasPrefix("/dev/input/event"), seen.insert(target).inserted else { continue }
                out[target, default: []].append(Board.Holder(pid: pid, command: text("/proc/\(p)/comm") ?? "?"))
            }
        }
        return (out, hidden)
    }

    func grabTest(_ d: Board.Device, config: Config?, hidden: Int) -> Board.GrabTest {
        guard live else { return .notTried("not tried: not the running system (--root)") }
        let entry = config?.deviceEntry(name: d.name, vendor: d.vendor, product: d.product, properties: d.properties ?? [:])
        let touchdGrabs = entry.map { $0.settings.grab || $0.settings.uinput != nil } ?? false
        func reason(_ down: Bool) -> String? {
            Doctor.reasonNotToGrab(holders: d.holders, hiddenProcesses: hidden, touchdGrabs: touchdGrabs, contactsDown: down, allowed: grabTests)
        }
        if let why = reason(false) { return .notTried(why) }
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: d.node) } catch { return .notTried("not tried: \(error)") }
        if let why = reason(!dev.contactsDown().isEmpty) { return .notTried(why) }
        // Released when `dev` goes, at the end of this function (EvdevDevice's deinit).
        guard let e = dev.grab() else { return .free }
        return e == .busy ? .grabbed : .notTried("not tried: EVIOCGRAB failed: \(e)")
    }

    // MARK: files, groups, outputs, the unit

    /// The file at `p` in the tree; `follow`: a final symlink followed (inside the tree).
    func node(_ p: String, follow: Bool = true) -> Board.Node? {
        tree.status(p, followingLast: follow).map(node)
    }

    /// A path the user gave (--socket), as given: not followed at its end.
    func node(userPath: String) -> Board.Node? {
        guard let st = FileSystem.Tree.Status.ofLink(userPath) else { return nil }
        return node(st)
    }

    func node(_ st: FileSystem.Tree.Status) -> Board.Node {
        let kind: Board.Node.Kind
        switch st.kind {
        case .characterDevice: kind = .characterDevice
        case .socket: kind = .socket
        case .file: kind = .file
        default: kind = .other
        }
        return Board.Node(kind: kind, mode: st.mode, owner: userName(st.owner), group: groupName(st.group))
    }

    func userName(_ uid: UInt32) -> String {
        if live { return Accounts.userName(uid) ?? String(uid) }
        let entries = BoardFiles.colonFile(text("/etc/passwd") ?? "")
        return entries.first { $0.count > 2 && $0[2] == String(uid) }?[0] ?? String(uid)
    }

    func groupName(_ gid: UInt32) -> String {
        if live { return Accounts.groupName(gid) ?? String(gid) }
        let entries = BoardFiles.colonFile(text("/etc/group") ?? "")
        return entries.first { $0.count > 2 && $0[2] == String(gid) }?[0] ?? String(gid)
    }

    /// The group and its members: NSS on the running system, `root`/etc/group otherwise.
    func socketGroup(_ name: String) -> Board.Group? {
        if live { return BoardFiles.groupMembers(name).map { Board.Group(name: name, members: $0) } }
        let entries = BoardFiles.colonFile(text("/etc/group") ?? "")
        guard let e = entries.first(where: { $0.first == name }) else { return nil }
        let members = e.count > 3 ? e[3].split(separator: ",").map(String.init) : []
        return Board.Group(name: name, members: members)
    }

    /// Connected DRM connectors: /sys/class/drm/card0-HDMI-A-1/status says "connected".
    func readOutputs() -> [String]? {
        let dir = "/sys/class/drm"
        guard tree.exists(dir) else { return nil }
        return BoardFiles.list(tree, dir).sorted().compactMap { n in
            guard n.hasPrefix("card"), let dash = n.firstIndex(of: "-"), text("\(dir)/\(n)/status") == "connected" else { return nil }
            return String(n[n.index(after: dash)...])
        }
    }

    /// The installed unit's groups (User=/DynamicUser= with SupplementaryGroups=, Group=); nil
    /// when no unit is installed or it runs the daemon as root.
    func readUnitGroups() -> [String]? { readUnit().flatMap(BoardFiles.unitGroups) }

    /// The installed touchd.service's text (the first of systemd's unit directories).
    func readUnit() -> String? {
        for dir in ["/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"] {
            if let unit = text("\(dir)/touchd.service") { return unit }
        }
        return nil
    }
}
