import TouchCore
import TouchSystem
import TouchInput
import TouchServer

/// The daemon's stop and reload, each carried out in a turn after its input (a signal or a
/// test's call asks for it), so that what they publish is drained with the rest of the turn.
extension Daemon {
    /// Asks the loop to stop (SIGTERM, SIGINT): carried out in the next turn, after its input.
    func requestStop() { stopRequested = true }
    /// Asks the loop to reload the config (SIGHUP): carried out in the next turn, after its input.
    func requestReload() { reloadRequested = true }

    func handleSignals(_ s: SignalSource) {
        let taken: [Int32]
        do { taken = try s.take() } catch {
            log(.error, "\(error)")
            return
        }
        for signal in taken {
            switch signal {
            case SignalSource.hangup:
                requestReload()
            default:
                log(.notice, "\(SignalSource.name(signal)): stopping")
                requestStop()
            }
        }
    }

    /// Ends every touch (cancelled, reason shutdown), stops the input and starts draining: the
    /// turn's drain publishes the cancellations, then every client is told goodbye.
    func beginStop() {
        stopRequested = false
        env.notify("STOPPING=1")
        server.prepareShutdown()
        engine.shutdown(time: engineNow)
        backlight.lightDarkened()
        input.stop()
        if let replay, !replayEnded {
            replayEnded = true
            replay.captures.diagnose()
        }
        watchInput()
        phase = .draining(until: env.now() + 1_000_000)
    }

    func reload() {
        // MONOTONIC_USEC with RELOADING=1: sd_notify(3) asks for it (systemd 253 and later match
        // the reload's READY=1 by it; earlier ones ignore the field).
        env.notify("RELOADING=1\nMONOTONIC_USEC=\(env.now())")
        log(.notice, "SIGHUP: reloading \(options.configPath)")
        Accounts.clearCache()   // user and group names are looked up again
        do throws(CommandFailure) {
            let new = try loadConfig(options.configPath)
            let clashes = engine.clientIDs(clashingWith: new.scene)
            if !clashes.isEmpty {
                throw CommandFailure("\(options.configPath): \(clashes.map { "\"\($0)\"" }.joined(separator: ", ")) \(clashes.count == 1 ? "is" : "are") taken by a client's window: ids are unique across the whole scene")
            }
            if new.socket.path != config.socket.path && options.socketPath == nil {
                log(.warning, "the socket path changed to \(new.socket.path): that takes a restart; still listening on \(server.socketPath)")
            }
            // Cancellations for vanished views go out with the old scene's ids; the outbox then
            // tells the consumers to switch to the new scene.
            engine.replaceScene(new.scene, time: engine.lastTime)
            if new.realtime != config.realtime && options.realtime == nil {
                log(.notice, "\"realtime\" changed: it takes effect at the next start (the loop keeps \(server.scheduling.policy) \(server.scheduling.priority))")
            }
            engine.configureKiosk(new.kiosk, time: engineNow)
            backlight.configure(new.kiosk)
            config = new
            enforcePolicy()
            server.recheckSpeakers(host: self)
            input.reconfigure(new, into: &items)
            feedInput()
            server.screen = new.screen
            server.limits.queueLimit = new.socket.queueLimit
            server.limits.queueBytes = new.socket.queueBytes
            server.limits.maxClients = new.socket.maxClients
            if new.tuio != tuio?.settings {
                tuio = new.tuio.map { makeTuio($0) }
            }
            let (windows, views) = sceneCounts(new.scene)
            let clientWindows = engine.scene.windowOrder.count - windows
            log(.notice, "reloaded: \(windows) window(s), \(views) view(s) (as check-config counts them); \(clientWindows) client window(s) kept")
        } catch {
            for line in error.lines { log(.error, line) }
            log(.error, "reload rejected: the previous configuration stays in force")
        }
        env.notify("READY=1")
    }
}
