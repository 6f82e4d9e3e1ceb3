import TouchCore

/// Several devices' events merged into one timeline by timestamp (stable: equal times keep
/// the devices' order).
public struct Timeline {
    let devices: [CaptureDevice]
    var cursors: [Int]

    public init(_ devices: [CaptureDevice]) {
        self.devices = devices
        cursors = Array(repeating: 0, count: devices.count)
    }

    public var nextTime: Int64? {
        var best: Int64?
        for (d, dev) in devices.enumerated() where cursors[d] < dev.events.count {
            let t = dev.events[cursors[d]].time
            if best == nil || t < best! { best = t }
        }
        return best
    }

    public mutating func next() -> (device: Int, event: InputEvent)? {
        if devices.count == 1 {
            guard cursors[0] < devices[0].events.count else { return nil }
            defer { cursors[0] += 1 }
            return (0, devices[0].events[cursors[0]])
        }
        var best = -1
        var bestTime = Int64.max
        for (d, dev) in devices.enumerated() where cursors[d] < dev.events.count {
            let t = dev.events[cursors[d]].time
            if t < bestTime { best = d; bestTime = t }
        }
        guard best >= 0 else { return nil }
        defer { cursors[best] += 1 }
        return (best, devices[best].events[cursors[best]])
    }
}
