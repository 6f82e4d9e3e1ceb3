import Foundation
import Testing

/// docs/architecture.md stays true to the tree: every Swift file under Sources/ is named in it
/// by its whole name (a name inside another, Log.swift in StderrLog.swift, does not count),
/// every Swift file it names exists, and no source file is over 400 lines (the doc's own rule).
@Suite struct ArchitectureDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func swiftFiles(under dir: String) -> [URL] {
        let e = FileManager.default.enumerator(at: root.appendingPathComponent(dir), includingPropertiesForKeys: nil)
        var out: [URL] = []
        while let u = e?.nextObject() as? URL { if u.pathExtension == "swift" { out.append(u) } }
        return out.sorted { $0.path < $1.path }
    }

    /// The Swift file names a text mentions, each whole: a run of name characters ending in
    /// ".swift" (file names here are letters, digits and "+").
    static func namedFiles(in text: String) -> Set<String> {
        var names = Set<String>()
        let chars = Array(text.unicodeScalars)
        let suffix = Array(".swift".unicodeScalars)
        func isName(_ c: Unicode.Scalar) -> Bool { c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "+" || c == "_" }
        var i = 0
        while i + suffix.count <= chars.count {
            if Array(chars[i..<i + suffix.count]) == suffix, i > 0, isName(chars[i - 1]),
               i + suffix.count == chars.count || !isName(chars[i + suffix.count]) {
                var s = i
                while s > 0 && isName(chars[s - 1]) { s -= 1 }
                names.insert(String(String.UnicodeScalarView(chars[s..<i + suffix.count])))
            }
            i += 1
        }
        return names
    }

    @Test func namesAreMatchedWhole() {
        #expect(Self.namedFiles(in: "StderrLog.swift, (Log.swift) and A+B.swift.") == ["StderrLog.swift", "Log.swift", "A+B.swift"])
        #expect(!Self.namedFiles(in: "StderrLog.swift").contains("Log.swift"))
    }

    @Test func everySourceFileIsNamedInTheArchitectureDoc() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let named = Self.namedFiles(in: doc)
        let files = Self.swiftFiles(under: "Sources")
        #expect(files.count > 50, "Sources/ should hold the project's files (found \(files.count))")
        let missing = files.map(\.lastPathComponent).filter { !named.contains($0) }
        #expect(missing.isEmpty, "docs/architecture.md does not name: \(missing.joined(separator: ", "))")
        // And what it names is there (in Sources/, Tests/ or Fuzz/).
        let existing = Set((Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Tests") + Self.swiftFiles(under: "Fuzz")
                        + Self.swiftFiles(under: "Benchmarks")).map(\.lastPathComponent))
        let stale = named.subtracting(existing)
        #expect(stale.isEmpty, "docs/architecture.md names files that do not exist: \(stale.sorted().joined(separator: ", "))")
    }

    /// A source file's code without its comments (`//` to the end of the line).
    static func code(_ f: URL) throws -> String {
        try String(contentsOf: f, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }.joined(separator: "\n")
    }

    static func mentions(_ word: String, in text: String) -> Bool {
        var rest = text[...]
        while let r = rest.range(of: word) {
            let before = r.lowerBound == text.startIndex ? nil : text[text.index(before: r.lowerBound)]
            let after = r.upperBound == text.endIndex ? nil : text[r.upperBound]
            if !(before.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false) && !(after.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false) { return true }
            rest = text[r.upperBound...]
        }
        return false
    }

    /// "The loop is the only code that touches the engine": outside TouchCore, an Engine is held
    /// only by the loops — the daemon's, the offline replay's and the offline commands' (render;
    /// touchd-bench's runs, Benchmarks/Engine) — and EngineFeed, the loops' way of handing it input.
    @Test func onlyTheLoopsHoldAnEngine() throws {
        let loops: Set<String> = ["Daemon.swift", "EngineFeed.swift", "ReplaySession.swift", "Inputs.swift", "ReplayCommand.swift",
                                  "RenderCommand.swift", "BenchCommand.swift", "BenchRuns.swift"]
        var holders: Set<String> = []
        for f in Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Benchmarks") where !f.path.contains("/TouchCore/") {
            if Self.mentions("Engine", in: try Self.code(f)) { holders.insert(f.lastPathComponent) }
        }
        #expect(holders.isSubset(of: loops), "an Engine outside the loops: \(holders.subtracting(loops).sorted())")
        #expect(holders.contains("Daemon.swift") && holders.contains("EngineFeed.swift"))
    }

    /// The habits the doc names: no `try?` in Sources/ (an expected failure is caught with
    /// do/catch and said why), and nothing the `touchd` binary links imports Foundation.
    @Test func theHabitsHold() throws {
        var tries: [String] = [], foundation: [String] = []
        for f in Self.swiftFiles(under: "Sources") {
            let code = try Self.code(f)
            if Self.mentions("try?", in: code) { tries.append(f.lastPathComponent) }
            if code.contains("import Foundation") { foundation.append(f.lastPathComponent) }
        }
        #expect(tries.isEmpty, "try? in \(tries)")
        #expect(foundation.isEmpty, "Foundation imported by \(foundation)")
    }

    /// One seam to the OS (issue 41): only TouchSystem and the device layer's two shims
    /// (libevdev's ioctls, uinput's) import Glibc; everything else reaches the system through them.
    static let glibcAllowed = ["Sources/TouchSystem/", "Sources/TouchInput/Evdev.swift", "Sources/TouchInput/Uinput.swift"]

    @Test func onlyTheSeamImportsGlibc() throws {
        var outside: [String] = []
        for f in Self.swiftFiles(under: "Sources") {
            let path = String(f.path.dropFirst(Self.root.path.count + 1))
            guard try Self.code(f).contains("import Glibc"), !Self.glibcAllowed.contains(where: { path.hasPrefix($0) }) else { continue }
            outside.append(path)
        }
        #expect(outside.isEmpty, "Glibc imported outside the seam: \(outside)")
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        #expect(doc.contains("Only TouchSystem, Evdev.swift and Uinput.swift import Glibc"))
    }

    /// One seam to the OS, held in the objects (issue 41): every C symbol an object of a module
    /// leaves undefined (`nm -u`) is one the doc's seam-allow-list allows it, whatever the source
    /// imports — a call that reaches the C library without `import Glibc` (through another
    /// module's default argument, say) is refused as much as one with it. The objects are those
    /// of the build these tests run from.
    @Test func objectsCallOnlyWhatTheSeamAllows() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let allow = try #require(SeamAllowList(doc: doc), "docs/architecture.md has no ```seam-allow-list block")
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let build = URL(fileURLWithPath: exe).deletingLastPathComponent()
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources").path).sorted()
            .filter { m in Self.swiftFiles(under: "Sources/" + m).count > 0 }
        #expect(modules.contains("TouchCore") && modules.contains("TouchSystem") && modules.contains("touchd"))
        var refused: [String] = [], objectNames: [String] = []
        for m in modules {
            let dir = build.appendingPathComponent(m + ".build")
            // The objects of the module's sources today (a build directory keeps those of files since removed).
            let sources = Set(Self.swiftFiles(under: "Sources/" + m).map { $0.lastPathComponent + ".o" })
            let objects = (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.filter { sources.contains($0) }.sorted() ?? []
            #expect(!objects.isEmpty, "no objects of \(m) in \(dir.path)")
            guard !objects.isEmpty else { continue }
            for (object, symbols) in try Self.undefinedSymbols(objects.map { dir.appendingPathComponent($0).path }) {
                let file = String(URL(fileURLWithPath: object).lastPathComponent.dropLast(2))   // "Evdev.swift"
                objectNames.append(m + "/" + file)
                refused += symbols.filter { !allow.allows($0, module: m, file: file) }.map { "\(m)/\(file): \($0)" }
            }
        }
        #expect(refused.isEmpty, "C symbols no line of docs/architecture.md's seam-allow-list allows: \(refused)")
        // Every scope the list names is there (a renamed file leaves no stale permission behind).
        let stale = allow.scopes.filter { scope in scope != "*" && !objectNames.contains { $0 == scope || $0.hasPrefix(scope + "/") } }
        #expect(stale.isEmpty, "the seam-allow-list names scopes with no object: \(stale)")
        #expect(objectNames.count > 100, "objects checked: \(objectNames.count)")
    }

    /// What `nm -u` lists for each object, in one run.
    static func undefinedSymbols(_ objects: [String]) throws -> [(object: String, symbols: [String])] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["nm", "-u"] + objects
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "nm -u failed (\(p.terminationStatus))")
        var result: [(object: String, symbols: [String])] = objects.count == 1 ? [(objects[0], [])] : []
        for line in out.split(separator: "\n") {
            if !line.hasPrefix(" ") && line.hasSuffix(":") {
                result.append((String(line.dropLast()), []))
            } else if let name = line.split(separator: " ").last, line.contains(" U "), !result.isEmpty {
                result[result.count - 1].symbols.append(String(name))
            }
        }
        #expect(result.count == objects.count, "nm -u listed \(result.count) of \(objects.count) objects")
        return result
    }

    @Test func theSeamAllowListMatchesByScopeAndPattern() throws {
        let list = try #require(SeamAllowList(doc: "x\n```seam-allow-list\n* memcpy  # compiler\nTouchInput libevdev_*\nTouchInput/Evdev.swift ioctl\n```\n"))
        #expect(list.allows("memcpy", module: "TouchCore", file: "Scene.swift"))
        #expect(list.allows("$s4main3fooyyF", module: "TouchCore", file: "Scene.swift"))
        #expect(list.allows("libevdev_new", module: "TouchInput", file: "Udev.swift"))
        #expect(!list.allows("libevdev_new", module: "TouchCapture", file: "YAML.swift"))
        #expect(list.allows("ioctl", module: "TouchInput", file: "Evdev.swift"))
        #expect(!list.allows("ioctl", module: "TouchInput", file: "Udev.swift"))
        #expect(!list.allows("compiler", module: "TouchCore", file: "Scene.swift"))
        #expect(!list.allows("getpid", module: "TouchDaemon", file: "Systemd.swift"))
        #expect(list.scopes == ["*", "TouchInput", "TouchInput/Evdev.swift"])
    }

    /// A test file named after a source file (`HitIndexTests.swift` for HitIndex.swift) is in
    /// the test target of that file's module; behaviour suites that read better elsewhere are
    /// named otherwise (EndToEndTests' DaemonProcessTests, not DaemonTests).
    @Test func aSourceFilesTestsAreInItsModulesTarget() throws {
        var module: [String: String] = [:]   // source file name → its module
        for f in Self.swiftFiles(under: "Sources") {
            let parts = f.path.components(separatedBy: "/Sources/")[1].split(separator: "/")
            module[f.lastPathComponent] = String(parts[0])
        }
        var misplaced: [String] = []
        for f in Self.swiftFiles(under: "Tests") where f.lastPathComponent.hasSuffix("Tests.swift") {
            let target = f.deletingLastPathComponent().lastPathComponent
            let source = String(f.lastPathComponent.dropLast("Tests.swift".count)) + ".swift"
            guard let m = module[source] else { continue }
            if target != m + "Tests" { misplaced.append("\(target)/\(f.lastPathComponent) (\(source) is \(m)'s)") }
        }
        #expect(misplaced.isEmpty, "tests named after another module's file: \(misplaced)")
    }

    @Test func noSourceFileIsOver400Lines() throws {
        var long: [String] = []
        for f in Self.swiftFiles(under: "Sources") {
            let lines = try String(contentsOf: f, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            if lines > 400 { long.append("\(f.lastPathComponent) (\(lines))") }
        }
        #expect(long.isEmpty, "over 400 lines: \(long.joined(separator: ", "))")
    }
}

