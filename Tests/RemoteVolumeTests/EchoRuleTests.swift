import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@testable import RemoteVolume

/// Issue 23: one rule for cleaning echoed text. A remote peer's text (RemoteVolume's names and error
/// details) and a trace's or a script's echoed words are cleaned by the same function, so the same input
/// reads the same on every surface.
@Suite("One echo rule")
struct EchoRuleTests {
    /// ESC [2J (clear the screen), an OSC title ending in BEL, a C1 CSI, a line separator, a bidi override,
    /// a tab and a newline, a BOM, between ordinary text.
    static let hostile = "ok\u{1B}[2J\u{1B}]0;owned\u{7}\u{9B}a\u{2028}b\u{202E}c\td\ne\u{FEFF}  Küche 🔊"

    @Test("peer text and a script's echo clean the same input identically")
    func sameCleaning() throws {
        let expected = #"ok\u{1B}[2J\u{1B}]0;owned\u{7}\u{9B}a\u{2028}b\u{202E}c\u{9}d\u{A}e\u{FEFF}  Küche 🔊"#
        #expect(EchoedText.clean(Self.hostile, limit: 200) == expected)
        #expect(PeerText.clean(Self.hostile, limit: 200) == expected)
        // Cut at the same place, with the same mark.
        let long = Self.hostile + String(repeating: "x", count: 500)
        #expect(PeerText.clean(long, limit: 40) == EchoedText.clean(long))
        #expect(PeerText.clean(long, limit: 40).hasSuffix("…"))
        // As the surfaces show it: a peer's reason in an error, and a script's unknown word.
        let peer = RemoteVolumeError.invalidReply(Self.hostile).description
        #expect(peer.contains(expected), "\(peer)")
        let word = String(Self.hostile.prefix { $0 != " " && $0 != "\t" && $0 != "\n" })
        do {
            _ = try Scenario(parsing: word)
            Issue.record("accepted \(word)")
        } catch let error as ScenarioError {
            #expect(error.message.contains(EchoedText.clean(word)), "\(error.message)")
            #expect(PeerText.clean(word, limit: 40) == EchoedText.clean(word))
        }
    }

    @Test("cleaning is idempotent: a text cleaned twice (a peer's reason inside an error) reads the same")
    func idempotent() {
        let once = PeerText.clean(Self.hostile)
        #expect(PeerText.clean(once) == once)
        #expect(!once.unicodeScalars.contains(where: EchoedText.isUnsafe))
    }
}
