import TouchCore
import TouchSystem
import TouchCapture

// What the commands and the daemon read — the config, captures, scene scripts — each problem
// as a CommandFailure naming its place (file and line, or JSON path). Not a command: the
// commands (Commands/, one type each) and the daemon (Daemon/) call these.

/// Reads and validates a config file; every problem as "FILE: <json path>: <problem> (line N)".
func loadConfig(_ path: String) throws(CommandFailure) -> Config {
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: 64 << 20) } catch { throw CommandFailure(error.description) }
    do {
        return try Config.parse(bytes)
    } catch {
        throw CommandFailure(error.errors.map { "\(path): \($0)" })
    }
}

/// Reads captures (with their descriptions), every problem as the command's failure.
func loadCaptures(_ captures: [String], deviceInfos: [String], format: CaptureFormat?, maxBytes: Int, log: StderrLog) throws(CommandFailure) -> [CaptureDevice] {
    do {
        return try CaptureLoader.load(paths: captures, deviceInfos: deviceInfos, format: format, maxBytes: maxBytes) { log(.warning, $0) }
    } catch {
        throw CommandFailure(error.description)
    }
}

/// The offline loop over captures (`touchd replay`, render, measure, calibrate, bench).
func replaySession(config: Config, captures: [String], deviceInfos: [String], format: CaptureFormat?, maxBytes: Int = CaptureFiles.defaultMaxBytes,
                   engine: Engine, log: StderrLog) throws(CommandFailure) -> ReplaySession {
    let devices = try loadCaptures(captures, deviceInfos: deviceInfos, format: format, maxBytes: maxBytes, log: log)
    do { return try ReplaySession(config: config, captures: devices, engine: engine, log: log.function) } catch {
        throw CommandFailure(error.description)
    }
}

/// Captures as the daemon's source reads them (`touchd run --replay`).
func captureInputs(config: Config, captures: [String], deviceInfos: [String], format: CaptureFormat?, maxBytes: Int,
                   log: StderrLog) throws(CommandFailure) -> CaptureInputs {
    let devices = try loadCaptures(captures, deviceInfos: deviceInfos, format: format, maxBytes: maxBytes, log: log)
    do { return try CaptureInputs(config: config, captures: devices, log: log.function) } catch {
        throw CommandFailure(error.description)
    }
}

/// Reads a scene script; every problem as "SCRIPT: <json path>: <problem> (line N)".
func loadSceneScript(_ path: String) throws(CommandFailure) -> SceneScript {
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: 256 << 20) } catch { throw CommandFailure(error.description) }
    do { return try SceneScript.parse(bytes) } catch { throw CommandFailure(error.errors.map { "\(path): \($0)" }) }
}

/// A config's windows, and its views other than windows: what check-config says and the
/// SIGHUP reload logs (which counted every slot of the live scene, windows too).
func sceneCounts(_ s: Scene, output: Int? = nil) -> (windows: Int, views: Int) {
    // A live scene keeps removed views' slots; `output`: only the windows on that output.
    let live = s.views.filter { !$0.removed && (output == nil || s.views[$0.window.rawValue].output == output) }
    let windows = live.filter(\.isWindow).count
    return (windows, live.count - windows)
}

/// The output a device is on for the commands that read it themselves (calibrate, measure):
/// `id` (their --output), else the device's devices[] entry's `output`, else the first; without
/// a config, an 800 × 480 screen.
func deviceOutput(_ cfg: Config?, _ info: DeviceInfo, id: String?) throws(CommandFailure) -> Output {
    guard let cfg else {
        if id != nil { throw CommandFailure("--output needs --config: the outputs are the config's", code: 2) }
        return .screen(Size(800, 480))
    }
    let id = id ?? cfg.deviceEntry(name: info.name, vendor: Int(info.vendor), product: Int(info.product))?.settings.output
    guard let id else { return cfg.outputs[0] }
    guard let o = cfg.outputs.first(where: { $0.id == id }) else {
        throw CommandFailure("--output \(id): no output has that id (outputs: \(cfg.outputs.map(\.id).joined(separator: ", ")))", code: 2)
    }
    return o
}
