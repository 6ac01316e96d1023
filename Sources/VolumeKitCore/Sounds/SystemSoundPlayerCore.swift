#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a sound is played (the three ways of seed 003, plus the system's own alert).
public enum SystemSoundPlaybackMode: String, Sendable, Equatable, Hashable, CaseIterable {
    /// The sound only (`AudioServicesPlaySystemSoundWithCompletion`). Silent when the Ring/Silent switch is on silent.
    case soundOnly
    /// A vibration only: plays `SystemSound.vibrate` (4095) with `PlaySystemSound`, not `PlayAlertSound`, which
    /// would beep on devices that cannot vibrate (`shared/facts/system-sounds.md` §3).
    case vibrateOnly
    /// The sound and a vibration, both started at once; done when both are.
    case soundAndVibrate
    /// `AudioServicesPlayAlertSoundWithCompletion`: the sound, and a vibration only when the user's settings say so
    /// (none in record / play-and-record sessions) — the system decides (`shared/facts/system-sounds.md` §3).
    case alert
}

/// What to play: a built-in system sound, or a custom sound file.
public enum SystemSoundSource: Sendable, Equatable, Hashable {
    /// A built-in sound by ID (undocumented except `.vibrate`).
    case system(SystemSound)
    /// A custom sound file: CAF, AIFF or WAV, linear PCM or IMA4, at most 30 seconds. Checked before use.
    case file(URL)
}

/// Why a sound could not be played.
public enum SystemSoundPlayerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file breaks AudioServices' rules or is malformed; says what is wrong.
    case invalidFile(path: String, SoundFileError)
    /// `AudioServicesCreateSystemSoundID` refused the file.
    case createFailed(path: String, SystemSoundError)

    /// One line naming the file and the problem.
    public var description: String {
        switch self {
        case let .invalidFile(path, error): "\(path): \(error)"
        case let .createFailed(path, error): "\(path): AudioServices could not create a sound: \(error)"
        }
    }
}

/// The platform-free logic of `SystemSoundPlayer`: checks files before AudioServices sees them, creates one
/// `SystemSoundID` per file and caches it, plays in the chosen mode, and disposes of what it created.
///
/// All system access goes through a `SystemSoundClient`, so the logic runs on Linux with a fake client.
/// Thread-safe. Disposes of every sound it created when deallocated.
public final class SystemSoundPlayerCore: Sendable {
    private let client: SystemSoundClient
    private let isUISound: Bool
    private let validate: @Sendable (URL) throws -> SoundFileInfo
    private let created = Locked<[URL: SystemSoundID]>([:])

    /// Creates a player core.
    /// - Parameters:
    ///   - client: The AudioServices operations.
    ///   - isUISound: `true` (the system default) makes created sounds follow the user's "Sound Effects" setting;
    ///     `false` sets `kAudioServicesPropertyIsUISound` to 0 so they always play (`shared/facts/system-sounds.md` §3).
    ///   - validate: Reads and checks a file; `SystemSoundValidator.check(contentsOf:)` unless a test says otherwise.
    public init(
        client: SystemSoundClient, isUISound: Bool = true,
        validate: @escaping @Sendable (URL) throws -> SoundFileInfo = { url throws in
            try SystemSoundValidator.check(contentsOf: url)
        }
    ) {
        self.client = client
        self.isUISound = isUISound
        self.validate = validate
    }

    deinit {
        for id in created.current.values { client.dispose(id) }
    }

    /// Checks the file and creates its sound now, so that the first play starts without delay. Returns the
    /// cached ID when the file was prepared before.
    /// - Throws: `SystemSoundPlayerError`.
    @discardableResult
    public func prepare(_ url: URL) throws -> SystemSoundID {
        let key = url.standardizedFileURL
        if let id = created.withLock({ $0[key] }) { return id }
        do {
            _ = try validate(key)
        } catch {
            throw SystemSoundPlayerError.invalidFile(
                path: key.path, error as? SoundFileError ?? .unreadable(reason: String(describing: error)))
        }
        let result: Result<SystemSoundID, SystemSoundPlayerError> = created.withLock { cache in
            if let id = cache[key] { return .success(id) }  // another thread got there first
            do {
                let id = try client.create(key)
                if !isUISound { client.setIsUISound(id, false) }
                cache[key] = id
                return .success(id)
            } catch let error as SystemSoundError {
                return .failure(.createFailed(path: key.path, error))
            } catch {
                return .failure(.createFailed(path: key.path, SystemSoundError(status: SystemSoundError.unspecified)))
            }
        }
        switch result {  // not `get()`: the iOS 15–17 SDKs' `Result.get()` has untyped throws
        case let .success(id): return id
        case let .failure(error): throw error
        }
    }

    /// Plays a sound; `completion` runs once everything started has finished (or at once when iOS plays nothing).
    /// Throws before playing anything when a file is invalid or cannot be created.
    public func play(
        _ source: SystemSoundSource, mode: SystemSoundPlaybackMode = .soundOnly,
        completion: @escaping @Sendable () -> Void = {}
    ) throws {
        if mode == .vibrateOnly {  // no need to touch the file at all
            client.play(SystemSound.vibrate.rawValue, false, completion)
            return
        }
        let id: SystemSoundID
        switch source {
        case let .system(sound): id = sound.rawValue
        case let .file(url): id = try prepare(url)
        }
        switch mode {
        case .soundOnly:
            client.play(id, false, completion)
        case .alert:
            client.play(id, true, completion)
        case .soundAndVibrate:
            let remaining = Locked(2)
            let finishOne: @Sendable () -> Void = {
                if remaining.withLock({ count -> Bool in
                    count -= 1; return count == 0
                }) {
                    completion()
                }
            }
            client.play(id, false, finishOne)
            client.play(SystemSound.vibrate.rawValue, false, finishOne)
        case .vibrateOnly:
            break
        }
    }

    /// Plays a sound and returns when it has finished.
    /// - Throws: `SystemSoundPlayerError`.
    public func play(_ source: SystemSoundSource, mode: SystemSoundPlaybackMode = .soundOnly) async throws {
        let started: Result<Void, any Error> = await withCheckedContinuation { continuation in
            let once = Locked(Optional(continuation))
            let resume: @Sendable (Result<Void, any Error>) -> Void = { result in
                once.withLock { value -> CheckedContinuation<Result<Void, any Error>, Never>? in
                    defer { value = nil }
                    return value
                }?.resume(returning: result)
            }
            do {
                try play(source, mode: mode) { resume(.success(())) }
            } catch {
                resume(.failure(error))
            }
        }
        if case let .failure(error) = started { throw error }
    }

    /// The files whose sounds are currently created.
    public var preparedFiles: [URL] { created.current.keys.sorted { $0.path < $1.path } }

    /// Disposes of the sound created for `url`, if any.
    public func dispose(_ url: URL) {
        if let id = created.withLock({ $0.removeValue(forKey: url.standardizedFileURL) }) { client.dispose(id) }
    }

    /// Disposes of every sound this player created.
    public func disposeAll() {
        let ids = created.withLock { cache -> [SystemSoundID] in
            defer { cache.removeAll() }
            return Array(cache.values)
        }
        for id in ids { client.dispose(id) }
    }
}
