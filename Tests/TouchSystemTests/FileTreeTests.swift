@preconcurrency import Glibc
import Testing
@testable import TouchSystem

/// FileSystem.Tree: a tree someone else made, read without leaving it (issue 40, item 6:
/// `doctor --root` and `outputs --sysfs` as root printed /root/secret through a planted
/// absolute symlink, and hung on a FIFO).
@Suite struct FileTreeTests {
    /// SCRATCH/outside/secret ("SECRET") and the tree SCRATCH/tree, with its own /secret
    /// ("inside").
    final class Layout {
        let scratch = Scratch()
        var root: String { scratch.path + "/tree" }
        var outside: String { scratch.path + "/outside" }
        var tree: FileSystem.Tree { FileSystem.Tree(root: root) }
        init() {
            mkdir(root, 0o755)
            mkdir(outside, 0o755)
            _ = scratch.file("outside/secret", Array("SECRET".utf8))
            _ = scratch.file("tree/secret", Array("inside".utf8))
        }
        func dir(_ p: String) { mkdir(root + p, 0o755) }
        func file(_ p: String, _ text: String) { _ = scratch.file("tree" + p, Array(text.utf8)) }
        func link(_ p: String, to target: String) { symlink(target, root + p) }
    }

    func text(_ t: FileSystem.Tree, _ p: String) throws(FileError) -> String {
        String(decoding: try t.read(p, limit: 1 << 16), as: UTF8.self)
    }

    func errno(_ t: FileSystem.Tree, _ p: String) -> Errno? {
        do { _ = try t.read(p, limit: 1 << 16); return nil } catch {
            if case .system(let e) = error.problem { return e.errno }
            return nil
        }
    }

    @Test func anAbsoluteSymlinkIsResolvedInsideTheRoot() throws {
        let l = Layout()
        l.dir("/device")
        l.link("/device/name", to: l.outside + "/secret")     // out of the tree, by its absolute path
        l.link("/device/alias", to: "/secret")                // the tree's own /secret
        #expect(errno(l.tree, "/device/name") == .noSuchFile) // TREE/SCRATCH/outside/secret: none
        #expect(try text(l.tree, "/device/alias") == "inside")
        // The same file by the plain path, as doctor read it before: the secret.
        #expect(String(decoding: try FileSystem.read(l.root + "/device/name", limit: 100), as: UTF8.self) == "SECRET")
    }

    @Test func dotDotStopsAtTheRoot() throws {
        let l = Layout()
        l.dir("/a")
        l.link("/a/up", to: "../../outside/secret")   // two levels up: above the tree
        l.link("/a/dir", to: "../..")
        #expect(errno(l.tree, "/a/up") == .noSuchFile) // TREE/outside/secret: none
        #expect(try text(l.tree, "/../secret") == "inside")
        #expect(try text(l.tree, "/a/dir/secret") == "inside")
        #expect(try text(l.tree, "/a/../../../secret") == "inside")
        #expect(l.tree.status("/a/dir")?.kind == .directory)
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let l = Layout()
        mkfifo(l.root + "/fifo", 0o644)
        l.link("/name", to: "fifo")
        let start = Clock.monotonicMicros()
        for p in ["/fifo", "/name"] {
            do {
                _ = try l.tree.read(p, limit: 1 << 16)
                Issue.record("\(p) was read")
            } catch {
                #expect(error.description == "\(l.root)/\(p.dropFirst()): is not a regular file (a FIFO, a device or a socket): not read")
            }
        }
        #expect(Clock.monotonicMicros() - start < 1_000_000)
        #expect(l.tree.status("/name")?.kind == .fifo)
        #expect(l.tree.status("/name", followingLast: false)?.kind == .symlink)
        l.link("/null", to: "/dev/null")   // the tree has no /dev/null: missing, not the real one
        #expect(errno(l.tree, "/null") == .noSuchFile)
    }

    @Test func aLoopIsELOOPAndFortyLinksAreTheLimit() throws {
        let l = Layout()
        l.link("/a", to: "b")
        l.link("/b", to: "/a")
        #expect(errno(l.tree, "/a") == Errno(rawValue: ELOOP))
        #expect(l.tree.status("/a") == nil)
        // A chain: l0 → l1 → … → l40 → secret. From l1, 40 links; from l0, 41.
        for i in 0...40 { l.link("/l\(i)", to: i == 40 ? "secret" : "l\(i + 1)") }
        #expect(try text(l.tree, "/l1") == "inside")
        #expect(errno(l.tree, "/l0") == Errno(rawValue: ELOOP))
    }

    @Test func aFileInThePathIsNotADirectoryAndBigFilesAreRefused() throws {
        let l = Layout()
        #expect(errno(l.tree, "/secret/x") == .notDirectory)
        #expect(throws: FileError.self) { try l.tree.read("/secret", limit: 3) }
        do { _ = try l.tree.read("/", limit: 3); Issue.record("a directory was read") } catch {
            #expect(error.message == "is a directory")
        }
    }

    @Test func entriesAndLinksStayInside() throws {
        let l = Layout()
        l.dir("/fd")
        l.link("/fd/5", to: "/dev/input/event3")   // not in the tree: read as text, not followed
        l.link("/fd/0", to: "../secret")
        l.file("/fd/note", "x")
        let links = try l.tree.links(in: "/fd").sorted { $0.name < $1.name }
        #expect(links.map(\.name) == ["0", "5", "note"])
        #expect(links.map(\.target) == ["../secret", "/dev/input/event3", nil])
        #expect(l.tree.link("/fd/5") == "/dev/input/event3")
        #expect(l.tree.link("/fd/note") == nil)
        l.link("/out", to: l.outside)              // the outside directory, by its absolute path
        l.link("/in", to: "fd")
        #expect(throws: SystemError("open", .noSuchFile, path: l.root + "/out")) { try l.tree.entries("/out") }
        #expect(try l.tree.entries("/in").sorted() == ["0", "5", "note"])
        #expect(throws: SystemError("opendir", .notDirectory, path: l.root + "/secret")) { try l.tree.entries("/secret") }
    }

    /// The running system is the tree "/": /proc/self is a link inside it.
    @Test func theRunningSystem() throws {
        let t = FileSystem.Tree(root: "/")
        let comm = String(decoding: try t.read("/proc/self/comm", limit: 1 << 10), as: UTF8.self)
        #expect(!comm.isEmpty && comm.hasSuffix("\n"))
        let fd = try FileDescriptor.open("/dev/null", .readOnly)
        #expect(try t.links(in: "/proc/self/fd").contains { $0.name == String(fd.rawValue) && $0.target == "/dev/null" })
        #expect(t.status("/dev/null")?.kind == .characterDevice)
        #expect(throws: FileError.self) { try t.read("/dev/null", limit: 10) }
    }
}
