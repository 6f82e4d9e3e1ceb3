import Testing
@testable import TouchInput

/// Issue 17: a device libudev describes without a syspath or sysname is skipped, not a crash.
@Suite struct UdevTests {
    @Test func aDeviceWithoutASyspathOrSysnameIsSkippedNotACrash() {
        let device = "/sys/devices/virtual/input/input7/event5".withCString { syspath in
            "event5".withCString { sysname in
                "/dev/input/event5".withCString { devnode in
                    (UdevInputDevice(syspath: syspath, devnode: devnode, sysname: sysname, action: "add", properties: nil, name: "panel"),
                     UdevInputDevice(syspath: nil, devnode: devnode, sysname: sysname, action: "add", properties: nil, name: nil),
                     UdevInputDevice(syspath: syspath, devnode: devnode, sysname: nil, action: nil, properties: nil, name: nil),
                     UdevInputDevice(syspath: syspath, devnode: nil, sysname: sysname, action: "remove", properties: [:], name: nil))
                }
            }
        }
        #expect(device.0?.syspath == "/sys/devices/virtual/input/input7/event5")
        #expect(device.0?.devnode == "/dev/input/event5" && device.0?.sysname == "event5" && device.0?.action == "add" && device.0?.name == "panel")
        #expect(device.1 == nil)
        #expect(device.2 == nil)
        // No devnode (an input device's parent node, a device going away) is fine.
        #expect(device.3 != nil && device.3?.devnode == nil && device.3?.isEventNode == true)
    }
}
