import Foundation
import VolumeKitCore

@testable import RemoteVolume

/// A small honest snapserver (the JSON-RPC calls RemoteVolume uses, and notifications pushed to the other
/// control connections, as snapserver 0.26 does) over ``LinePeer``. One group "g1".
final class FakeSnapserver: @unchecked Sendable {
    struct State {
        var clients: [String: (percent: Int, muted: Bool)]
        var order: [String]
        var groupMuted = false
        /// Every Client.SetVolume received, in order.
        var setVolumeLog: [(id: String, percent: Int)] = []
        /// Every method called, in order.
        var methods: [String] = []
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
            guard let request = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = request["id"] as? Int, let method = request["method"] as? String
            else {
                connection.send(
                    json(["jsonrpc": "2.0", "id": NSNull(), "error": ["code": -32700, "message": "Parse error"]]))
                continue
            }
            let params = request["params"] as? [String: Any] ?? [:]
            let named = params["id"] as? String ?? ""
            let target = state.current.forgotten.contains(named) ? "" : named
            var result: Any?
            var notification: [String: Any]?
            var drop = false
            state.withLock { state in
                state.methods.append(method)
                switch method {
                case "Client.GetStatus":
                    if let volume = state.clients[target] { result = ["client": clientJSON(target, volume)] }
                case "Client.SetVolume":
                    guard state.clients[target] != nil, let volume = params["volume"] as? [String: Any],
                        let percent = volume["percent"] as? Int, let muted = volume["muted"] as? Bool
                    else { return }
                    state.clients[target] = (percent, muted)
                    state.setVolumeLog.append((target, percent))
                    drop = state.dropAfterSetVolume == state.setVolumeLog.count - 1
                    result = ["volume": ["percent": percent, "muted": muted]]
                    notification = [
                        "jsonrpc": "2.0", "method": "Client.OnVolumeChanged",
                        "params": ["id": target, "volume": ["percent": percent, "muted": muted]],
                    ]
                case "Server.GetStatus":
                    result = ["server": ["groups": [groupJSON(state)]]]
                case "Group.GetStatus":
                    if target == "g1" { result = ["group": groupJSON(state)] }
                case "Group.SetMute":
                    guard target == "g1", let mute = params["mute"] as? Bool else { return }
                    state.groupMuted = mute
                    result = ["mute": mute]
                    notification = ["jsonrpc": "2.0", "method": "Group.OnMute", "params": ["id": "g1", "mute": mute]]
                default:
                    break
                }
            }
            if drop { return }
            // The other connections hear of a change before this one gets its reply, so a test that waits
            // for the reply finds the notification already sent.
            if let notification {
                let others = state.withLock { $0.connections.filter { $0.key != key }.map(\.value) }
                for other in others { other.send(json(notification)) }
            }
            if let result {
                connection.send(json(["jsonrpc": "2.0", "id": id, "result": result]))
            } else {
                connection.send(
                    json([
                        "jsonrpc": "2.0", "id": id,
                        "error": ["code": -32603, "message": "Internal error", "data": "Client not found"],
                    ]))
            }
        }
    }
}
