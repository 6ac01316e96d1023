#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The built-in iOS system sounds as data: ID, file, category, folder and the iOS version each was first seen in.
///
/// **Undocumented.** Apple documents one of these IDs — `kSystemSoundID_Vibrate` (4095) — and no other; the rest
/// are private, and their files change between iOS releases (e.g. 1104 was `Tock.caf`, now `key_press_click.caf`)
/// (`shared/facts/system-sounds.md` §1). The table is a snapshot of what was found by analysing the system files
/// (p-x9/swift-system-sound, MIT); the iOS Simulator plays none of these sounds.
public enum SystemSoundCatalogue {
    /// The folder holding the system sound files.
    public static let soundsDirectory = "/System/Library/Audio/UISounds"

    /// Where the table comes from.
    public static let source = "p-x9/swift-system-sound SystemSoundTable.md @ cb4327b (MIT), iOS 16–18 era"

    /// The sub-folder of `soundsDirectory` a sound file lives in.
    public enum Folder: String, Sendable, Equatable, Hashable, CaseIterable {
        /// The folder itself.
        case base = "default"
        /// `Modern/`.
        case modern = "Modern"
        /// `New/` (the iOS 4.2+ alert tones).
        case new = "New"
        /// `nano/` (mostly Apple Watch-era and haptic sounds).
        case nano
    }

    /// One system sound ID.
    public struct Entry: Sendable, Equatable, Hashable, Identifiable {
        /// The `SystemSoundID`.
        public var id: SystemSoundID
        /// The sound file's name, or `nil` when the ID plays no file (haptic only, or a vibration).
        public var fileName: String?
        /// The system's category name for it, e.g. `SMSReceived_Alert`, when known.
        public var category: String?
        /// The folder its file lives in.
        public var folder: Folder?
        /// The iOS version it first appeared in, or `nil` when it predates iOS 16 (the table's baseline).
        public var firstSeenIn: OSVersion?
        /// Files the same ID played on earlier iOS versions (`shared/facts/system-sounds.md` §1 "Caveat").
        public var earlierFileNames: [String]

        /// Whether Apple documents this ID: only `kSystemSoundID_Vibrate` (4095) is.
        public var isDocumentedByApple: Bool { id == SystemSound.vibrate.rawValue }

        /// The full path of its file on a device, e.g. `/System/Library/Audio/UISounds/New/Fanfare.caf`.
        public var filePath: String? {
            guard let fileName else { return nil }
            let folderPart = folder.map { $0 == .base ? "" : $0.rawValue + "/" } ?? ""
            return "\(SystemSoundCatalogue.soundsDirectory)/\(folderPart)\(fileName)"
        }
    }

    /// Every catalogued ID, in ascending order.
    public static let entries: [Entry] = parse(table)

    /// The entry for `id`, if catalogued.
    public static func entry(for id: SystemSoundID) -> Entry? {
        index[id].map { entries[$0] }
    }

    private static let index: [SystemSoundID: Int] = Dictionary(
        entries.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })

    /// Files IDs played on earlier iOS versions (`shared/facts/system-sounds.md` §1).
    private static let earlier: [SystemSoundID: [String]] = [
        1002: ["Voicemail.caf"], 1104: ["Tock.caf"], 1106: ["beep-beep.caf"],
    ]

    static func parse(_ text: String) -> [Entry] {
        text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == 5, let id = SystemSoundID(cells[0]) else { return nil }
            return Entry(
                id: id, fileName: cells[1].isEmpty ? nil : cells[1], category: cells[2].isEmpty ? nil : cells[2],
                folder: Folder(rawValue: cells[3]), firstSeenIn: OSVersion(parsing: cells[4]),
                earlierFileNames: earlier[id] ?? []
            )
        }
    }
}

