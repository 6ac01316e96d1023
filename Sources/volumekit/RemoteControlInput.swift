import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts the terminal in raw mode (no echo, no line buffering) and restores it.
final class RawTerminal: Sendable {
    /// The longest piped line read, in bytes: a word or a few keys need far less, and a pipe without line
    /// breaks, such as /dev/zero, must not be read into memory without end.
    static let maxLineBytes = 1024
    /// How many unknown piped lines are named on stderr; later ones are ignored silently.
    static let maxReportedLines = 5

    private let saved: Locked<termios?>
    private let refused = Locked(false)

    /// Whether piped input was refused (a line longer than ``maxLineBytes``).
    var inputRefused: Bool { refused.current }

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
    /// lines of at most ``maxLineBytes``: a line is a word — `up`, `down`, `mute`, `quit` — or key
    /// characters (`+++`, `q`); anything else in a line is named on stderr and ignored.
    func keys() -> AsyncStream<RemoteControlScreen.Key> {
        let interactive = saved.current != nil
        let refused = self.refused
        return AsyncStream { continuation in
            DetachedThread.run(named: "volumekit keys") {
                var decoder = KeyDecoder()
                if interactive {
                    var byte: UInt8 = 0
                    while read(STDIN_FILENO, &byte, 1) == 1 {
                        if let key = decoder.feed(byte) { continuation.yield(key) }
                    }
                } else {
                    var lines = PipedLines(fd: STDIN_FILENO, maxLineBytes: Self.maxLineBytes)
                    var reported = 0
                    reading: while true {
                        let line: [UInt8]
                        switch lines.next() {
                        case .line(let bytes): line = bytes
                        case .end: break reading
                        case .tooLong:
                            printError(
                                "volumekit remote control: a piped line is longer than \(Self.maxLineBytes) bytes; "
                                    + "give one word (up, down, mute, quit) or a few keys such as +++ per line")
                            refused.withLock { $0 = true }
                            break reading
                        }
                        let text = String(decoding: line, as: UTF8.self)
                        let word = text.trimmingSpaces().lowercased()
                        let words: [String: RemoteControlScreen.Key] = [
                            "up": .up, "down": .down, "mute": .mute, "quit": .quit, "exit": .quit,
                        ]
                        if let key = words[word] {
                            continuation.yield(key)
                            if key == .quit { break reading }
                            continue
                        }
                        var unknown = false
                        for byte in line {
                            let known = decoder.isInEscape || byte == 0x1B || byte == 0x20 || byte == 0x09
                            if let key = decoder.feed(byte) {
                                continuation.yield(key)
                                if key == .quit { break reading }
                            } else if !known {
                                unknown = true
                            }
                        }
                        if unknown {
                            reported += 1
                            if reported <= Self.maxReportedLines {
                                printError(
                                    "volumekit remote control: ignored '\(EchoedText.clean(text))': "
                                        + "a piped line is up, down, mute or quit, or keys such as +, -, m, q"
                                        + (reported == Self.maxReportedLines
                                            ? " (further unknown lines are ignored silently)" : ""))
                            }
                        }
                    }
                }
                continuation.yield(.quit)
                continuation.finish()
            }
        }
    }
}

/// Lines of at most `maxLineBytes` from a file descriptor, read in chunks: memory stays bounded whatever
/// comes (a line that is too long is reported as soon as its bytes pass the cap, not read to its end).
struct PipedLines {
    enum Item {
        case line([UInt8])
        case tooLong, end
    }

    let fd: Int32
    let maxLineBytes: Int
    private var pending: [UInt8] = []
    private var atEnd = false

    init(fd: Int32, maxLineBytes: Int) {
        self.fd = fd
        self.maxLineBytes = maxLineBytes
    }

    mutating func next() -> Item {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                guard newline <= maxLineBytes else { return .tooLong }
                var line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return .line(line)
            }
            guard pending.count <= maxLineBytes else { return .tooLong }
            if atEnd { return pending.isEmpty ? .end : .line(pending.drainedAll()) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &buffer, buffer.count)
            if count > 0 {
                pending.append(contentsOf: buffer[..<count])
            } else if count == 0 || errno != EINTR {
                atEnd = true
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// All elements, leaving the array empty.
    fileprivate mutating func drainedAll() -> [UInt8] {
        defer { removeAll() }
        return self
    }
}

/// Turns input bytes into keys: arrows (ESC [ A…D), + = k up, - _ j down, m mute, q Ctrl-C Ctrl-D quit.
struct KeyDecoder {
    private var escape: [UInt8] = []

    /// Whether the bytes fed so far end inside an escape sequence (the next byte belongs to it).
    var isInEscape: Bool { !escape.isEmpty }

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
