import RemoteVolume
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

/// The interactive `remote control` screen: a level bar driven by the keyboard, in raw terminal mode.
enum RemoteControlScreen {
    enum Key: Sendable { case up, down, mute, quit }

    static func run(url: RemoteDeviceURL, step: Int) async throws -> Int32 {
        let renderer = try await url.connect()
        let controller = RemoteVolumeController(device: renderer, configuration: .init(step: step))
        try await controller.start()
        let terminal = RawTerminal()
        defer { terminal.restore() }
        // With stdout not a terminal (a pipe, a file, a CI log) only plain lines are written — no
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
            writeUnbuffered(text)
        }
        // Written unbuffered like every screen line, so it comes first in a pipe too.
        writeUnbuffered("\(renderer.displayName): ↑/↓ or +/- volume, m mute, q quit\n")
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
        // Quitting right after fast presses must not drop the coalesced level: stop() sends it and waits for
        // it, at most 2 s.
        await controller.stop()
        await drawing.value
        if isTerminal { print("") }
        return terminal.inputRefused ? 2 : 0
    }
}
