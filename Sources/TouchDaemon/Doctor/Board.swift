/// What `touchd doctor` knows of a board: plain values, gathered by BoardReader (from /sys,
/// /dev, /proc, /run/udev, /etc and the daemon's socket) or written by hand in the tests. The
/// checks (Doctor.swift) are a pure function of it.
struct Board: Sendable {
    /// A file's mode and owners, as `ls -l` shows them.
    struct Node: Sendable, Equatable {
        enum Kind: String, Sendable { case characterDevice = "c", socket = "s", file = "-", other = "?" }
        var kind: Kind
        /// The permission bits (0o660).
        var mode: UInt32
        var owner: String
        var group: String

        /// "crw-rw---- root:input".
        var description: String {
            var s = kind.rawValue
            for shift in [6, 3, 0] as [UInt32] {
                let bits = (mode >> shift) & 7
                s += (bits & 4 != 0 ? "r" : "-") + (bits & 2 != 0 ? "w" : "-") + (bits & 1 != 0 ? "x" : "-")
            }
            return "\(s) \(owner):\(group)"
        }

        /// May someone in `groups` (and no other user but root) open it with `access` (4 read, 2 write)?
        func allows(_ access: UInt32, groups: [String]) -> Bool {
            (mode & access) == access || (groups.contains(group) && ((mode >> 3) & access) == access)
        }
    }

    /// A process that has the device open.
    struct Holder: Sendable, Equatable {
        var pid: Int
        /// /proc/PID/comm ("weston", "touchd").
        var command: String
        var description: String { "\(command) (pid \(pid))" }
        var isTouchd: Bool { command == "touchd" }
    }

    /// The EVIOCGRAB test: grab and release at once. A grab fails with EBUSY while another
    /// descriptor holds one.
    enum GrabTest: Sendable, Equatable {
        /// The grab succeeded (and was released): nobody holds one.
        case free
        /// EBUSY: someone holds a grab.
        case grabbed
        /// Not tried, and why (DoctorPolicy.grabTest decides).
        case notTried(String)
    }

    /// An input event node (/dev/input/eventN) as sysfs and udev describe it.
    struct Device: Sendable, Equatable {
        var node: String
        var name: String
        var vendor: Int = 0
        var product: Int = 0
        /// udev's properties (ID_INPUT_TOUCHSCREEN, ID_PATH, WL_OUTPUT …); nil without udevd.
        var properties: [String: String]?
        /// udev's verdict, or the capabilities' without udevd (INPUT_PROP_DIRECT with touch axes).
        var touchscreen: Bool
        /// The node's mode and owners; nil when /dev has no such node.
        var file: Node?
        var holders: [Holder] = []
        var grab: GrabTest = .notTried("not a touchscreen")
    }

    /// The daemon, as its socket answers.
    enum Daemon: Sendable, Equatable {
        /// No file at the socket's path.
        case noSocket
        /// A file, but nothing listens (ECONNREFUSED): a daemon that stopped or crashed.
        case refused
        /// EACCES: the socket's permissions keep this user out.
        case denied
        /// Connected but no `stats` answer (the reason).
        case noAnswer(String)
        /// Connected; its answer to {"stats":true}, the whole line.
        case running(stats: String)
    }

    /// A group (the socket's) and its members (getgrnam's gr_mem).
    struct Group: Sendable, Equatable {
        var name: String
        var members: [String]
    }

    /// The config file's bytes, or why there are none.
    enum ConfigSource: Sendable, Equatable {
        case text([UInt8])
        case missing
        case unreadable(String)
    }

    var configPath = "/etc/touchd/touchd.json"
    var config: ConfigSource = .missing
    /// Every event node, in sysfs order.
    var devices: [Device] = []
    /// Does udevd run (its database in /run/udev)? Without it no device has properties.
    var udevRunning = true
    /// /dev/uinput; nil when it is missing.
    var uinput: Node?
    /// The socket's path (the config's socket.path, or --socket) and the file there.
    var socketPath = "/run/touchd/touchd.sock"
    var socket: Node?
    var daemon: Daemon = .noSocket
    /// The socket group, when it exists (nil: no such group); looked up by its name in the config.
    var socketGroup: Group?
    /// Connected display outputs (DRM connectors: "HDMI-A-1", "DSI-1"); nil when /sys/class/drm
    /// is not there.
    var outputs: [String]?
    /// The groups the daemon runs with, from its installed unit (SupplementaryGroups=); nil when
    /// no unit is installed (the daemon is started by hand, likely as root).
    var daemonGroups: [String]?
    /// /proc/sys/kernel/sched_rt_runtime_us: the kernel's real-time throttling (µs of each
    /// sched_rt_period_us real-time tasks may use; -1 is none); nil when unreadable.
    var realtimeRuntime: Int?
    /// Processes whose descriptors could not be read (another user's, when not run as root).
    var hiddenProcesses = 0
    /// The backlights the config's sessions name (session.backlight), in output order.
    var backlights: [Backlight] = []
    /// Whether the installed unit lets its process write /sys (no ProtectKernelTunables=, or a
    /// ReadWritePaths= with /sys/devices); nil when no unit is installed.
    var unitWritesSys: Bool?

    /// A backlight device's directory as the daemon would write it.
    struct Backlight: Sendable, Equatable {
        var output: String
        var path: String
        var exists: Bool
        /// Its attributes (nil: missing).
        var power: Node?
        var brightness: Node?
    }
}

/// One line of the doctor's report.
struct Finding: Sendable, Equatable {
    enum Level: String, Sendable {
        case ok, warning, error
    }
    var level: Level
    /// Which check: config, device, holders, permissions, uinput, group, socket, daemon, realtime, output.
    var check: String
    var what: String
    /// The command (or edit) that fixes it; nil when nothing needs fixing.
    var fix: String?

    static func ok(_ check: String, _ what: String) -> Finding { Finding(level: .ok, check: check, what: what, fix: nil) }
    static func warning(_ check: String, _ what: String, fix: String) -> Finding { Finding(level: .warning, check: check, what: what, fix: fix) }
    static func error(_ check: String, _ what: String, fix: String) -> Finding { Finding(level: .error, check: check, what: what, fix: fix) }
}
