import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The level `volumekit remote mute mpd://… on` muted from, kept for a later `mute off` in another process.
///
/// MPD has no mute: muting sets the volume to 0, so unmuting needs the level from before, which a new
/// process would not know (`set 40`, `mute on`, `mute off` would print 20). `mute on` writes the
/// level to a small file in the user's cache folder — `$XDG_CACHE_HOME/volumekit/mpd-mute-levels`, else the
/// system's cache folder (`~/.cache` on Linux, `~/Library/Caches` on macOS) — one `HOST:PORT<tab>LEVEL`
/// line per server; `mute off` restores it and removes the line.
///
/// Bounds: the file is read only up to 16 KiB and keeps at most 32 servers (the oldest go first); a line
/// that is not `HOST:PORT<tab>1…100` is ignored, so a damaged file costs the remembered level, nothing more.
/// Failing to write it is not an error: `mute off` then says that it set MPDDevice's unmute level instead.
enum MPDMuteMemory {
    /// The most bytes read from the file.
    static let maxFileBytes = 16 * 1024
    /// The most servers remembered.
    static let maxEntries = 32

    /// The file, or `nil` when no cache folder can be named.
    static var file: URL? {
        let environment = ProcessInfo.processInfo.environment
        let folder: URL
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            folder = URL(fileURLWithPath: cache)
        } else if let cache = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first {
            folder = cache
        } else {
            return nil
        }
        return folder.appendingPathComponent("volumekit").appendingPathComponent("mpd-mute-levels")
    }

    /// The level remembered for `server` ("HOST:PORT").
    static func level(for server: String) -> Int? {
        entries().last { $0.server == server }?.level
    }

    /// Remembers `level` (1…100) for `server`; `false` when the file could not be written.
    @discardableResult
    static func remember(_ level: Int, for server: String) -> Bool {
        guard (1...100).contains(level) else { return false }
        var kept = entries().filter { $0.server != server }
        kept.append((server, level))
        return write(Array(kept.suffix(maxEntries)))
    }

    /// Forgets `server`'s level.
    static func forget(_ server: String) {
        let kept = entries()
        guard kept.contains(where: { $0.server == server }) else { return }
        write(kept.filter { $0.server != server })
    }

    private static func entries() -> [(server: String, level: Int)] {
        // A regular file only: a FIFO in its place must not block the command.
        guard let file, let opened = try? RegularFile.open(file.path, kind: "state", pipes: false) else { return [] }
        defer { RegularFile.closeDescriptor(opened.descriptor) }
        let data = (try? RegularFile.read(opened.descriptor, atMost: maxFileBytes)) ?? Data()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t")
            guard parts.count == 2, parts[0].count <= 300, let level = Int(parts[1]), (1...100).contains(level)
            else { return nil }
            return (String(parts[0]), level)
        }
    }

    @discardableResult
    private static func write(_ entries: [(server: String, level: Int)]) -> Bool {
        guard let file else { return false }
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let text = entries.map { "\($0.server)\t\($0.level)\n" }.joined()
            try Data(text.utf8).write(to: file, options: .atomic)
            return true
        } catch {
            return false
        }
    }
}
