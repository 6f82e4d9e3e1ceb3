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
        .systemLibrary(
            name: "CLibsystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .systemLibrary(
            name: "CLibudev",
            pkgConfig: "libudev",
            providers: [.apt(["libudev-dev"])]
        ),
        .target(name: "TouchInput", dependencies: ["TouchCore", "CLibevdev", "CLibmtdev", "CLibudev"]),
        // Linux headers Glibc's module leaves out (epoll, signalfd, SO_PEERCRED); no library.
        .systemLibrary(name: "CLinux"),
        .target(name: "TouchServer", dependencies: ["TouchCore", "CLinux"]),
        .systemLibrary(
            name: "CLibyaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .target(name: "TouchCapture", dependencies: ["TouchCore", "TouchInput", "CLibyaml"]),
        .target(name: "TouchDaemon", dependencies: ["TouchCore", "TouchInput", "TouchCapture", "TouchServer", "CLibsystemd"]),
        .executableTarget(name: "touchd", dependencies: ["TouchDaemon"]),
        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchCaptureTests", dependencies: ["TouchCore", "TouchInput", "TouchCapture"]),
        .testTarget(name: "TouchServerTests", dependencies: ["TouchCore", "TouchServer"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TouchCore"]),
    ],
    swiftLanguageModes: [.v6]
)
