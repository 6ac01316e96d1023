import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A scenario for the simulated device: one command a line, `#` starts a comment, times in seconds.
///
/// ```
/// ios 17.4              # setup commands come first
/// device iphone
/// volume 0.5            # the user's volume before launch
/// start
/// press up x3 every 0.2
/// hold down 2
/// wait 1
/// stop
/// ```
///
/// Commands: `ios N` · `device iphone|ipad` · `volume V` · `headphones V` (every other route's volume before launch;
/// `volume` sets both) · `start` (buttons, the HUD and the Ring/Silent monitor) ·
/// `start buttons|hud|mute` (one feature alone, ``ScenarioFeature``; the next line waits until capture has begun,
/// or with a final `&` runs at once) · `stop` · `press up|down [xN] [every S]`
/// (default one press, 0.15 s apart) · `hold up|down S [&]` (with `&` the next line runs while the button is
/// held) · `wait S` · `slider V` (Control Center, as the device's behaviour delivers it) · `drag V` (a
/// Control Center drag: a series of values) · `background` · `foreground` · `interrupt begin|end` ·
/// `call begin|end` · `siri [S]` · `alarm S [noend]` · `takeover camera|player|webview` · `camera start|stop` ·
/// `route speaker|headphones|bluetooth|airplay|receiver|external` · `route bluetooth|airplay|external NAME` (the
/// device NAME on that route: each headset, AirPlay speaker or TV keeps its own volume) · `crash` · `launch [&]` (the app
/// launches again and recovers the user's volume; the next line waits for that, or with `&` runs at once) · `mute on|off` (the
/// iPhone's switch) · `silent on|off` (Control Center's Silent mode, iPad) · `media reset` (the media server
/// restarts: `mediaServicesWereResetNotification`) · other sources of the volume: `headset up|down [xN] [every S]`
/// (the headset's own buttons, on a headphones or Bluetooth route) · `bluetooth connect V` (the route moves to
/// the Bluetooth headset, which keeps V itself: iOS takes it ``DeviceBehaviour/bluetoothSyncDelay`` later) ·
/// `bluetooth sync V` (the headset's V taken now) · `safety lower` (Headphone Notifications turn a loud headset
/// volume down to ``DeviceBehaviour/headphoneLimitLevel``).
public struct Scenario: Sendable, Equatable {
    /// One command.
    public enum Command: Sendable, Equatable {
        /// `ios N`: the iOS version whose rules apply.
        case ios(OSVersion)
        /// `device iphone|ipad`.
        case device(DeviceKind)
        /// `volume V`: the user's volume before launch (on every route, unless `headphones V` follows).
        case volume(Float)
        /// `headphones V`: the volume every route but the speaker starts with (a `volume` line sets both).
        case headphones(Float)
        /// `start`: the app starts capturing.
        case start
        /// `start buttons|hud|mute`: the app starts one feature alone (``ScenarioFeature``).
        case startFeature(ScenarioFeature)
        /// `stop`: the app stops capturing.
        case stop
        /// `press B [xN] [every S]`.
        case press(VolumeButton, count: Int, every: TimeInterval)
        /// `hold B S`, or with `&` (`waits` false) the next line runs while the button is held.
        case hold(VolumeButton, seconds: TimeInterval, waits: Bool = true)
        /// `wait S`.
        case wait(TimeInterval)
        /// `slider V`: the Control Center slider.
        case slider(Float)
        /// `drag V`: a Control Center drag, delivered as a series of values.
        case drag(Float)
        /// `siri [S]`: Siri's panel over the app for S seconds (default 1).
        case siri(seconds: TimeInterval)
        /// `alarm S [noend]`: an alarm rings for S seconds, then ends with or without an end notification.
        case alarm(seconds: TimeInterval, sendsEnd: Bool)
        /// `takeover camera|player|webview`: another component takes the app's session over.
        case takeover(SessionComponent)
        /// `camera start|stop`: the app's camera session (configuring the audio session when it starts).
        case camera(running: Bool)
        /// `silent on|off`: Control Center's Silent mode (the iPad's; on an iPhone the switch's state).
        case silent(on: Bool)
        /// `background`.
        case background
        /// `foreground`.
        case foreground
        /// `interrupt begin|end`.
        case interrupt(began: Bool)
        /// `call begin|end`: a phone call.
        case call(began: Bool)
        /// `route R`.
        case route(AudioRoute)
        /// `route bluetooth|airplay|external NAME`: audio moves to the device NAME of that route, NAME its port
        /// UID (``SimulatedDevice/connect(_:device:)``) as VolumeKit keys it: cleaned of control characters and
        /// cut (``/VolumeKitCore/AudioOutput/portKey(_:)``).
        case routeDevice(AudioRoute, name: String)
        /// `crash`: the app ends without cleanup.
        case crash
        /// `launch`: the app launches again.
        case launch
        /// `mute on|off`: the Ring/Silent switch.
        case mute(on: Bool)
        /// `media reset`: the media server restarts (``SimulatedDevice/resetMediaServices()``).
        case mediaReset
        /// `headset B [xN] [every S]`: presses of the headset's own buttons (``SimulatedDevice/headsetPress(_:)``).
        case headset(VolumeButton, count: Int, every: TimeInterval)
        /// `bluetooth connect V`: the route moves to the Bluetooth headset, which keeps V itself
        /// (``SimulatedDevice/connectBluetooth(headset:syncingTo:)``).
        case bluetoothConnect(syncingTo: Float)
        /// `bluetooth sync V`: the Bluetooth headset's own volume V taken now (``SimulatedDevice/bluetoothSync(_:)``).
        case bluetoothSync(Float)
        /// `safety lower`: Headphone Notifications turn the volume down
        /// (``SimulatedDevice/headphoneSafetyLowering()``).
        case safetyLowering

