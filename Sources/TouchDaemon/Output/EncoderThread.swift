import Dispatch
import TouchCore
import TouchCapture
import TouchSystem

/// `touchd replay`'s second thread: the loop (parse, input, dispatch) stays on the calling
/// thread and hands the published output over in batches; this thread reads them through the
/// scene history and encodes them into the writer. The same batches in the same order through
/// the same sink: the bytes are those of one thread (the golden corpus is unchanged). Encoding
/// was a quarter of a replay's time (issue 34): on two cores it now overlaps the rest.
enum EncoderThread {
    /// Batches waiting at most: the loop waits when the encoder is this far behind, so memory
    /// stays bounded whatever the capture's length.
    static let depth = 16
    /// Events per batch: ~130 frames of 10 fingers (~0.5 MiB of NDJSON), so that the two
    /// threads rarely wait for each other (each wait is a futex call on both sides).
    static let batchEvents = 4096

    /// Whether a second thread can pay: not on one processor.
    static var pays: Bool { ThisProcess.onlineProcessors >= 2 }

    /// Runs the session's loop here and `sink` on a thread of its own; returns when both are
    /// done (every batch delivered), the sink back to the caller.
    static func run<S: OutputSink>(_ session: ReplaySession, scene player: ScenePlayer?, into sink: inout S) {
        let queue = BatchQueue(depth: depth)
        let owned = Owned(sink: sink, history: SceneHistory(scene: session.engine.scene))
        let done = DispatchSemaphore(value: 0)
        // The thread's work as a plain closure in a box: the closure handed to Dispatch then
        // captures nothing generic (the sink's type is no one else's business).
        let work = Work {
            while let batch = queue.take() {
                switch batch {
                case .outputs(let outputs): owned.history.deliver(outputs, to: &owned.sink)
                case .reply(let line): owned.sink.reply(line)
                }
            }
        }
        DispatchQueue.global(qos: .userInitiated).async {
            work.body()
            done.signal()
        }
        session.run(scene: player, every: batchEvents) { queue.put($0) }
        queue.close()
        done.wait()
        sink = owned.sink
    }

    /// The encoder thread's loop, run once, there.
    final class Work: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// The sink and its history, owned by the encoder thread from its start until `done`
    /// is signalled, by the caller after: never by both at once.
    final class Owned<S: OutputSink>: @unchecked Sendable {
        var sink: S
        let history: SceneHistory
        init(sink: S, history: SceneHistory) { self.sink = sink; self.history = history }
    }
}

/// A bounded single-producer, single-consumer queue of batches: a ring of slots and two
/// semaphores (free slots, filled slots), no lock. The producer writes only the slot a `free`
/// wait gave it, the consumer reads only the slot a `filled` wait gave it; each semaphore's
/// signal orders the slot's write before the other side's read.
final class BatchQueue: @unchecked Sendable {
    let slots: UnsafeMutablePointer<ReplaySession.Batch?>
    let depth: Int
    let free: DispatchSemaphore
    let filled = DispatchSemaphore(value: 0)
    var head = 0   // the consumer's
    var tail = 0   // the producer's
    var closed = false   // written by the producer before its last `filled` signal

    init(depth: Int) {
        self.depth = depth
        free = DispatchSemaphore(value: depth)
        slots = .allocate(capacity: depth)
        slots.initialize(repeating: nil, count: depth)
    }

    deinit {
        slots.deinitialize(count: depth)
        slots.deallocate()
    }

    /// Waits for a free slot (the consumer is `depth` batches behind), then fills it.
    func put(_ b: ReplaySession.Batch) {
        free.wait()
        slots[tail] = b
        tail = (tail + 1) % depth
        filled.signal()
    }

    /// No more batches: `take` returns nil once the ones queued are taken.
    func close() {
        free.wait()
        closed = true
        filled.signal()
    }

    /// The next batch, waiting for it; nil after `close` and every batch before it.
    func take() -> ReplaySession.Batch? {
        filled.wait()
        guard let b = slots[head] else {
            precondition(closed, "BatchQueue: an empty slot before close")
            // The slot `close` took goes back: a semaphore freed below its starting value
            // traps (libdispatch).
            free.signal()
            return nil
        }
        slots[head] = nil
        head = (head + 1) % depth
        free.signal()
        return b
    }
}
