import Synchronization
import Testing
@testable import TouchSystem

/// Issue 17: user and group names are looked up once (NSS can block), kept until SIGHUP, and a
/// buffer too small is grown rather than failing.
@Suite struct AccountsTests {
    @Test func aBufferTooSmallIsRetriedTwiceAsBigUpToTheCap() {
        let sizes = Mutex<[Int]>([])
        let r = Accounts.withGrowingBuffer(start: 100, cap: 1000) { _, size in
            sizes.withLock { $0.append(size) }
            return size >= 800 ? .found("big enough") : .failed(.resultTooLarge)
        }
        #expect(r == .found("big enough"))
        #expect(sizes.withLock { $0 } == [100, 200, 400, 800])
        sizes.withLock { $0 = [] }
        let capped = Accounts.withGrowingBuffer(start: 100, cap: 300) { _, size in
            sizes.withLock { $0.append(size) }
            return .failed(.resultTooLarge)
        }
        #expect(capped == .failed(.resultTooLarge))
        #expect(sizes.withLock { $0 } == [100, 200, 300])
        // Other failures are answers at once.
        sizes.withLock { $0 = [] }
        let failed = Accounts.withGrowingBuffer(start: 100, cap: 300) { _, size in
            sizes.withLock { $0.append(size) }
            return .failed(.permissionDenied)
        }
        #expect(failed == .failed(.permissionDenied) && sizes.withLock { $0 } == [100])
    }

    @Test func aRealLookupWithATinyBufferGrowsItInsteadOfFailing() {
        // A 1-byte buffer cannot hold root's entry: getpwuid_r says ERANGE, and the lookup grows it.
        #expect(Accounts.lookUpUser(0, bufferSize: 1) == .found("root"))
        #expect(Accounts.lookUpGroup(0, bufferSize: 1) == .found("root"))
        #expect(Accounts.lookUpUser(0) == .found("root"))
        // A uid no database has: missing, not a failure.
        #expect(Accounts.lookUpUser(4_000_000_000) == .missing)
    }

    @Test func eachIdIsLookedUpOnceUntilTheCacheIsCleared() {
        let calls = Mutex<[UInt32]>([])
        let cache = NameCache { id in
            calls.withLock { $0.append(id) }
            switch id {
            case 0: return .found("root")
            case 1: return .missing
            default: return .failed(.interrupted)
            }
        }
        for _ in 0..<3 {
            #expect(cache.name(0) == "root")
            #expect(cache.name(1) == nil)
        }
        #expect(calls.withLock { $0 } == [0, 1])
        // A failure is not an answer: the next use asks again.
        #expect(cache.name(7) == nil && cache.name(7) == nil)
        #expect(calls.withLock { $0 } == [0, 1, 7, 7])
        #expect(cache.count == 2)
        cache.clear()
        #expect(cache.count == 0)
        #expect(cache.name(0) == "root")
        #expect(calls.withLock { $0 } == [0, 1, 7, 7, 0])
    }

    @Test func theDaemonsNamesComeFromTheCacheAndClearCacheEmptiesIt() {
        Accounts.clearCache()
        #expect(Accounts.users.count == 0 && Accounts.groups.count == 0)
        #expect(Accounts.userName(0) == "root")
        #expect(Accounts.groupName(0) == "root")
        #expect(Accounts.users.count == 1 && Accounts.groups.count == 1)
        Accounts.clearCache()
        #expect(Accounts.users.count == 0 && Accounts.groups.count == 0)
    }
}
