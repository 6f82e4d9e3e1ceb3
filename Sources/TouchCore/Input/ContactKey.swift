/// A contact as the stages before hit-testing know it — the session, the system gestures, the
/// screen reader — its device and slot: no touch id exists yet, and none may be given to a
/// contact those stages keep from binding.
public struct ContactKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var device: DeviceIndex
    public var slot: Int
    public init(device: DeviceIndex, slot: Int) { self.device = device; self.slot = slot }
    public static func < (a: ContactKey, b: ContactKey) -> Bool { (a.device.rawValue, a.slot) < (b.device.rawValue, b.slot) }
    public var description: String { "\(device.rawValue):\(slot)" }
}