        /// The virtual time the runner lets pass for this command (a held `&` counts its hold too).
        var virtualTime: TimeInterval {
            switch self {
            case .press(_, let count, let every), .headset(_, let count, let every): Double(count) * every
            case .hold(_, let seconds, _), .wait(let seconds), .siri(let seconds), .alarm(let seconds, _): seconds
            case .slider, .drag: 0.6
            default: 0
            }
        }

        var isSetup: Bool {
            switch self {
            case .ios, .device, .volume, .headphones: true
            default: false
            }
        }
    }

    /// A command with the line it came from.
    public struct Line: Sendable, Equatable {
        /// 1-based line number in the script.
        public var number: Int
        /// The command.
        public var command: Command
        /// The line as written, without its comment.
        public var text: String = ""
        /// `start … &` or `launch &`: the next line runs at once, without waiting for capture to begin or the
        /// launch's recovery to end (as a replayed randomized session does).
        public var atOnce: Bool = false

        /// Creates a line.
        public init(number: Int, command: Command, text: String = "", atOnce: Bool = false) {
            self.number = number
            self.command = command
            self.text = text
            self.atOnce = atOnce
        }
    }

    /// The commands, in order.
    public var lines: [Line]

    /// The default time between presses of `press … xN`.
    public static let defaultPressInterval: TimeInterval = 0.15

    /// The most bytes a script may have: 1 MiB (a hand-written script is a few KB; see docs/security.md).
    public static let maximumScriptBytes = 1_048_576
    /// The most virtual time a script may ask for, in seconds: one day (the sum of its waits, holds,
    /// presses, sliders, drags, Siri panels and alarms). Simulating costs real time and memory per
    /// virtual second (the mute monitor's probes), so a longer script is refused before it runs.
    public static let maximumVirtualTime: TimeInterval = 86_400
    /// The most button presses a script may ask for (the sum of every `press … xN`).
    public static let maximumPresses = 100_000
    /// How many characters of the script an error message echoes back before cutting it with "…".
    public static let maximumEchoedCharacters = 40