/// A system sound ID with a name: the common built-in sounds, and `vibrate`.
///
/// Only `vibrate` (4095, `kSystemSoundID_Vibrate`) is documented by Apple; every other ID is undocumented and
/// its sound may change between iOS versions (`shared/facts/system-sounds.md` §1). The user-facing names of
/// the 1007–1036 tones are those of iOS's tone picker.
public struct SystemSound: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `SystemSoundID`.
    public var rawValue: SystemSoundID

    /// Wraps an ID.
    public init(rawValue: SystemSoundID) { self.rawValue = rawValue }
    /// Wraps an ID.
    public init(_ id: SystemSoundID) { self.rawValue = id }

    /// Its catalogue entry, if any.
    public var catalogueEntry: SystemSoundCatalogue.Entry? { SystemSoundCatalogue.entry(for: rawValue) }
    /// Whether Apple documents this ID (only `vibrate`).
    public var isDocumentedByApple: Bool { self == .vibrate }
    /// The ID as a number.
    public var description: String { "\(rawValue)" }

    /// `kSystemSoundID_Vibrate` (0x0FFF): a brief vibration on iPhone; does nothing on devices that cannot vibrate.
    public static let vibrate = SystemSound(4095)

    /// 1000 `new-mail.caf`.
    public static let newMail = SystemSound(1000)
    /// 1001 `mail-sent.caf`.
    public static let mailSent = SystemSound(1001)
    /// 1002, voicemail received.
    public static let voicemail = SystemSound(1002)
    /// 1003 `ReceivedMessage.caf`.
    public static let receivedMessage = SystemSound(1003)
    /// 1004 `SentMessage.caf`.
    public static let sentMessage = SystemSound(1004)
    /// 1005 `alarm.caf` (calendar alert).
    public static let alarm = SystemSound(1005)
    /// 1006 `low_power.caf`.
    public static let lowPower = SystemSound(1006)
    /// 1007 "Tri-tone", the classic message tone (`sms-received1.caf`; seed 003).
    public static let triTone = SystemSound(1007)
    /// 1008 "Chime" (`sms-received2.caf`).
    public static let chime = SystemSound(1008)
    /// 1009 "Glass" (`sms-received3.caf`).
    public static let glass = SystemSound(1009)
    /// 1010 "Horn" (`sms-received4.caf`).
    public static let horn = SystemSound(1010)
    /// 1013 "Bell" (`sms-received5.caf`).
    public static let bell = SystemSound(1013)
    /// 1014 "Electronic" (`sms-received6.caf`).
    public static let electronic = SystemSound(1014)
    /// 1016 `tweet_sent.caf`.
    public static let tweetSent = SystemSound(1016)
    /// 1018 `Swish.caf`.
    public static let swish = SystemSound(1018)
    /// 1020 "Anticipate".
    public static let anticipate = SystemSound(1020)
    /// 1021 "Bloom".
    public static let bloom = SystemSound(1021)
    /// 1022 "Calypso".
    public static let calypso = SystemSound(1022)
    /// 1023 "Choo Choo".
    public static let chooChoo = SystemSound(1023)
    /// 1024 "Descent".
    public static let descent = SystemSound(1024)
    /// 1025 "Fanfare".
    public static let fanfare = SystemSound(1025)
    /// 1026 "Ladder".
    public static let ladder = SystemSound(1026)
    /// 1027 "Minuet".
    public static let minuet = SystemSound(1027)
    /// 1028 "News Flash".
    public static let newsFlash = SystemSound(1028)
    /// 1029 "Noir".
    public static let noir = SystemSound(1029)
    /// 1030 "Sherwood Forest".
    public static let sherwoodForest = SystemSound(1030)
    /// 1031 "Spell".
    public static let spell = SystemSound(1031)
    /// 1032 "Suspense".
    public static let suspense = SystemSound(1032)
    /// 1033 "Telegraph".
    public static let telegraph = SystemSound(1033)
    /// 1034 "Tiptoes".
    public static let tiptoes = SystemSound(1034)
    /// 1035 "Typewriters".
    public static let typewriters = SystemSound(1035)
    /// 1036 "Update".
    public static let update = SystemSound(1036)
    /// 1100 `lock.caf`, the screen-lock click.
    public static let lock = SystemSound(1100)
    /// 1103 `Tink.caf`.
    public static let tink = SystemSound(1103)
    /// 1104, the keyboard click (`key_press_click.caf`; `Tock.caf` on older iOS).
    public static let keyPressClick = SystemSound(1104)
    /// 1105 `Tock.caf`.
    public static let tock = SystemSound(1105)
    /// 1106, connected to power.
    public static let connectedToPower = SystemSound(1106)
    /// 1107 `RingerChanged.caf`.
    public static let ringerChanged = SystemSound(1107)
    /// 1108 `photoShutter.caf`, the camera shutter.
    public static let cameraShutter = SystemSound(1108)
    /// 1113 `begin_record.caf`.
    public static let beginRecording = SystemSound(1113)
    /// 1114 `end_record.caf`.
    public static let endRecording = SystemSound(1114)
    /// 1519 "Peek": a weak haptic boom, no sound (Taptic Engine iPhones).
    public static let peek = SystemSound(1519)
    /// 1520 "Pop": a strong haptic boom, no sound.
    public static let pop = SystemSound(1520)
    /// 1521 "Nope": three weak haptic booms, no sound.
    public static let nope = SystemSound(1521)

    /// Every named sound, for listings.
    public static let named: [(name: String, sound: SystemSound)] = [
        ("vibrate", .vibrate), ("newMail", .newMail), ("mailSent", .mailSent), ("voicemail", .voicemail),
        ("receivedMessage", .receivedMessage), ("sentMessage", .sentMessage), ("alarm", .alarm),
        ("lowPower", .lowPower),
        ("triTone", .triTone), ("chime", .chime), ("glass", .glass), ("horn", .horn), ("bell", .bell),
        ("electronic", .electronic), ("tweetSent", .tweetSent), ("swish", .swish), ("anticipate", .anticipate),
        ("bloom", .bloom), ("calypso", .calypso), ("chooChoo", .chooChoo), ("descent", .descent), ("fanfare", .fanfare),
        ("ladder", .ladder), ("minuet", .minuet), ("newsFlash", .newsFlash), ("noir", .noir),
        ("sherwoodForest", .sherwoodForest), ("spell", .spell), ("suspense", .suspense), ("telegraph", .telegraph),
        ("tiptoes", .tiptoes), ("typewriters", .typewriters), ("update", .update), ("lock", .lock), ("tink", .tink),
        ("keyPressClick", .keyPressClick), ("tock", .tock), ("connectedToPower", .connectedToPower),
        ("ringerChanged", .ringerChanged), ("cameraShutter", .cameraShutter), ("beginRecording", .beginRecording),
        ("endRecording", .endRecording), ("peek", .peek), ("pop", .pop), ("nope", .nope),
    ]
}
