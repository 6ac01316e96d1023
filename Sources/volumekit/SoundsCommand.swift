import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `volumekit sounds`: the system sound catalogue, and AudioServices' checks for custom sound files.
enum SoundsCommand: Subcommand {
    static let name = "sounds"
    static let summary = "List system sound IDs; check sound files against AudioServices' rules"
    static let help = """
        USAGE: volumekit sounds list [--json]
               volumekit sounds check FILE... [--json]

        list    Every catalogued system sound ID with its file, category, folder, first iOS version and
                VolumeKit name. Undocumented by Apple except 4095 (vibrate); IDs change between iOS versions.
        check   Reads each file's headers (never the whole file) and applies AudioServices' rules for custom
                system sounds: a CAF, AIFF or WAV file, linear PCM or IMA4, at most 30 seconds. Prints one
                line per file — container, encoding, sample rate, channels, bits, frames, duration — or exactly
                what is wrong and where. Use it as a build step: exit status 0 only when every file passes.
                The content decides: a WAV file named .m4a passes, with a warning to rename it, because
                AudioServices asks for a .caf, .aif or .wav file. Only regular files are read (a folder,
                FIFO or device is refused by its type).

        OPTIONS:
          --json   One JSON object per line (per catalogue entry, or per file).

        EXIT STATUS: 0 all files pass, 1 some file fails, 2 bad usage.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var reader = ArgumentReader(arguments)
        let json = reader.flag("--json")
        try reader.rejectUnknownOptions()
        var rest = reader.remaining
        if rest.first == "--" { rest.removeFirst() }
        guard let action = rest.first else { throw UsageError("needs 'list' or 'check FILE...'") }
        let operands = rest.dropFirst().filter { $0 != "--" }
        switch action {
        case "list":
            guard operands.isEmpty else { throw UsageError("'list' takes no operands") }
            list(json: json)
            return 0
        case "check":
            guard !operands.isEmpty else { throw UsageError("'check' needs at least one FILE") }
            return check(Array(operands), json: json)
        default:
            throw UsageError("unknown action '\(EchoedText.argument(action))' (use 'list' or 'check')")
        }
    }

    // MARK: list

    private struct ListRow: Encodable {
        var id: UInt32
        var name: String?
        var file: String?
        var path: String?
        var category: String?
        var folder: String?
        var firstSeenIn: String?
        var documentedByApple: Bool
    }

    private static func list(json: Bool) {
        let names = Dictionary(SystemSound.named.map { ($0.sound.rawValue, $0.name) }, uniquingKeysWith: { a, _ in a })
        if !json {
            print("# \(SystemSoundCatalogue.entries.count) system sound IDs from \(SystemSoundCatalogue.source).")
            print(
                "# Undocumented by Apple except 4095 (vibrate); the sound behind an ID can change between iOS versions."
            )
            print("# ID    file | category | folder | first iOS | name")
        }
        for entry in SystemSoundCatalogue.entries {
            let row = ListRow(
                id: entry.id, name: names[entry.id], file: entry.fileName, path: entry.filePath,
                category: entry.category,
                folder: entry.folder?.rawValue, firstSeenIn: entry.firstSeenIn?.description,
                documentedByApple: entry.isDocumentedByApple
            )
            if json {
                print(encode(row))
            } else {
                let id = "\(entry.id)".padded(toLength: 5)
                print(
                    "\(id) \(row.file ?? "-") | \(row.category ?? "-") | \(row.folder ?? "-") | \(row.firstSeenIn ?? "-") | \(row.name ?? "-")"
                )
            }
        }
    }

    // MARK: check

    private struct CheckRow: Encodable {
        struct Problem: Encodable {
            var kind: String
            var message: String
        }
        var file: String
        var ok: Bool
        var container: String?
        var encoding: String?
        var sampleRate: Double?
        var channels: Int?
        var bitsPerSample: Int?
        var frames: Int64?
        var durationSeconds: Double?
        var warning: String?
        var error: Problem?
    }

    private static func check(_ paths: [String], json: Bool) -> Int32 {
        var failures = 0
        // No URL a file: making one asked the system for the current folder and whether the path is a folder,
        // and reading its path and extension back cost more than the file's check.
        for path in paths {
            var row = CheckRow(file: path, ok: false)
            // The human lines name the file cut and cleaned (the JSON escapes it whole).
            let shown = EchoedText.path(path)
            do {
                let info = try SoundFileReader.read(atPath: path)
                row.container = info.container.rawValue
                row.encoding = info.encoding.identifier
                row.sampleRate = info.sampleRate
                row.channels = info.channels
                row.bitsPerSample = info.bitsPerSample
                row.frames = info.frameCount
                row.durationSeconds = info.duration.flatMap { $0.isFinite ? $0 : nil }
                row.warning = info.container.extensionWarning(forExtension: SoundContainer.pathExtension(of: path))
                try SystemSoundValidator.validate(info)
                row.ok = true
                if !json {
                    print(
                        "\(shown): ok \(info.container), \(info.encoding), \(formatRate(info.sampleRate)) Hz, \(info.channels) ch, "
                            + "\(info.bitsPerSample.map { "\($0) bit" } ?? "? bit"), \(info.frameCount ?? 0) frames, "
                            + "\(SoundFileInfo.seconds(info.duration ?? 0)) s")
                    if let warning = row.warning { print("\(shown): warning: \(warning)") }
                }
            } catch {
                let error = error as? SoundFileError ?? .unreadable(reason: String(describing: error))
                failures += 1
                row.error = .init(kind: error.kind, message: error.description)
                if !json { print("\(shown): error: \(error)") }
            }
            if json { print(encode(row, fallbackFile: path)) }
        }
        return failures == 0 ? 0 : 1
    }

    private static func formatRate(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }

    /// One JSON line. It never comes out as `{}`: non-finite numbers are written as strings, and should
    /// encoding still fail the row names its file and says so.
    private static func encode(_ value: some Encodable, fallbackFile: String? = nil) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        if let data = try? encoder.encode(value) { return String(decoding: data, as: UTF8.self) }
        let fallback = CheckRow(
            file: fallbackFile ?? "", ok: false,
            error: .init(kind: "internal", message: "this row could not be written as JSON"))
        guard let data = try? encoder.encode(fallback) else { return #"{"ok":false}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