/// The seam's allow-list as docs/architecture.md writes it: a ```seam-allow-list block whose
/// lines are a scope (`*`, a module, or `Module/File.swift`) and the symbols it may leave
/// undefined (a trailing `*` matches any rest), `#` to the end of a line a comment.
struct SeamAllowList {
    private(set) var lines: [(scope: String, patterns: [String])] = []
    var scopes: [String] { lines.map(\.scope) }

    init?(doc: String) {
        guard let start = doc.range(of: "```seam-allow-list\n"), let end = doc[start.upperBound...].range(of: "```") else { return nil }
        for raw in doc[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let words = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0].split(separator: " ").map(String.init)
            guard let scope = words.first else { continue }
            lines.append((scope, Array(words.dropFirst())))
        }
    }

    /// Swift's own symbols: mangled names and the runtime's entry points.
    static func isSwifts(_ symbol: String) -> Bool {
        symbol.hasPrefix("$s") || symbol.hasPrefix("swift_") || symbol.hasPrefix("_swift")
    }

    func allows(_ symbol: String, module: String, file: String) -> Bool {
        if Self.isSwifts(symbol) { return true }
        return lines.contains { line in
            guard line.scope == "*" || line.scope == module || line.scope == module + "/" + file else { return false }
            return line.patterns.contains { p in p.hasSuffix("*") ? symbol.hasPrefix(p.dropLast()) : symbol == p }
        }
    }
}
