import Foundation
import VolumeKitCore

@testable import RemoteVolume

/// A small honest snapserver (the JSON-RPC calls RemoteVolume uses, and notifications pushed to the other
/// control connections, as snapserver 0.26 does) over ``LinePeer``. One group "g1". As snapserver, a
/// `Client.SetVolume` may carry the percent or the mute state alone (the other part is kept), and a batch
/// (a JSON array of requests) is answered with one array, its notifications sent to the others as one array.
final class FakeSnapserver: @unchecked Sendable {
    struct State {
        var clients: [String: (percent: Int, muted: Bool)]
        var order: [String]
        var groupMuted = false
        /// Every Client.SetVolume received, in order.
        var setVolumeLog: [(id: String, percent: Int)] = []
        /// Every method called, in order.
        var methods: [String] = []
        /// Every request line received (a batch is one line), in order.
        var lines: [String] = []
        var connections: [ObjectIdentifier: LinePeerConnection] = [:]
        /// When set: the SetVolume with this index (0-based, over the server's life) is applied, then the
        /// connection is dropped without a reply (a network cut mid-request).
        var dropAfterSetVolume: Int?
        /// Clients the server does not know for now (a restarted server before they reconnect).
        var forgotten: Set<String> = []
    }

    let state: Locked<State>
    private(set) var peer: LinePeer!

    init(clients: [(String, Int)]) throws {
        state = Locked(
            State(
                clients: Dictionary(uniqueKeysWithValues: clients.map { ($0.0, (percent: $0.1, muted: false)) }),
                order: clients.map(\.0)))
        let state = self.state
        peer = try LinePeer { connection in FakeSnapserver.serve(connection, state: state) }
    }

    var port: UInt16 { peer.port }

    func client(_ id: String) -> SnapcastClient {
        SnapcastClient(host: "127.0.0.1", port: port, clientID: id, requestTimeout: honestPeerTimeout)
    }

    func group() -> SnapcastGroup {
        SnapcastGroup(host: "127.0.0.1", port: port, groupID: "g1", requestTimeout: honestPeerTimeout)
    }

    func levels() -> [Int] {
        state.withLock { state in state.order.map { state.clients[$0]!.percent } }
    }

    private static func json(_ object: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            + "\n"
    }

    private static func clientJSON(_ id: String, _ volume: (percent: Int, muted: Bool)) -> [String: Any] {
        [
            "id": id, "connected": true,
            "config": ["name": "", "volume": ["percent": volume.percent, "muted": volume.muted]],
            "host": ["name": "room-\(id)"],
        ]
    }

    private static func groupJSON(_ state: State) -> [String: Any] {
        [
            "id": "g1", "name": "", "muted": state.groupMuted,
            "clients": state.order.map { clientJSON($0, state.clients[$0]!) },
        ]
    }

    private static func serve(_ connection: LinePeerConnection, state: Locked<State>) {
        let key = ObjectIdentifier(connection)
        state.withLock { $0.connections[key] = connection }
        defer { _ = state.withLock { $0.connections.removeValue(forKey: key) } }
        while !connection.isStopped, let line = connection.readLine(timeout: honestPeerTimeout * 3) {
            state.withLock { $0.lines.append(line) }
            let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            let requests = (parsed as? [[String: Any]]) ?? (parsed as? [String: Any]).map { [$0] } ?? []
            var answers: [[String: Any]] = []
            var notifications: [[String: Any]] = []
            for request in requests {
                guard let id = request["id"] as? Int, let method = request["method"] as? String else { continue }
                let (answer, notification) = handle(method, request["params"] as? [String: Any] ?? [:], state: state)
                answers.append(
                    answer.map { ["jsonrpc": "2.0", "id": id, "result": $0] }
                        ?? [
                            "jsonrpc": "2.0", "id": id,
                            "error": ["code": -32603, "message": "Internal error", "data": "Client not found"],
                        ])
                if let notification { notifications.append(notification) }
            }
            if requests.isEmpty {
                connection.send(
                    json(["jsonrpc": "2.0", "id": NSNull(), "error": ["code": -32700, "message": "Parse error"]]))
                continue
            }
            if state.withLock({ state in state.dropAfterSetVolume.map { $0 == state.setVolumeLog.count - 1 } ?? false })
                && requests.contains(where: { $0["method"] as? String == "Client.SetVolume" })
            {
                return
            }
            let batch = parsed is [Any]
            // The other connections hear of a change before this one gets its reply, so a test that waits
            // for the reply finds the notification already sent.
            if !notifications.isEmpty {
                let others = state.withLock { $0.connections.filter { $0.key != key }.map(\.value) }
                for other in others {
                    if batch { other.send(json(notifications)) } else { notifications.forEach { other.send(json($0)) } }
                }
            }
            if batch { connection.send(json(answers)) } else { answers.forEach { connection.send(json($0)) } }
        }
    }

    /// One request: its result (`nil`: not found) and the notification it causes.
    private static func handle(_ method: String, _ params: [String: Any], state: Locked<State>) -> (
        Any?, [String: Any]?
    ) {
        let named = params["id"] as? String ?? ""
        let target = state.current.forgotten.contains(named) ? "" : named
        return state.withLock { state -> (Any?, [String: Any]?) in
            state.methods.append(method)
            switch method {
            case "Client.GetStatus":
                return (state.clients[target].map { ["client": clientJSON(target, $0)] }, nil)
            case "Client.SetVolume":
                // As snapserver's Volume::fromJson: each part is optional, one left out is kept.
                guard let old = state.clients[target], let volume = params["volume"] as? [String: Any] else {
                    return (nil, nil)
                }
                let new = (
                    percent: volume["percent"] as? Int ?? old.percent, muted: volume["muted"] as? Bool ?? old.muted
                )
                state.clients[target] = new
                state.setVolumeLog.append((target, new.percent))
                let json: [String: Any] = ["percent": new.percent, "muted": new.muted]
                return (
                    ["volume": json],
                    ["jsonrpc": "2.0", "method": "Client.OnVolumeChanged", "params": ["id": target, "volume": json]]
                )
            case "Server.GetStatus":
                return (["server": ["groups": [groupJSON(state)]]], nil)
            case "Group.GetStatus":
                return (target == "g1" ? ["group": groupJSON(state)] : nil, nil)
            case "Group.SetMute":
                guard target == "g1", let mute = params["mute"] as? Bool else { return (nil, nil) }
                state.groupMuted = mute
                return (
                    ["mute": mute], ["jsonrpc": "2.0", "method": "Group.OnMute", "params": ["id": "g1", "mute": mute]]
                )
            default:
                return (nil, nil)
            }
        }
    }
}
