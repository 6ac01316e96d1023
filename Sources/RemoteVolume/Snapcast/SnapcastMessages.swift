#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parts of Snapcast's JSON-RPC 2.0 control API (snapserver's `doc/json_rpc_api`, checked against
/// snapserver 0.26) that volume control needs. Unknown fields are ignored.
enum Snapcast {
    /// A client's volume: `{"percent": 0…100, "muted": Bool}`.
    ///
    /// snapserver 0.26 stores any percent it is sent (140, or −5 as 65531), so a percent read back may lie
    /// outside the 0…100 Snapcast declares: a reply carrying one is refused (``checkedPercent(of:)``), an
    /// event carrying one is not believed (its mute state still is), as for UPnP (docs/security.md).
    struct Volume: Codable, Equatable {
        var percent: Int
        var muted: Bool

        /// Whether `percent` lies within 0…100.
        var isInRange: Bool { (0...100).contains(percent) }

        /// As JSON, keys sorted as snapserver writes them: `{"muted":false,"percent":40}`.
        var json: String { #"{"muted":\#(muted),"percent":\#(percent)}"# }

        /// `percent`, or ``RemoteVolumeError/invalidReply(_:)`` naming `whose` ("client \"k\"") when it is
        /// outside 0…100.
        func checkedPercent(of whose: String) throws -> Int {
            guard isInRange else {
                throw RemoteVolumeError.invalidReply("Snapcast answered percent \(percent) for \(whose), outside 0…100")
            }
            return percent
        }
    }

    /// A client as `Server.GetStatus` / `Client.GetStatus` / `Group.GetStatus` describe it.
    struct Client: Decodable {
        struct Config: Decodable {
            var volume: Volume
            var name: String?
        }
        struct Host: Decodable {
            var name: String?
        }
        var id: String
        var connected: Bool?
        var config: Config
        var host: Host?

        /// "client \"ID\"", cleaned, for messages.
        var named: String { "client \"\(PeerText.clean(id, limit: 60))\"" }
    }

    /// A group and its clients.
    struct Group: Decodable {
        var id: String
        var muted: Bool
        var name: String?
        var clients: [Client]
    }

    /// `Server.GetStatus`'s `server`.
    struct Server: Decodable {
        var groups: [Group]
    }

    struct ServerStatus: Decodable { var server: Server }
    struct ClientStatus: Decodable { var client: Client }
    struct GroupStatus: Decodable { var group: Group }
    struct VolumeResult: Decodable { var volume: Volume }
    struct MuteResult: Decodable { var mute: Bool }

    /// A request's `params`, written as JSON by hand for the methods VolumeKit calls (a JSONEncoder took
    /// ≈ 12 µs a request); any other `Encodable` is encoded by one.
    protocol Params: Encodable {
        /// The parameters as one line of JSON.
        var json: String { get }
    }

    struct IDParams: Params {
        var id: String
        var json: String { #"{"id":\#(JSONLine.quoted(id))}"# }
    }
    /// `{}`, for a method without parameters (`Server.GetStatus`).
    struct NoParams: Params {
        var json: String { "{}" }
    }
    /// What a `Client.SetVolume` changes: the percent, the mute state, or both. A part left out is kept by
    /// the server as it is (snapserver's `Volume::fromJson` reads each with the current value as its default,
    /// in every version from 0.17 to 0.34; checked against the real 0.26 server), so a set needs no read of the
    /// other part first and cannot overwrite a mute made elsewhere a moment before: one request.
    struct VolumeChange: Encodable, Equatable {
        var percent: Int?
        var muted: Bool?

