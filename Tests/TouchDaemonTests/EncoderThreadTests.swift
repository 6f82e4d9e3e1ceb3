import Testing
import Dispatch
import TouchCore
import TouchCapture
import TouchTestSupport
@testable import TouchDaemon

/// `touchd replay` encodes on a second thread (issue 34): the bytes must be those of one
/// thread — every batch, every scene script reply, in order.
@Suite struct EncoderThreadTests {
    struct Collect: OutputSink {
        var out: [UInt8] = []
        mutating func take(_ m: Message, history: SceneHistory) { history.encode(m, into: &out) }
        mutating func reply(_ line: [UInt8]) { out += line }
    }

    /// The live-scene fixture: taps, and a client's attach, update and detach with replies.
    func session() throws -> (ReplaySession, ScenePlayer) {
        let cfg = try loadConfig(Repository.path("Tests/Fixtures/live/live-taps.json"))
        let session = try replaySession(config: cfg, captures: [Repository.path("Tests/Fixtures/live/live-taps.events")],
                                        deviceInfos: [Repository.path("Tests/Fixtures/virtual-800x480.desc")], format: nil,
                                        engine: Engine(scene: cfg.scene), log: StderrLog(threshold: .error))
        let player = ScenePlayer(script: try loadSceneScript(Repository.path("Tests/Fixtures/live/live-taps.scene.ndjson")),
                                 limits: cfg.clients.limits)
        return (session, player)
    }

    @Test func aReplayEncodedOnItsOwnThreadIsByteForByteTheOneThreadsReplay() throws {
        var one = Collect(), two = Collect()
        let (s1, p1) = try session()
        s1.run(into: &one, scene: p1)
        let (s2, p2) = try session()
        EncoderThread.run(s2, scene: p2, into: &two)
        let text = String(decoding: two.out, as: UTF8.self)
        #expect(text.contains("\"type\":\"frame\"") && text.contains("\"client\":"), "frames and the script's replies")
        #expect(text == String(decoding: one.out, as: UTF8.self))
    }

    @Test func theQueueKeepsOrderPastItsDepthAndEndsAfterClose() {
        let queue = BatchQueue(depth: 3)
        final class Box: @unchecked Sendable { var got: [UInt8] = []; var ended = false }   // the consumer's until `done`
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            while let b = queue.take() {
                if case .reply(let line) = b { box.got += line }
            }
            box.ended = true
            done.signal()
        }
        for k in 0..<200 { queue.put(.reply([UInt8(k)])) }
        queue.close()
        done.wait()
        #expect(box.got == (0..<200).map { UInt8($0) })
        #expect(box.ended)
    }
}
