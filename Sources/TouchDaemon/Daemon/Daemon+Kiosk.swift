import TouchCore
import TouchSystem
import TouchServer

/// Who is sent a system gesture (interface.md, "Kiosk session"): the clients its `to` names
/// (users, groups: names or ids, as clients.owners), by default the clients whose levels reach
/// the top of clients.owners' ranges — the kiosk — and every client where there is no policy.
/// Names come from NSS (Accounts: cached, forgotten at SIGHUP).
extension Daemon {
    func receivesSystemGesture(_ name: String, credentials: UnixSocket.Credentials?) -> Bool {
        guard let g = config.kiosk.gesture(named: name) else { return false }
        guard let to = g.to else {
            guard let policy = config.clients.owners else { return true }
            guard let cr = credentials else { return false }
            let entry = policy.entry(uid: cr.uid, userName: Accounts.userName(cr.uid), groups: Daemon.groups(cr))
            return entry != nil && config.clients.outputsActedOn(entry: entry, named: []) == nil
        }
        guard let cr = credentials else { return false }
        return OwnersPolicy(entries: [to]).entry(uid: cr.uid, userName: Accounts.userName(cr.uid), groups: Daemon.groups(cr)) != nil
    }

    /// The peer's groups (its primary first) with their names.
    static func groups(_ cr: UnixSocket.Credentials) -> [(gid: UInt32, name: String?)] {
        ([cr.gid] + cr.groups.filter { $0 != cr.gid }).map { ($0, Accounts.groupName($0)) }
    }

    /// Why a client may not claim the speaker role: `clients.speakers` is matched against its
    /// peer credentials as a `clients.owners` entry is (names from NSS, ids as strings).
    public func speakerRefusal(for client: ClientInfo) -> String? {
        guard let entry = config.clients.speakers else { return "the config's clients.speakers does not name this client: the config has no clients.speakers" }
        guard let cr = client.credentials else { return "the config's clients.speakers does not name this client: its credentials are unknown" }
        let user = Accounts.userName(cr.uid)
        if OwnersPolicy(entries: [entry]).entry(uid: cr.uid, userName: user, groups: Daemon.groups(cr)) != nil { return nil }
        return "the config's clients.speakers does not name user \(user ?? String(cr.uid)) (uid \(cr.uid)) or one of its groups (users \(entry.users), groups \(entry.groups))"
    }

    /// `{"systemGestures":true}`: the names of those this client is sent, in the config's order.
    func systemGestures(for client: ClientInfo) -> [String] {
        config.kiosk.systemGestures.map(\.name).filter { receivesSystemGesture($0, credentials: client.credentials) }
    }
}