        /// As JSON, keys sorted: `{"percent":40}`, `{"muted":true}` or `{"muted":true,"percent":40}`.
        var json: String {
            var parts: [String] = []
            if let muted { parts.append(#""muted":\#(muted)"#) }
            if let percent { parts.append(#""percent":\#(percent)"#) }
            return "{" + parts.joined(separator: ",") + "}"
        }

        /// `known` with this change applied (`nil` when a part is neither changed nor known).
        func applied(to known: Volume?) -> Volume? {
            guard let percent = percent ?? known?.percent, let muted = muted ?? known?.muted else { return nil }
            return Volume(percent: percent, muted: muted)
        }
    }

    struct SetVolumeParams: Params {
        var id: String
        var volume: VolumeChange
        var json: String { #"{"id":\#(JSONLine.quoted(id)),"volume":\#(volume.json)}"# }
    }
    struct SetMuteParams: Params {
        var id: String
        var mute: Bool
        var json: String { #"{"id":\#(JSONLine.quoted(id)),"mute":\#(mute)}"# }
    }

    /// The reply a call expects word for word, and what it means: a reply that is exactly this text needs no
    /// parsing (snapserver writes its replies with sorted keys, so its answer to a `Client.SetVolume` is
    /// known in advance); any other reply is decoded in full.
    struct CanonicalReply<Result> {
        /// The reply's text for the request id given.
        var text: (Int) -> String
        var result: Result
    }

    /// One request line (without the newline): `{"id":N,"jsonrpc":"2.0","method":"…","params":{…}}`.
    static func request(id: Int, method: String, params: some Params) -> String {
        #"{"id":\#(id),"jsonrpc":"2.0","method":\#(JSONLine.quoted(method)),"params":\#(params.json)}"#
    }

    /// A JSON-RPC error object.
    struct RPCError: Decodable {
        var code: Int
        var message: String
        var data: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            code = try container.decode(Int.self, forKey: .code)
            message = try container.decode(String.self, forKey: .message)
            data = try? container.decode(String.self, forKey: .data)
        }

        private enum CodingKeys: String, CodingKey { case code, message, data }
    }

    /// Any line from the server: a reply (has `id`) or a notification (has `method`, no `id`), its `result`
    /// left unread.
    typealias Envelope = Answer<Unread>

    /// A `result` that is not read.
    struct Unread: Decodable {
        init(from decoder: any Decoder) {}
    }

    /// Any line, with the `result` decoded as `Result` when it is one (`nil` when absent or another shape):
    /// ``Envelope`` and ``Reply`` in one parse.
    struct Answer<Result: Decodable>: Decodable {
        var id: Int?
        var method: String?
        var error: RPCError?
        var result: Result?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try? container.decode(Int.self, forKey: .id)
            method = try? container.decode(String.self, forKey: .method)
            error = try container.decodeIfPresent(RPCError.self, forKey: .error)
            result = container.contains(.result) ? (try? container.decode(Result.self, forKey: .result)) : nil
        }

        private enum CodingKeys: String, CodingKey { case id, method, error, result }
    }

    struct Reply<Result: Decodable>: Decodable { var result: Result }
    struct Notification<Params: Decodable>: Decodable { var params: Params }

    /// `Client.OnVolumeChanged`'s params.
    struct VolumeChanged: Decodable { var id: String; var volume: Volume }
    /// `Group.OnMute`'s params.
    struct GroupMuted: Decodable { var id: String; var mute: Bool }
    /// `Client.OnConnect`'s params.
    struct ClientConnected: Decodable { var id: String; var client: Client }
}

/// A JSON-RPC error reply from snapserver; the connection stays usable after one.
struct SnapcastRefusal: Error {
    var method: String
    var code: Int
    var message: String

    /// Whether the server does not know the client or group ("Client not found" / "Group not found").
    ///
    /// A restarted snapserver that was killed before it saved its state forgets its clients until each
    /// snapclient reconnects (≈ 0.5 s here; seen against the real 0.26 server), so this is transient.
    var isNotFound: Bool { message.lowercased().contains("not found") }

    /// What it means for the user: "not found" is ``RemoteVolumeError/unreachable(_:)`` (transient, so
    /// ``RemoteVolumeController`` retries through a server restart; a wrong id still fails after the
    /// configured attempts), anything else ``RemoteVolumeError/unsupported(_:)``. `address` is the server's
    /// "HOST:PORT", for the command that lists what it knows.
    func remoteVolumeError(at address: String) -> RemoteVolumeError {
        if isNotFound {
            return .unreachable(
                "the Snapcast server answered but does not know the client or group now (restarting, or a wrong id: 'volumekit remote list snapcast://\(address)' lists them): \(message)"
            )
        }
        return .unsupported("Snapcast refused \(method): \(message) (JSON-RPC error \(code))")
    }
}

extension Snapcast.Params {
    /// Encoded by a `JSONEncoder`, keys sorted.
    var json: String { JSONLine.encode(self) }
}