    /// Parses a script, or throws a ``ScenarioError`` naming the first bad line. Lines end with LF, CRLF
    /// or CR; a script over ``maximumVirtualTime`` or ``maximumPresses`` is refused before it runs.
    public init(parsing text: String) throws {
        var lines = [Line]()
        var setupAllowed = true
        var virtualTime: TimeInterval = 0
        var presses = 0
        for (index, raw) in Self.splitLines(text).enumerated() {
            let number = index + 1
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            var words = content.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard !words.isEmpty else { continue }
            let atOnce = ["start", "launch"].contains(words[0]) && words.count > 1 && words.last == "&"
            if atOnce { words.removeLast() }
            let command = try Self.parse(words, line: number)
            if command.isSetup, !setupAllowed {
                throw ScenarioError(
                    line: number, message: "'\(Self.echo(words[0]))' must come before the other commands")
            }
            if !command.isSetup { setupAllowed = false }
            virtualTime += command.virtualTime
            if virtualTime > Self.maximumVirtualTime {
                throw ScenarioError(
                    line: number,
                    message:
                        "the script asks for more than \(Int(Self.maximumVirtualTime)) s (one day) of virtual time, the limit; split it into shorter scripts"
                )
            }
            if case .press(_, let count, _) = command { presses += count }
            if case .headset(_, let count, _) = command { presses += count }
            if presses > Self.maximumPresses {
                throw ScenarioError(
                    line: number, message: "the script asks for more than \(Self.maximumPresses) presses, the limit")
            }
            // A device's name is the one free text of a command: the line shows it as the command keeps it.
            if case .routeDevice(_, let name) = command { words = Array(words.prefix(2)) + [name] }
            lines.append(
                Line(
                    number: number, command: command, text: (words + (atOnce ? ["&"] : [])).joined(separator: " "),
                    atOnce: atOnce))
        }
        self.lines = lines
    }

    /// Splits a script into lines at LF, CRLF or CR, working on Unicode scalars (in a `String`, CRLF is
    /// one `Character`, so splitting Characters at "\n" would miss it).
    static func splitLines(_ text: String) -> [String] {
        var lines = [String]()
        var current = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            if afterCR, scalar == "\n" { afterCR = false; continue }
            afterCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                lines.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        lines.append(String(current))
        return lines
    }

    /// `word` as an error message shows it: at most ``maximumEchoedCharacters`` characters, then "…", with
    /// control characters shown as escapes (`\u{1B}`) so that none reaches the terminal (docs/security.md).
    static func echo(_ word: String) -> String {
        EchoedText.clean(word, limit: maximumEchoedCharacters)
    }

    #if !canImport(FoundationEssentials)
    /// Reads a script from `handle` (a file or standard input), as ``readScript(from:)-(Int32)`` does with the
    /// handle's descriptor.
    public static func readScript(from handle: FileHandle) throws -> String {
        try readScript(from: handle.fileDescriptor)
    }
    #endif

    /// Reads a script from an open descriptor (a file, standard input: `0`), stopping one byte past
    /// ``maximumScriptBytes``, and decodes it with ``decodeScript(_:)``. The descriptor stays open.
    public static func readScript(from descriptor: Int32) throws -> String {
        let data: Data
        do {
            data = try RegularFile.read(descriptor, atMost: maximumScriptBytes + 1)
        } catch {
            throw ScenarioInputError(message: "reading the script failed; check where it comes from")
        }
        return try decodeScript(data)
    }

    /// Checks a script's bytes and decodes them: at most ``maximumScriptBytes``, UTF-8, no NUL byte.
    public static func decodeScript(_ data: Data) throws -> String {
        if data.count > maximumScriptBytes {
            throw ScenarioInputError(
                message: "the script is larger than \(maximumScriptBytes) bytes (1 MiB), the limit")
        }
        if let offset = data.firstIndex(of: 0) {
            throw ScenarioInputError(
                message: "the script has a NUL byte at byte \(offset - data.startIndex + 1); a script is text")
        }
        // Decoding repairs invalid UTF-8 with U+FFFD, so the text re-encodes to the same bytes only when valid.
        let text = String(decoding: data, as: UTF8.self)
        guard text.utf8.elementsEqual(data) else {
            throw ScenarioInputError(message: "the script is not valid UTF-8 text")
        }
        return text
    }

