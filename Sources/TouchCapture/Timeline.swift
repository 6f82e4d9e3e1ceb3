import TouchCore

/// Several devices' events merged into one timeline by timestamp (stable: equal times keep
/// the devices' order). The merge is made once, as a sort of (time, device, index): every step
/// costs the same however many devices a file holds.
public struct Timeline {
    let devices: [CaptureDevice]
    /// One device: its events in order; several: the merged order.
    var order: [(device: Int32, index: Int32)] = []
    var position = 0

    public init(_ devices: [CaptureDevice]) {
        self.devices = devices
        guard devices.count > 1 else { return }
        var all: [(time: Int64, device: Int32, index: Int32)] = []
        all.reserveCapacity(devices.reduce(0) { $0 + $1.events.count })
        for (d, dev) in devices.enumerated() {
            for (i, e) in dev.events.enumerated() { all.append((e.time, Int32(d), Int32(i))) }
        }
        all.sort { a, b in a.time != b.time ? a.time < b.time : (a.device != b.device ? a.device < b.device : a.index < b.index) }
        order = all.map { ($0.device, $0.index) }
    }

    var count: Int { devices.count == 1 ? devices[0].events.count : order.count }

    public var nextTime: Int64? {
        guard position < count else { return nil }
        if devices.count == 1 { return devices[0].events[position].time }
        let o = order[position]
        return devices[Int(o.device)].events[Int(o.index)].time
    }

    public mutating func next() -> (device: Int, event: InputEvent)? {
        guard position < count else { return nil }
        defer { position += 1 }
        if devices.count == 1 { return (0, devices[0].events[position]) }
        let o = order[position]
        return (Int(o.device), devices[Int(o.device)].events[Int(o.index)])
    }
}
