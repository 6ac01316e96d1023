import Dispatch
import Foundation
import RemoteVolume
import VolumeKitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `volumekit remote …`: find UPnP renderers and drive their volume (issue 8).
enum RemoteCommand: Subcommand {
    static let name = "remote"
    static let summary = "Find UPnP renderers; get/set/drive the volume of UPnP, MPD and Snapcast devices"
    static let help = """
        USAGE: volumekit remote discover [--timeout S] [--interface IPV4] [--first]
               volumekit remote get URL
               volumekit remote set URL LEVEL
               volumekit remote mute URL on|off
               volumekit remote control URL [--step N]

        A device is named by a URL: a UPnP renderer by its description URL (http://…), as 'discover' prints
        it (UPnP devices speak plain http, so https URLs are refused); a Music Player Daemon by
        mpd://[PASSWORD@]HOST[:PORT] (port 6600); a Snapcast client by snapcast://HOST[:PORT]/CLIENT_ID and a
        whole Snapcast group by snapcast://HOST[:PORT]/group/GROUP_ID (port 1705). 'discover' finds UPnP
        renderers only.

        discover   Multicasts an SSDP search and prints one line per renderer as it answers: URL, a tab,
                   its name. The whole command ends within --timeout seconds (plus under a second).
        get        Prints the volume (checked against the device's own range) and mute state.
        set        Sets the volume to LEVEL, which must lie within the device's range.
        mute       Mutes (on) or unmutes (off).
        control    Arrow keys or +/- move the volume, m toggles mute, q quits (the last level asked for is
                   sent before it exits). Piped input is read as lines: up, down, mute, quit, or keys
                   such as +++; when stdout is not a terminal one plain line is printed per change.

        OPTIONS:
          --timeout S       discover: seconds for the whole search, answers and descriptions (default 3,
                            at most 60).
          --first           discover: print the first renderer whose description was read, and exit.
          --interface IPV4  discover: search on the interface with this IPv4 address of this machine
                            (e.g. 192.168.1.20); default: the system's choice of interface.
          --step N          control: device units one key press moves (1…50, default 2).

        Names and errors that come from a device are printed with control characters removed.
        EXIT STATUS: 0 success, 1 the device failed or none answered, 2 bad usage.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else {
            throw UsageError("needs an action: discover, get, set, mute or control")
        }
        var reader = ArgumentReader(Array(arguments.dropFirst()))
        switch action {
        case "discover":
            let timeoutText = try reader.option("--timeout") ?? "3"
            guard let timeout = Double(timeoutText), timeout > 0, timeout <= 60 else {
                throw UsageError("--timeout must be more than 0 and at most 60 seconds")
            }
            let interface = try reader.option("--interface")
            if let interface { try checkInterface(interface) }
            let firstOnly = reader.flag("--first")
            try reader.rejectUnknownOptions()
            guard reader.remaining.isEmpty else { throw UsageError("discover takes no arguments") }
            return try blocking { try await discover(timeout: timeout, interface: interface, firstOnly: firstOnly) }
        case "get":
            let url = try readURL(&reader, extra: 0)
            return try blocking {
                let renderer = try await url.connect()
                let level = try await renderer.volume()
                let muted = try await renderer.isMuted()
                print(
                    "\(renderer.displayName): volume \(level) of \(renderer.volumeRange.lowerBound)…\(renderer.volumeRange.upperBound)\(muted ? ", muted" : "")"
                )
                return 0
            }
        case "set":
            let url = try readURL(&reader, extra: 1)
            guard let level = Int(reader.remaining[1]) else {
                throw UsageError(
                    "LEVEL must be a whole number within the device's range, such as 30 ('\(clean(reader.remaining[1]))' is not)"
                )
            }
            return try blocking {
                let renderer = try await url.connect()
                guard renderer.volumeRange.contains(level) else {
                    throw UsageError(
                        "LEVEL must lie within this device's range \(renderer.volumeRange.lowerBound)…\(renderer.volumeRange.upperBound); \(level) does not"
                    )
                }
                try await renderer.setVolume(level)
                print("\(renderer.displayName): volume \(try await renderer.volume())")
                return 0
            }
        case "mute":
            let url = try readURL(&reader, extra: 1)
            let muted: Bool
            switch reader.remaining[1] {
            case "on", "1", "true": muted = true
            case "off", "0", "false": muted = false
            default: throw UsageError("mute takes on or off, such as: volumekit remote mute URL on")
            }
            return try blocking {
                let renderer = try await url.connect()
                try await renderer.setMuted(muted)
                print("\(renderer.displayName): \(try await renderer.isMuted() ? "muted" : "not muted")")
                return 0
            }
        case "control":
            let stepText = try reader.option("--step") ?? "2"
            guard let step = Int(stepText), step >= 1, step <= 50 else {
                throw UsageError("--step must be a whole number of device units from 1 to 50, such as --step 5")
            }
            let url = try readURL(&reader, extra: 0)
            return try blocking { try await RemoteControlScreen.run(url: url, step: step) }
        default:
            throw UsageError("unknown action '\(action)' (discover, get, set, mute, control)")
        }
    }

    private static func readURL(_ reader: inout ArgumentReader, extra: Int) throws -> RemoteDeviceURL {
        try reader.rejectUnknownOptions()
        guard reader.remaining.count == 1 + extra else {
            throw UsageError(
                extra == 0
                    ? "needs exactly one device URL (see 'volumekit remote --help')"
                    : "needs a device URL and \(extra) value (see 'volumekit remote --help')")
        }
        let text = reader.remaining[0]
        let url: RemoteDeviceURL
        do {
            url = try RemoteDeviceURL.parse(text)
        } catch {
            throw UsageError(
                "'\(clean(text))' is not a device URL: give the http:// description URL that 'volumekit remote discover' prints, or \(RemoteDeviceURL.acceptedForms.replacingOccurrences(of: "http://HOST[:PORT]/description.xml (UPnP), ", with: ""))"
            )
        }
        if case .upnp(let upnp) = url, upnp.scheme?.lowercased() != "http" {
            throw UsageError(
                "'\(clean(text))' is an https URL, but UPnP devices serve plain http: give the http:// URL that 'volumekit remote discover' prints"
            )
        }
        return url
    }

    /// Refuses an --interface value that is not an IPv4 address, with what to give instead.
    static func checkInterface(_ text: String) throws {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else {
            throw UsageError(
                "--interface takes the IPv4 address of one of this machine's network interfaces, such as 192.168.1.20; '\(clean(text))' is not an IPv4 address"
            )
        }
    }

    /// Text from the command line or a device, safe to echo: control characters removed, at most 80 characters.
    static func clean(_ text: String) -> String {
        let kept = text.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : String($0) }
            .joined()
        return kept.count > 80 ? String(kept.prefix(80)) + "…" : kept
    }

    private static func discover(timeout: Double, interface: String?, firstOnly: Bool) async throws -> Int32 {
        // One bound for the whole command (issue 12, defect 4): search and descriptions end within --timeout.
        // Each renderer is printed as soon as its description is read (issue 15), not at the timeout.
        var printed = 0
        for try await item in try UPnPRenderer.discoveries(timeout: timeout, interfaceAddress: interface) {
            if firstOnly && item.renderer == nil { continue }
            // Names are cleaned of control characters by RemoteVolume; the URL is percent-encoded.
            let name =
                item.renderer?.displayName
                ?? (item.error == .timedOut ? "(no description in time)" : "(no description)")
            FileHandle.standardOutput.write(Data("\(item.response.location.absoluteString)\t\(name)\n".utf8))
            printed += 1
            if firstOnly { return 0 }
        }
        if printed == 0 {
            printError(
                "volumekit remote: no renderer answered within \(timeout) s; check that it is on and on this network, "
                    + "or try a longer --timeout or another --interface")
            return 1
        }
        return 0
    }

    /// Runs async work from the synchronous command entry point.
    private static func blocking(_ work: @escaping @Sendable () async throws -> Int32) throws -> Int32 {
        let result = Locked<Result<Int32, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do { let status = try await work(); result.withLock { $0 = .success(status) } } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.current!.get()
    }
}

/// The interactive `remote control` screen: a level bar driven by the keyboard, in raw terminal mode.
enum RemoteControlScreen {
    enum Key: Sendable { case up, down, mute, quit }

    static func run(url: RemoteDeviceURL, step: Int) async throws -> Int32 {
        let renderer = try await url.connect()
        let controller = RemoteVolumeController(device: renderer, configuration: .init(step: step))
        try await controller.start()
        let terminal = RawTerminal()
        defer { terminal.restore() }
        // Issue 15: with stdout not a terminal (a pipe, a file, a CI log) only plain lines are written — no
        // carriage returns or escape codes — one per change.
        let isTerminal = isatty(STDOUT_FILENO) == 1
        let updates = await controller.updates()
        let screen = Locked(
            (level: await controller.level ?? 0, muted: await controller.isMuted ?? false, note: "", lastLine: ""))
        @Sendable func draw() {
            let state = screen.current
            let range = renderer.volumeRange
            let text: String
            if isTerminal {
                let width = 40
                let fraction =
                    Double(state.level - range.lowerBound) / Double(max(1, range.upperBound - range.lowerBound))
                let filled = Int((fraction * Double(width)).rounded())
                let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                text =
                    "\r\u{1B}[K\(renderer.displayName) [\(bar)] \(state.level)\(state.muted ? " muted" : "") \(state.note)"
            } else {
                let line =
                    "\(renderer.displayName): volume \(state.level)\(state.muted ? ", muted" : "")\(state.note.isEmpty ? "" : " \(state.note)")\n"
                guard
                    screen.withLock({ value -> Bool in
                        defer { value.lastLine = line }
                        return value.lastLine != line
                    })
                else { return }
                text = line
            }
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        // Written unbuffered like every screen line, so it comes first in a pipe too.
        FileHandle.standardOutput.write(Data("\(renderer.displayName): ↑/↓ or +/- volume, m mute, q quit\n".utf8))
        draw()
        let drawing = Task {
            for await update in updates {
                screen.withLock { state in
                    switch update {
                    case .level(let level): state.level = level; state.note = ""
                    case .muted(let muted): state.muted = muted
                    case .failed(let error): state.note = "(\(error))"
                    case .requestSent: break
                    }
                }
                draw()
            }
        }
        for await key in terminal.keys() {
            switch key {
            case .up: await controller.press(.up)
            case .down: await controller.press(.down)
            case .mute: try? await controller.setMuted(!(await controller.isMuted ?? false))
            case .quit: break
            }
            if key == .quit { break }
        }
        // Issue 15: quitting right after fast presses used to drop the coalesced level (the screen showed
        // 30, the device stayed at 22): stop() sends it and waits for it, at most 2 s.
        await controller.stop()
        await drawing.value
        if isTerminal { print("") }
        return 0
    }
}

/// Puts the terminal in raw mode (no echo, no line buffering) and restores it.
final class RawTerminal: Sendable {
    private let saved: Locked<termios?>

    init() {
        var original = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &original) == 0 else {
            saved = Locked(nil)
            return
        }
        saved = Locked(original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }

    /// Puts the terminal back as it was; safe to call twice.
    func restore() {
        saved.withLock { value in
            if var original = value { _ = tcsetattr(STDIN_FILENO, TCSANOW, &original) }
            value = nil
        }
    }

    /// Keys from standard input; ends at end of input (with `.quit`).
    ///
    /// From a terminal (raw mode) each key counts as pressed. From a pipe or file the input is read as plain
    /// lines (issue 15): a line is a word — `up`, `down`, `mute`, `quit` — or key characters (`+++`, `q`).
    func keys() -> AsyncStream<RemoteControlScreen.Key> {
        let interactive = saved.current != nil
        return AsyncStream { continuation in
            let thread = Thread {
                var decoder = KeyDecoder()
                if interactive {
                    var byte: UInt8 = 0
                    while read(STDIN_FILENO, &byte, 1) == 1 {
                        if let key = decoder.feed(byte) { continuation.yield(key) }
                    }
                } else {
                    while let line = readLine(strippingNewline: true) {
                        let word = line.trimmingCharacters(in: .whitespaces).lowercased()
                        let words: [String: RemoteControlScreen.Key] = [
                            "up": .up, "down": .down, "mute": .mute, "quit": .quit, "exit": .quit,
                        ]
                        if let key = words[word] {
                            continuation.yield(key)
                            if key == .quit { break }
                            continue
                        }
                        var quit = false
                        for byte in line.utf8 {
                            guard let key = decoder.feed(byte) else { continue }
                            continuation.yield(key)
                            if key == .quit { quit = true; break }
                        }
                        if quit { break }
                    }
                }
                continuation.yield(.quit)
                continuation.finish()
            }
            thread.start()
        }
    }
}

/// Turns input bytes into keys: arrows (ESC [ A…D), + = k up, - _ j down, m mute, q Ctrl-C Ctrl-D quit.
struct KeyDecoder {
    private var escape: [UInt8] = []

    mutating func feed(_ byte: UInt8) -> RemoteControlScreen.Key? {
        if !escape.isEmpty || byte == 0x1B {
            escape.append(byte)
            guard escape.count == 3 else { return nil }
            defer { escape.removeAll() }
            switch escape[2] {
            case UInt8(ascii: "A"), UInt8(ascii: "C"): return .up
            case UInt8(ascii: "B"), UInt8(ascii: "D"): return .down
            default: return nil
            }
        }
        switch byte {
        case UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "k"): return .up
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "j"): return .down
        case UInt8(ascii: "m"): return .mute
        case UInt8(ascii: "q"), 3, 4: return .quit
        default: return nil
        }
    }
}