    /// The commands of one word.
    private static let bareCommands: [String: Command] = [
        "stop": .stop, "background": .background, "foreground": .foreground, "crash": .crash, "launch": .launch,
    ]

    /// The commands that take one volume `V`.
    private static let levelCommands: [String: @Sendable (Float) -> Command] = [
        "volume": { .volume($0) }, "headphones": { .headphones($0) }, "slider": { .slider($0) },
        "drag": { .drag($0) },
    ]

    /// The commands that take one of two words, and the command for each (`true` for the first).
    private static let switchCommands: [String: (yes: String, no: String, command: @Sendable (Bool) -> Command)] = [
        "camera": ("start", "stop", { .camera(running: $0) }), "silent": ("on", "off", { .silent(on: $0) }),
        "interrupt": ("begin", "end", { .interrupt(began: $0) }), "call": ("begin", "end", { .call(began: $0) }),
        "mute": ("on", "off", { .mute(on: $0) }),
    ]

    private static func parse(_ words: [String], line: Int) throws -> Command {
        func fail(_ message: String) -> ScenarioError { ScenarioError(line: line, message: message) }
        func expectCount(_ counts: ClosedRange<Int>, _ usage: String) throws {
            guard counts.contains(words.count) else { throw fail("usage: \(usage)") }
        }
        func seconds(_ word: String) throws -> TimeInterval {
            guard let value = TimeInterval(word), value.isFinite, value >= 0 else {
                throw fail("'\(echo(word))' is not a time in seconds (a number from 0 to 86,400)")
            }
            guard value <= 86_400 else {
                throw fail("'\(echo(word))' is more than 86,400 seconds (one day), the limit for one command")
            }
            return value
        }
        func level(_ word: String) throws -> Float {
            guard let value = Float(word), value.isFinite, (0...1).contains(value) else {
                throw fail("'\(echo(word))' is not a volume between 0 and 1")
            }
            return value
        }
        func button(_ word: String) throws -> VolumeButton {
            guard let value = VolumeButton(rawValue: word) else {
                throw fail("'\(echo(word))' is not a button (up or down)")
            }
            return value
        }
        func choice(_ word: String, _ yes: String, _ no: String) throws -> Bool {
            if word == yes { return true }
            if word == no { return false }
            throw fail("'\(echo(word))' must be \(yes) or \(no)")
        }
        if let command = bareCommands[words[0]] {
            try expectCount(1...1, words[0])
            return command
        }
        if let command = levelCommands[words[0]] {
            try expectCount(2...2, "\(words[0]) V")
            return command(try level(words[1]))
        }
        if let (yes, no, command) = switchCommands[words[0]] {
            try expectCount(2...2, "\(words[0]) \(yes)|\(no)")
            return command(try choice(words[1], yes, no))
        }
        switch words[0] {
        case "ios":
            try expectCount(2...2, "ios N")
            guard let version = OSVersion(parsing: words[1]) else {
                throw fail("'\(echo(words[1]))' is not an iOS version")
            }
            return .ios(version)
        case "device":
            try expectCount(2...2, "device iphone|ipad")
            guard let kind = DeviceKind(rawValue: words[1]) else {
                throw fail("'\(echo(words[1]))' is not a device (iphone or ipad)")
            }
            return .device(kind)
        case "start":
            try expectCount(1...2, "start [buttons|hud|mute]")
            guard words.count == 2 else { return .start }
            guard let feature = ScenarioFeature(rawValue: words[1]) else {
                throw fail("'\(echo(words[1]))' is not a feature (buttons, hud or mute)")
            }
            return .startFeature(feature)
        case "press", "headset":
            let usage = "\(words[0]) up|down [xN] [every S]"
            try expectCount(2...5, usage)
            let which = try button(words[1])
            var count = 1
            var every = defaultPressInterval
            var rest = words.dropFirst(2)
            while let word = rest.first {
                rest = rest.dropFirst()
                if word.hasPrefix("x"), let value = Int(word.dropFirst()) {
                    guard (1...10_000).contains(value) else { throw fail("press count must be 1…10000") }
                    count = value
                } else if word == "every", let next = rest.first {
                    rest = rest.dropFirst()
                    every = try seconds(next)
                    guard every > 0 else { throw fail("'every' must be more than 0 seconds") }
                } else {
                    throw fail("usage: \(usage)")
                }
            }
            return words[0] == "press"
                ? .press(which, count: count, every: every) : .headset(which, count: count, every: every)
        case "bluetooth":
            try expectCount(3...3, "bluetooth connect|sync V")
            let value = try level(words[2])
            if try choice(words[1], "connect", "sync") { return .bluetoothConnect(syncingTo: value) }
            return .bluetoothSync(value)
        case "safety":
            try expectCount(2...2, "safety lower")
            guard words[1] == "lower" else { throw fail("'\(echo(words[1]))' is not a safety command (lower)") }
            return .safetyLowering
        case "hold":
            try expectCount(3...4, "hold up|down S [&]")
            if words.count == 4, words[3] != "&" { throw fail("usage: hold up|down S [&]") }
            return .hold(try button(words[1]), seconds: try seconds(words[2]), waits: words.count == 3)
        case "wait":
            try expectCount(2...2, "wait S")
            return .wait(try seconds(words[1]))
        case "siri":
            try expectCount(1...2, "siri [S]")
            return .siri(seconds: words.count == 2 ? try seconds(words[1]) : 1)
        case "alarm":
            try expectCount(2...3, "alarm S [noend]")
            if words.count == 3, words[2] != "noend" { throw fail("usage: alarm S [noend]") }
            return .alarm(seconds: try seconds(words[1]), sendsEnd: words.count == 2)
        case "takeover":
            try expectCount(2...2, "takeover camera|player|webview")
            let names: [String: SessionComponent] = ["camera": .camera, "player": .player, "webview": .webView]
            guard let component = names[words[1]] else {
                throw fail("'\(echo(words[1]))' is not a component (camera, player or webview)")
            }
            return .takeover(component)
        case "route":
            try expectCount(2...Int.max, "route speaker|headphones|bluetooth|airplay|receiver|external [NAME]")
            guard let route = words[1] == "airplay" ? .external : AudioRoute(rawValue: words[1]) else {
                throw fail(
                    "'\(echo(words[1]))' is not a route (speaker, headphones, bluetooth, airplay, receiver, external)")
            }
            guard words.count > 2 else { return .route(route) }
            guard route.keepsVolumePerDevice else {
                throw fail("the \(words[1]) route has one device: only bluetooth, airplay and external take a NAME")
            }
            let name = words[2...].joined(separator: " ")
            return .routeDevice(route, name: AudioOutput.portKey(name) ?? name)
        case "media":
            try expectCount(2...2, "media reset")
            guard words[1] == "reset" else { throw fail("'\(echo(words[1]))' is not a media command (reset)") }
            return .mediaReset
        default:
            throw fail("unknown command '\(echo(words[0]))'")
        }
    }
}

/// A script VolumeKit will not read: too large, not UTF-8, or with a NUL byte.
public struct ScenarioInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, as a sentence.
    public var message: String

    /// Creates an error.
    public init(message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// A script line VolumeKit could not understand.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line number.
    public var line: Int
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// "line 3: unknown command 'jump'".
    public var description: String { "line \(line): \(message)" }
}

/// One feature of VolumeKit an app can run alone, for `start buttons|hud|mute`.
public enum ScenarioFeature: String, Sendable, Equatable, CaseIterable {
    /// Button capture with the run's strategy, without the HUD or the Ring/Silent monitor.
    case buttons
    /// VolumeKit's HUD alone with default options, as README's `.volumeHUD(.island)` one-liner runs it: no
    /// capture, the app playing no audio of its own.
    case hud
    /// The Ring/Silent monitor alone.
    case mute
}
