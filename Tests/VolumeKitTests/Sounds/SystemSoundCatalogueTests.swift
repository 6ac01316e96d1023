import Foundation
import Testing

@testable import VolumeKitCore

@Suite("The system sound catalogue")
struct SystemSoundCatalogueTests {
    @Test("holds every row of the table, in ascending unique IDs")
    func completeness() {
        let ids = SystemSoundCatalogue.entries.map(\.id)
        #expect(ids.count == 414)
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }

    @Test("the tri-tone is 1007, sms-received1.caf, an SMS alert (seed 003)")
    func triTone() throws {
        let entry = try #require(SystemSound.triTone.catalogueEntry)
        #expect(entry.id == 1007)
        #expect(entry.fileName == "sms-received1.caf")
        #expect(entry.category == "SMSReceived_Alert")
        #expect(entry.isDocumentedByApple == false)
    }

    @Test("folders give the device path; New/ holds the 4.2 tones")
    func paths() throws {
        #expect(SystemSound.fanfare.catalogueEntry?.filePath == "/System/Library/Audio/UISounds/New/Fanfare.caf")
        #expect(SystemSound.lock.catalogueEntry?.filePath == "/System/Library/Audio/UISounds/lock.caf")
        #expect(SystemSound.peek.catalogueEntry?.fileName == nil)
        #expect(SystemSound.peek.catalogueEntry?.filePath == nil)
    }

    @Test("first-seen versions and earlier file names are kept")
    func versions() {
        #expect(SystemSoundCatalogue.entry(for: 1060)?.firstSeenIn == OSVersion(16))
        #expect(SystemSoundCatalogue.entry(for: 1270)?.firstSeenIn == OSVersion(16, 2))
        #expect(SystemSoundCatalogue.entry(for: 1000)?.firstSeenIn == nil)
        #expect(SystemSound.keyPressClick.catalogueEntry?.fileName == "key_press_click.caf")
        #expect(SystemSound.keyPressClick.catalogueEntry?.earlierFileNames == ["Tock.caf"])
    }

    @Test("only vibrate (4095) is documented by Apple")
    func documented() {
        #expect(SystemSound.vibrate.rawValue == 4095)
        #expect(SystemSound.vibrate.isDocumentedByApple)
        #expect(SystemSoundCatalogue.entries.filter(\.isDocumentedByApple).map(\.id) == [4095])
        #expect(SystemSound.named.filter { $0.sound.isDocumentedByApple }.map(\.name) == ["vibrate"])
    }

    @Test("every named sound is catalogued")
    func namedAreCatalogued() {
        for (name, sound) in SystemSound.named {
            #expect(sound.catalogueEntry != nil, "\(name) = \(sound)")
        }
    }

    @Test("malformed table rows are skipped, not trusted")
    func parser() {
        let entries = SystemSoundCatalogue.parse("1|a.caf|C|New|17\nbad\n2||||\nx|y|z|w|v\n3|b.caf|D|Weird|iOS")
        #expect(entries.map(\.id) == [1, 2, 3])
        #expect(entries[0].folder == .new && entries[0].firstSeenIn == OSVersion(17))
        #expect(entries[1].fileName == nil && entries[1].category == nil)
        #expect(entries[2].folder == nil && entries[2].firstSeenIn == nil)
    }
}
