import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

/// Snapcast's requests are written by hand and its usual reply is recognised without parsing (issue 23
/// item 4: a JSONEncoder and a JSONDecoder pass were most of a request's cost beyond the raw JSON-RPC
/// floor). These tests hold the hand-written text to what a JSON parser reads, and any other reply to the
/// full decoding path.
@Suite("Snapcast on the wire")
struct SnapcastWireTests {
    static let awkwardIDs = [
        "kitchen", "b8:27:eb:12:34:56", "hall#2", #"quote"inside"#, #"back\slash"#, "line\nbreak\ttab\r",
        "nul\u{0}esc\u{1B}bel\u{7}del\u{7F}", "ünï€😀", "</script>", "",
    ]

    @Test("a request is JSON a parser reads back exactly, whatever the id holds", arguments: awkwardIDs)
    func requestRoundTrips(_ id: String) throws {
        let line = Snapcast.request(
            id: 7, method: "Client.SetVolume",
            params: Snapcast.SetVolumeParams(id: id, volume: .init(percent: 40, muted: true)))
        #expect(!line.contains("\n"), "one line")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        #expect(object["id"] as? Int == 7)
        #expect(object["jsonrpc"] as? String == "2.0")
        #expect(object["method"] as? String == "Client.SetVolume")
        let params = try #require(object["params"] as? [String: Any])
        #expect(params["id"] as? String == id)
        let volume = try #require(params["volume"] as? [String: Any])
        #expect(volume["percent"] as? Int == 40)
        #expect(volume["muted"] as? Bool == true && line.hasSuffix(#""volume":{"muted":true,"percent":40}}}"#))
        // The other hand-written parameters, the same way.
        for params in [
            Snapcast.request(id: 1, method: "Client.GetStatus", params: Snapcast.IDParams(id: id)),
            Snapcast.request(id: 1, method: "Group.SetMute", params: Snapcast.SetMuteParams(id: id, mute: false)),
        ] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(params.utf8)) as? [String: Any])
            #expect((object["params"] as? [String: Any])?["id"] as? String == id, "\(params)")
        }
    }

    @Test("a Client.SetVolume carries only what it changes, and a reply in another form is decoded in full")
    func otherReplyDecoded() async throws {
        let sent = Locked([String]())
        let peer = try LinePeer { connection in
            // One connection throughout: a stalled machine must not make the peer hang up between the calls.
            while let line = connection.readLine(timeout: 60) {
                sent.withLock { $0.append(line) }
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let id = object["id"] as? Int
                else { return }
                // Keys in another order and another level than asked: not the canonical reply.
                connection.send(
                    #"{"result":{"volume":{"percent":41,"muted":true}},"id":\#(id),"jsonrpc":"2.0"}"# + "\n")
            }
        }
        defer { peer.stop() }
        let client = SnapcastClient(host: "127.0.0.1", port: peer.port, clientID: "k", requestTimeout: 30)
        try await client.setVolume(40)
        try await client.setMuted(false)
        // No Client.GetStatus first, even on a fresh connection: snapserver keeps the part left out.
        let lines = sent.current
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasSuffix(#""volume":{"percent":40}}}"#) == true, "\(lines)")
        #expect(lines.last?.hasSuffix(#""volume":{"muted":false}}}"#) == true, "\(lines)")
    }

    @Test("a batch of notifications on the command connection is read, not refused as garbage")
    func notificationBatch() async throws {
        let peer = try LinePeer { connection in
            while let line = connection.readLine(timeout: 60) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let id = object["id"] as? Int
                else { return }
                // What snapserver sends the other controllers when one sent a batch: one array of notifications.
                connection.send(
                    #"[{"jsonrpc":"2.0","method":"Client.OnVolumeChanged","params":{"id":"k","volume":{"muted":true,"percent":12}}},{"jsonrpc":"2.0","method":"Client.OnVolumeChanged","params":{"id":"x, [y]","volume":{"muted":false,"percent":13}}}]"#
                        + "\n")
                connection.send(
                    #"{"id":\#(id),"jsonrpc":"2.0","result":{"volume":{"muted":true,"percent":40}}}"# + "\n")
            }
        }
        defer { peer.stop() }
        let client = SnapcastClient(host: "127.0.0.1", port: peer.port, clientID: "k", requestTimeout: 30)
        try await client.setVolume(40)
        try await client.setVolume(41)
    }

    @Test("a JSON-RPC batch is split at its top-level commas only, and hostile batches are refused")
    func batchElements() throws {
        #expect(
            try JSONLine.elements(ofArray: #" [ {"a":"x,]"} , {"b":[1,2,{"c":"\"]"}]} ] "#, limit: 8)
                == [#" {"a":"x,]"} "#, #" {"b":[1,2,{"c":"\"]"}]} "#])
        #expect(try JSONLine.elements(ofArray: "[]", limit: 8).isEmpty)
        for hostile in ["[{}", "[{}]]", "{}", "[{}] [{}]", "[" + String(repeating: "[", count: 40) + "]"] {
            #expect(throws: RemoteVolumeError.self, "\(hostile)") { try JSONLine.elements(ofArray: hostile, limit: 8) }
        }
        let flood = "[" + Array(repeating: "{}", count: 513).joined(separator: ",") + "]"
        #expect(throws: RemoteVolumeError.self) { try JSONLine.elements(ofArray: flood, limit: 512) }
    }
}
