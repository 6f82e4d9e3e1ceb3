@preconcurrency import Glibc
import CLinux
import TouchCore
import TouchInput
import TouchCapture
import TouchServer

struct RecordCommand: Command {
    static let name = "record"
    static let summary = "record a device in evemu format (what replay reads)"
    static let help = """
    usage: touchd record DEVICE [-o FILE] [--format evemu|libinput]

    Records /dev/input/eventN until interrupted (Ctrl-C, SIGTERM) in evemu 1.3 format (or, with
    --format libinput, libinput record's YAML): the device's description (from libevdev) and
    every event with times relative to the first.
    The file replays with `touchd replay` to the messages a live run produced, and attaches
    to a bug report as it is. Each complete frame is written as it happens.

    options:
      -o FILE            write here instead of stdout
      --format FORMAT    evemu (default) or libinput

    """

    var device: String
    var output: String?
    var libinput = false

    init(arguments: [String]) throws(UsageError) {
        var list = ArgumentList(arguments)
        var o: String?
        var lib = false
        try list.parse { (name, l) throws(UsageError) in
            switch name {
            case "-o", "--output": o = try l.value(for: name)
            case "--format":
                let f = try l.value(for: name)
                guard f == "evemu" || f == "libinput" else { throw UsageError("--format must be evemu or libinput, got \"\(f)\"") }
                lib = f == "libinput"
            default: return false
            }
            return true
        }
        guard list.positionals.count == 1 else { throw UsageError("give exactly one DEVICE, e.g. /dev/input/event5") }
        device = list.positionals[0]
        output = o
        libinput = lib
    }

    func run() throws(CommandFailure) -> Int32 {
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: device) } catch { throw CommandFailure(error.description) }
        var fd = STDOUT_FILENO
        if let output {
            fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw CommandFailure("cannot write \(output): \(String(cString: strerror(errno)))") }
        }
        let out = FDWriter(fd: fd, limit: 1 << 16)
        var uts = utsname()
        uname(&uts)
        let kernel = withUnsafeBytes(of: &uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if libinput {
            out.write(LibinputRecordWriter.header(devices: [(device, dev.info)], kernel: kernel))
            out.write(LibinputRecordWriter.device(node: device, info: dev.info))
        } else {
            out.write(EvemuWriter.header(dev.info, kernel: kernel))
        }
        out.flush()
        var frame: [InputEvent] = []
        // Stop on SIGINT/SIGTERM through a signalfd, so the last frame is complete on disk.
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGINT)
        sigaddset(&mask, SIGTERM)
        sigprocmask(SIG_BLOCK, &mask, nil)
        let sfd = signalfd(-1, &mask, Int32(SFD_CLOEXEC))
        var start: Int64?
        var line: [UInt8] = []
        var events = 0
        fputs("touchd record: recording \(device) \"\(dev.info.name)\"\(output.map { " to \($0)" } ?? ""); Ctrl-C stops\n", stderr)
        loop: while true {
            var fds = [pollfd(fd: dev.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: sfd, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue }; break }
            if fds[1].revents != 0 { break }
            while true {
                switch dev.next() {
                case .event(let e), .resyncEvent(let e):
                    if start == nil { start = e.time }
                    events += 1
                    if libinput {
                        frame.append(e)
                        if e.type == EV.SYN && e.code == SYN.REPORT {
                            out.write(LibinputRecordWriter.frame(frame, relativeTo: start!))
                            frame.removeAll()
                            out.flush()
                        }
                        continue
                    }
                    line.removeAll(keepingCapacity: true)
                    EvemuWriter.event(e, relativeTo: start!, into: &line)
                    out.write(line)
                    if e.type == EV.SYN && e.code == SYN.REPORT { out.flush() }
                case .dropped:
                    fputs("touchd record: SYN_DROPPED (the kernel's buffer overflowed); the recording continues with libevdev's resync\n", stderr)
                case .resyncDone:
                    continue
                case .drained:
                    continue loop
                case .gone(let e):
                    fputs("touchd record: \(device) went away: \(String(cString: strerror(e)))\n", stderr)
                    break loop
                }
            }
        }
        out.flush()
        if fd != STDOUT_FILENO { close(fd) }
        fputs("touchd record: \(events) events recorded\n", stderr)
        return 0
    }
}
