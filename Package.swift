// swift-tools-version:6.0
import PackageDescription

// Dependencies point down toward TouchCore, the pure module (no I/O, no C libraries), and
// TouchSystem, the one seam to the OS. Only TouchInput links libevdev, libmtdev and libudev;
// TouchCapture links libyaml. systemd's protocols (notify, watchdog, socket activation) are
// TouchSystem's own Swift, written from their documentation: no libsystemd. Nothing links Foundation.

// The per-event modules skip the dynamic exclusivity checks in release builds (the static
// ones stay): all their state is owned by one thread, and the checks cost about a tenth of a
// replay's time (swift_beginAccess/endAccess in the profile). Debug builds and tests keep them.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

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
        .target(name: "TouchCore", swiftSettings: hotPath, linkerSettings: [.linkedLibrary("m")]),
        .systemLibrary(
            name: "CLibudev",
            pkgConfig: "libudev",
            providers: [.apt(["libudev-dev"])]
        ),
        // Linux headers Glibc's module leaves out (epoll, signalfd, timerfd, SO_PEERCRED); no library.
        .systemLibrary(name: "CLinux"),
        .target(name: "TouchSystem", dependencies: ["CLinux"]),
        .target(name: "TouchInput", dependencies: ["TouchCore", "TouchSystem", "CLibevdev", "CLibmtdev", "CLibudev"], swiftSettings: hotPath),
        .target(name: "TouchServer", dependencies: ["TouchCore", "TouchSystem"], swiftSettings: hotPath),
        .systemLibrary(
            name: "CLibyaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .target(name: "TouchCapture", dependencies: ["TouchCore", "TouchSystem", "TouchInput", "CLibyaml"], swiftSettings: hotPath),
        .target(name: "TouchDaemon", dependencies: ["TouchCore", "TouchSystem", "TouchInput", "TouchCapture", "TouchServer"]),
        .executableTarget(name: "touchd", dependencies: ["TouchDaemon"]),
        // The engine's benchmark (scripts/bench engine), out of the shipped binary: Benchmarks/
        // holds every benchmark, scripts/bench runs them all.
        .executableTarget(name: "touchd-bench", dependencies: ["TouchCore", "TouchSystem", "TouchInput", "TouchCapture", "TouchServer", "TouchDaemon"],
                          path: "Benchmarks/Engine", swiftSettings: hotPath),
        // The fuzz targets' harnesses (Fuzz/Sources, Fuzz/README.md) and their runner, which
        // plays saved inputs through them without libFuzzer (scripts/fuzz --replay, CI);
        // scripts/fuzz builds the same library with --sanitize fuzzer for libFuzzer runs.
        .target(name: "TouchFuzz", dependencies: ["TouchCore", "TouchSystem", "TouchInput", "TouchCapture", "TouchServer", "TouchTestSupport"], path: "Fuzz/Sources"),
        .executableTarget(name: "touchd-fuzz", dependencies: ["TouchFuzz", "TouchSystem"], path: "Fuzz/Runner"),
        // What the tests share: the seeded RNG, the 800×480 test devices, the engine rig, the
        // repository's root and the touchd binary to run. Only test targets depend on it (the
        // touchd executable does not); it imports only TouchCore and Glibc (no Foundation).
        .target(name: "TouchTestSupport", dependencies: ["TouchCore"], path: "Tests/TouchTestSupport"),
        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore", "TouchTestSupport"]),
        .testTarget(name: "TouchSystemTests", dependencies: ["TouchSystem"]),
        .testTarget(name: "TouchInputTests", dependencies: ["TouchCore", "TouchInput", "TouchTestSupport"]),
        .testTarget(name: "TouchCaptureTests", dependencies: ["TouchCore", "TouchSystem", "TouchInput", "TouchCapture", "TouchTestSupport"]),
        .testTarget(name: "TouchServerTests", dependencies: ["TouchCore", "TouchSystem", "TouchServer", "TouchTestSupport"]),
        .testTarget(name: "TouchDaemonTests", dependencies: ["TouchCore", "TouchSystem", "TouchCapture", "TouchDaemon", "TouchTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TouchCore", "TouchTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
