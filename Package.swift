// swift-tools-version:6.0
import PackageDescription

// Dependencies point down toward TouchCore, the pure module (no I/O, no C libraries).
// Only TouchInput links C libraries; TouchCapture and TouchDaemon reach them through it.
let package = Package(
    name: "touchd",
    products: [
        .executable(name: "touchd", targets: ["touchd"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibevdev",
            pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]
        ),
        .systemLibrary(
            name: "CLibmtdev",
            pkgConfig: "mtdev",
            providers: [.apt(["libmtdev-dev"])]
        ),
        // libm: rounding and square roots (TouchCore imports no libc module, only links it).
        .target(name: "TouchCore", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "TouchInput", dependencies: ["TouchCore", "CLibevdev", "CLibmtdev"]),
        .target(name: "TouchCapture", dependencies: ["TouchCore", "TouchInput"]),
        .target(name: "TouchDaemon", dependencies: ["TouchCore", "TouchInput", "TouchCapture"]),
        .executableTarget(name: "touchd", dependencies: ["TouchDaemon"]),
        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchCaptureTests", dependencies: ["TouchCore", "TouchInput", "TouchCapture"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TouchCore"]),
    ],
    swiftLanguageModes: [.v6]
)
