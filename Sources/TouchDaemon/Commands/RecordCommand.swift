import TouchCore
import TouchSystem
import TouchInput
import TouchCapture

struct RecordCommand: Command {
    static let name = "record"
    static let summary = "record a device in evemu format (what replay reads)"
    static let operands = "DEVICE"
    static let about = """
    Records /dev/input/eventN until interrupted (Ctrl-C, SIGTERM) in evemu 1.3 format (or, with
    --format libinput, libinput record's YAML): the device's description (from libevdev) and
    every event with times relative to the first.
    The file replays with `touchd replay` to the messages a live run produced, and attaches
    to a bug report as it is. Each complete frame is written as it happens.
    """
    static var options: [Option<RecordCommand>] {
        [Option(["-o", "--output"], value: "FILE", help: "write here instead of stdout") { c, v throws(UsageError) in c.output = v },
         .format(\.format, formats: [.evemu, .libinput], help: "evemu (default) or libinput")]
    }

    var device = ""
    var output: String?
    var format: CaptureFormat?
    var libinput: Bool { format == .libinput }

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.count == 1 else { throw UsageError("give exactly one DEVICE, e.g. /dev/input/event5") }
        device = operands[0]
    }

    func run() throws(CommandFailure) -> Int32 {
        // Stop on SIGINT/SIGTERM through a signalfd, so the last frame is complete on disk.
        let signals: SignalSource
        let epoll: Epoll
        do {
            signals = try SignalSource([SignalSource.interrupt, SignalSource.terminate])
            epoll = try Epoll()
            try epoll.add(signals.fd.number)
        } catch {
            throw CommandFailure("\(error)")
        }
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: device) } catch { throw CommandFailure(error.description) }
        do { try epoll.add(dev.descriptor) } catch { throw CommandFailure("\(error)") }
        let out = try output.map { (path) throws(CommandFailure) in try OutputWriter.file(path) } ?? OutputWriter.standardOutput()
        let kernel = ThisProcess.kernelRelease()
        if libinput {
            out.write(LibinputRecordWriter.header(devices: [(device, dev.info)], kernel: kernel))
            out.write(LibinputRecordWriter.device(node: device, info: dev.info))
        } else {
            out.write(EvemuWriter.header(dev.info, kernel: kernel))
        }
        out.flush()
        var frame: [InputEvent] = []
        var start: Int64?
        var line: [UInt8] = []
        var events = 0
        ThisProcess.writeError("touchd record: recording \(device) \"\(dev.info.name)\"\(output.map { " to \($0)" } ?? ""); Ctrl-C stops\n")
        loop: while true {
            let ready: [Epoll.Ready]
            do { ready = try epoll.wait(timeoutMS: -1) } catch { throw CommandFailure("\(error)") }
            if ready.contains(where: { $0.descriptor == signals.fd.number }) { break }
            while true {
                switch dev.next() {
                case .event(let e), .resyncEvent(let e):
                    let origin = start ?? e.time   // the first event's time
                    start = origin
                    events += 1
                    if libinput {
                        frame.append(e)
                        if e.type == EV.SYN && e.code == SYN.REPORT {
                            out.write(LibinputRecordWriter.frame(frame, relativeTo: origin))
                            frame.removeAll()
                            out.flush()
                        }
                        continue
                    }
                    line.removeAll(keepingCapacity: true)
                    EvemuWriter.event(e, relativeTo: origin, into: &line)
                    out.write(line)
                    if e.type == EV.SYN && e.code == SYN.REPORT { out.flush() }
                case .dropped:
                    ThisProcess.writeError("touchd record: SYN_DROPPED (the kernel's buffer overflowed); the recording continues with libevdev's resync\n")
                case .resyncDone:
                    continue
                case .drained:
                    continue loop
                case .gone(let e):
                    ThisProcess.writeError("touchd record: \(device) went away: \(e)\n")
                    break loop
                }
            }
        }
        out.flush()
        if let e = out.failure { throw CommandFailure("writing \(output ?? "stdout"): \(e)") }
        ThisProcess.writeError("touchd record: \(events) events recorded\n")
        return 0
    }
}
