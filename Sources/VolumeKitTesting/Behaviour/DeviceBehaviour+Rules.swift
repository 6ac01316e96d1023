import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DeviceBehaviour {
    /// One rule of ``DeviceBehaviour`` described as data: its name, what it decides, its default, its range or
    /// variants, its sources, and how to read, set and sample it.
    public struct Rule: Sendable {
        /// The plausible values of a rule.
        public enum Values: Sendable, Equatable {
            /// A time in seconds within a range.
            case seconds(ClosedRange<Double>)
            /// One of several named variants.
            case variants([String])
            /// A volume (0…1) within a range.
            case level(ClosedRange<Double>)
        }

        /// The name used by `--set NAME=VALUE` and `volumekit profiles`, e.g. `kvoLatency`.
        public let name: String
        /// What the rule decides, in one sentence.
        public let summary: String
        /// The plausible values.
        public let values: Values
        /// Where the default and the range come from.
        public let sources: [String]
        private let read: @Sendable (DeviceBehaviour) -> String
        private let write: @Sendable (inout DeviceBehaviour, String) -> Bool
        private let draw: @Sendable (inout DeviceBehaviour, inout SeededRandom) -> Void
        /// Writes a time without its range check (``setOutside(_:in:)``); `nil` for rules that are not times.
        private var writeOutside: (@Sendable (inout DeviceBehaviour, Double) -> Void)? = nil

        /// The default value, as text.
        public var defaultValue: String { read(.default) }

        /// The rule's value in `behaviour`, as text.
        public func value(in behaviour: DeviceBehaviour) -> String { read(behaviour) }

        /// The range or variants, as text: "0.3…0.7 s" or "exact | grid | rounded".
        public var valuesText: String {
            switch values {
            case .seconds(let range): "\(Self.format(range.lowerBound))…\(Self.format(range.upperBound)) s"
            case .variants(let names): names.joined(separator: " | ")
            case .level(let range): "\(Self.format(range.lowerBound))…\(Self.format(range.upperBound))"
            }
        }

        /// Sets the rule in `behaviour` from text; throws a ``DeviceBehaviourError`` for a value outside the
        /// rule's range or variants.
        public func set(_ text: String, in behaviour: inout DeviceBehaviour) throws {
            guard write(&behaviour, text) else {
                throw DeviceBehaviourError.badValue(rule: name, value: text, expected: valuesText)
            }
        }

        /// Sets a time rule *outside* its envelope on purpose (`volumekit simulate --outside`), so that a phone
        /// the envelope does not cover can be simulated and VolumeKit's calibration seen to keep it apart: any time
        /// from 0 to 60 s that is not in the rule's range. Throws a ``DeviceBehaviourError`` for a value inside the
        /// range (use ``set(_:in:)``), out of 0–60 s, or a rule that is not a time.
        public func setOutside(_ text: String, in behaviour: inout DeviceBehaviour) throws {
            guard let writeOutside, case .seconds(let range) = values else {
                throw DeviceBehaviourError.badValue(
                    rule: name, value: text,
                    expected: "one of \(valuesText) (with --set; --outside takes time rules only)")
            }
            let trimmed = text.hasSuffix("s") ? String(text.dropLast()) : text
            guard let value = Double(trimmed), value.isFinite,
                value >= 0, value <= 60, !range.contains(value)
            else {
                throw DeviceBehaviourError.badValue(
                    rule: name, value: text, expected: "a time outside \(valuesText), from 0 to 60 s")
            }
            writeOutside(&behaviour, value)
        }

        func sample(_ behaviour: inout DeviceBehaviour, _ random: inout SeededRandom) { draw(&behaviour, &random) }

        static func format(_ value: Double) -> String {
            let rounded = (value * 10_000).rounded() / 10_000
            var text = cFormat("%.4f", rounded)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        }

        /// A rule in seconds. Samples take either bound one time in ten each (edges are where designs fail)
        /// and are otherwise uniform, rounded to 0.1 ms.
        static func seconds(
            _ name: String, _ keyPath: WritableKeyPath<DeviceBehaviour, TimeInterval>, _ range: ClosedRange<Double>,
            _ summary: String, sources: [String]
        ) -> Rule {
            number(name, keyPath, range, .seconds(range), summary, sources: sources, unit: "s")
        }

        /// A rule that is a volume (0…1), sampled as ``seconds(_:_:_:_:sources:)`` is.
        static func level(
            _ name: String, _ keyPath: WritableKeyPath<DeviceBehaviour, Double>, _ range: ClosedRange<Double>,
            _ summary: String, sources: [String]
        ) -> Rule {
            number(name, keyPath, range, .level(range), summary, sources: sources, unit: "")
        }

        private static func number(
            _ name: String, _ keyPath: WritableKeyPath<DeviceBehaviour, Double>, _ range: ClosedRange<Double>,
            _ values: Values, _ summary: String, sources: [String], unit: String
        ) -> Rule {
            nonisolated(unsafe) let path = keyPath
            let outside: @Sendable (inout DeviceBehaviour, Double) -> Void = { behaviour, value in
                behaviour[keyPath: path] = value
            }
            return Rule(
                name: name, summary: summary, values: values, sources: sources,
                read: { format($0[keyPath: path]) },
                write: { behaviour, text in
                    let trimmed = !unit.isEmpty && text.hasSuffix(unit) ? String(text.dropLast(unit.count)) : text
                    guard let value = Double(trimmed), value.isFinite, range.contains(value) else { return false }
                    behaviour[keyPath: path] = value
                    return true
                },
                draw: { behaviour, random in
                    let choice = random.index(below: 10)
                    let value: Double
                    switch choice {
                    case 0: value = range.lowerBound
                    case 1: value = range.upperBound
                    default: value = range.lowerBound + (range.upperBound - range.lowerBound) * random.unit()
                    }
                    behaviour[keyPath: path] = (value * 10_000).rounded() / 10_000
                },
                writeOutside: unit == "s" ? outside : nil
            )
        }

        /// A rule with named variants, sampled uniformly.
        static func variants<Variant: RawRepresentable & CaseIterable & Sendable>(
            _ name: String, _ keyPath: WritableKeyPath<DeviceBehaviour, Variant>, _ summary: String, sources: [String]
        ) -> Rule where Variant.RawValue == String {
            nonisolated(unsafe) let path = keyPath
            let cases = Array(Variant.allCases)
            return Rule(
                name: name, summary: summary, values: .variants(cases.map(\.rawValue)), sources: sources,
                read: { $0[keyPath: path].rawValue },
                write: { behaviour, text in
                    guard let value = Variant(rawValue: text) else { return false }
                    behaviour[keyPath: path] = value
                    return true
                },
                draw: { behaviour, random in behaviour[keyPath: path] = cases[random.index(below: cases.count)] }
            )
        }
    }

    /// Every rule, in the order `volumekit profiles` lists them and ``sample(_:)`` draws them.
    public static let rules: [Rule] = [
        .seconds(
            "firstRepeatDelay", \.firstRepeatDelay, CalibrationRule.firstRepeatDelay.range,
            "When the first auto-repeat step comes after a held button goes down.",
            sources: [
                "SLVolumeButtonListener.m (650 ms is a release timeout, longer than the real gap)",
                "shared/facts/envelope.md",
            ]),
        .seconds(
            "repeatInterval", \.repeatInterval, CalibrationRule.repeatInterval.range,
            "The interval between later auto-repeat steps.",
            sources: [
                "SLVolumeButtonListener.m (200 ms timeout: \"the repeat rate is faster on the second and subsequent\")",
                "shared/facts/envelope.md",
            ]),
        .seconds(
            "tapLength", \.tapLength, CalibrationRule.tapLength.range,
            "How long a button stays down for a single press.",
            sources: ["no source (a human tap)", "seed 000 (sets refused while a down press lasts)"]),
        .variants(
            "stepQuantization", \.stepQuantization,
            "How a press moves the volume: 1/16 from the value, to the 1/16 grid, or with rounded reads.",
            sources: [
                "seed 002 (6.25% a press)", "koze.hatenablog.jp (iOS 8.3: 0.1 → 0.1625)",
                "Apple forums thread 756484 (2024: rounded outputVolume)",
            ]),
        .variants(
            "downPressRefusal", \.downPressRefusal,
            "Which of the app's sets iOS drops around a volume-down press.",
            sources: [
                "seed 000 (iOS 11: sets ≥ the pre-press value refused)",
                "decompiled MediaPlayer iOS 18.2 MPVolumeControllerSystemDataSource -setVolume: (if (_volume != a3))",
                "JPSVolumeButtonHandler #58",
            ]),
        .seconds(
            "volumeCacheDelay", \.volumeCacheDelay, 0.005...0.1,
            "With cachedEqualSetDrop: how long the slider's cached volume lags a change.",
            sources: [
                "decompiled MediaPlayer iOS 18.2 (cache updated asynchronously)", "CipherBit VolumeButtonHandler #4",
            ]),
        .seconds(
            "kvoLatency", \.kvoLatency, 0...0.03,
            "How long after a change KVO and the private notification reach the app.",
            sources: ["no source", "shared/facts/envelope.md"]),
        .seconds(
            "sliderLatency", \.sliderLatency, 0.005...0.15,
            "How long after the app's set the slider's value reaches the system.",
            sources: [
                "decompiled MediaPlayer iOS 18.2 (two async hops and a cross-process call)", "shared/facts/envelope.md",
            ]),
        .variants(
            "idleButtons", \.idleButtons,
            "What the buttons change while the app has no active session and nothing plays.",
            sources: ["cloudfour 2011", "mbni 2016 (\"Change with Buttons\" moves the ringer)"]),
        .variants(
            "controlCenterDrag", \.controlCenterDrag,
            "Whether a Control Center drag arrives as one change or as a series over 0.3 s.",
            sources: ["JPSVolumeButtonHandler PR #12 (the app is inactive meanwhile)", "shared/facts/envelope.md"]),
        .seconds(
            "volumeViewReadyDelay", \.volumeViewReadyDelay, 0.05...1.0,
            "How long after creation an MPVolumeView hides the HUD and takes sets.",
            sources: [
                "JPSVolumeButtonHandler (waits 1 s: \"There is a delay between setting the volume view before the system actually disables the HUD\")",
                "shared/facts/volume-hud.md §4",
            ]),
        .variants(
            "ownSetHUD", \.ownSetHUD,
            "Whether the app's own sets show the HUD when no ready, visible volume view is on screen.",
            sources: [
                "Signal-iOS VolumeButtons.swift (\"displaying the system UI when doing so\")",
                "JPSVolumeButtonHandler #59",
            ]),
        .variants(
            "routeNotification", \.routeNotification,
            "Whether a route change's notification comes before or after the new route's KVO, or not at all.",
            sources: [
                "RBVolumeButtons #18 (presses reported when earphones go in or out)",
                "openradar 35432156 (MPVolumeView suppressed routeChangeNotification, iOS 11.2)",
            ]),
        .seconds(
            "routeNotificationGap", \.routeNotificationGap, CalibrationRule.routeNotificationGap.range,
            "The gap between a route change's notification and its KVO.",
            sources: ["shared/facts/envelope.md"]),
        .variants(
            "externalVolume", \.externalVolume,
            "Whether AirPlay/HDMI routes have a volume slider the app can set.",
            sources: ["openradar 42881405 (the slider disappears for AirPlay)", "shared/facts/envelope.md"]),
        .variants(
            "siriShape", \.siriShape,
            "What Siri's panel does to an app in front: inactive, interrupted, with or without an end.",
            sources: ["openradar 44895456 (Siri: inactive then active)", "shared/facts/envelope.md"]),
        .variants(
            "sessionTakeover", \.sessionTakeover,
            "What another component (camera, player, web view) taking over the app's session does.",
            sources: ["seed 002 (问题一)", "hirbod/react-native-volume-manager #40/#41", "SubtleVolume #25"]),
        .seconds(
            "suspensionDelay", \.suspensionDelay, 0...10,
            "How long after entering the background the app is suspended.",
            sources: [
                "Apple, Managing your app's life cycle", "shared/facts/envelope.md (suspension comes seconds later)",
            ]),
        .variants(
            "captureEventsGate", \.captureEventsGate,
            "Which apps receive AVCaptureEventInteraction events.",
            sources: [
                "AVKit AVCaptureEventInteraction header",
                "Signal-iOS VolumeButtons.swift (camera with a preview on screen)",
            ]),
        .variants(
            "iPadSilent", \.iPadSilent,
            "Whether an iPad's Control Center Silent mode silences system sounds (visible to a probe).",
            sources: ["MAME4iOS #62 (an iPad muted via Control Center)", "shared/facts/envelope.md"]),
        // The wider world. Appended: every earlier sample keeps its values for the rules above.
        .variants(
            "headsetButtons", \.headsetButtons,
            "Whether a Bluetooth headset's volume buttons move the volume one step, or to its own off-grid level.",
            sources: [
                "JPSVolumeButtonHandler #23 (a wired remote's presses reach the handler, without auto-repeat)",
                "JPSVolumeButtonHandler #56 (a Bluetooth headset's buttons did not work)",
                "Bluetooth AVRCP absolute volume (0…0x7F)", "shared/facts/envelope.md (off-grid values unverified)",
            ]),
        .seconds(
            "bluetoothSyncDelay", \.bluetoothSyncDelay, 0.05...2,
            "How long after a Bluetooth headset connects iOS takes the volume the headset stored itself.",
            sources: [
                "no measurement", "shared/facts/envelope.md (absolute volume synchronised when a headset connects)",
            ]),
        .variants(
            "headphoneLimit", \.headphoneLimit,
            "Whether the first up press past the EU headphone limit shows a warning and moves nothing.",
            sources: [
                "SO 29193657 (\"two clicks of the hardware volume up button are required\")",
                "shared/facts/envelope.md",
            ]),
        .level(
            "headphoneLimitLevel", \.headphoneLimitLevel, 0.5...0.9375,
            "Where the EU headphone warning sits, and what Headphone Notifications lower a louder volume to.",
            sources: [
                "no source for the slider position (EU: an 85 dB default limit, The Telegraph 2020)",
                "Apple, Headphone Safety (\"a notification is sent and the volume is turned down\")",
            ]),
        .variants(
            "backgroundAudio", \.backgroundAudio,
            "Whether the app is suspended in the background, or never (the audio background mode, playing).",
            sources: ["Apple, Managing your app's life cycle", "shared/facts/envelope.md (never suspended)"]),
        .variants(
            "lateInterruptionBegan", \.lateInterruptionBegan,
            "Whether an interruption \"began\" for the time suspended arrives on return, before or after active.",
            sources: [
                "AVAudioSessionInterruptionWasSuspendedKey (iOS 10.3), reason .appWasSuspended (iOS 14.5)",
                "CSDN shengpeng3344 83617979 (on every background → foreground trip)", "shared/facts/envelope.md",
            ]),
        .seconds(
            "controlCenterDragLength", \.controlCenterDragLength, 0.1...1.5,
            "How long a Control Center drag delivered as a series lasts, from its first value to its last.",
            sources: ["no source (a human drag)", "shared/facts/envelope.md (a series over ≈ 0.3 s)"]),
    ]

    /// The rule named `name`, or `nil`.
    public static func rule(named name: String) -> Rule? { rules.first { $0.name == name } }

    /// The K-th seeded sample of the envelope: every rule drawn from its range or variants by a SplitMix64
    /// generator seeded with `k`, so the same `k` gives the same behaviour on every run and machine.
    /// `sample(0)` is ``default``.
    public static func sample(_ k: UInt64) -> DeviceBehaviour {
        guard k != 0 else { return .default }
        // Spread neighbouring seeds apart before drawing.
        var random = SeededRandom(seed: k &* 0xD1B5_4A32_D192_ED03 ^ 0x5EED_BE4A_F10E_0000)
        var behaviour = DeviceBehaviour()
        for rule in rules { rule.sample(&behaviour, &random) }
        return behaviour
    }

    /// Sets the rule named by `assignment`'s left side ("kvoLatency=0.02"). Throws a ``DeviceBehaviourError``.
    public mutating func set(_ assignment: String) throws {
        let (rule, value) = try Self.parse(assignment)
        try rule.set(value, in: &self)
    }

    /// Applies `NAME=VALUE` with a time *outside* the rule's envelope (``Rule/setOutside(_:in:)``).
    public mutating func setOutside(_ assignment: String) throws {
        let (rule, value) = try Self.parse(assignment)
        try rule.setOutside(value, in: &self)
    }

    /// `NAME=VALUE`'s rule and value text; throws for text that is no assignment or names no rule.
    private static func parse(_ assignment: String) throws -> (Rule, String) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw DeviceBehaviourError.notAnAssignment(assignment)
        }
        let name = String(assignment[..<equals])
        guard let rule = rule(named: name) else { throw DeviceBehaviourError.unknownRule(name) }
        return (rule, String(assignment[assignment.index(after: equals)...]))
    }

    /// The named profiles `--profile NAME` accepts, besides `sample:K`.
    public static let profiles: [(name: String, summary: String, behaviour: DeviceBehaviour)] = {
        var slow = DeviceBehaviour()
        var fast = DeviceBehaviour()
        for rule in rules {
            guard case .seconds(let range) = rule.values else { continue }
            try? rule.set(Rule.format(range.upperBound), in: &slow)
            try? rule.set(Rule.format(range.lowerBound), in: &fast)
        }
        var ios18 = DeviceBehaviour()
        ios18.downPressRefusal = .cachedEqualSetDrop
        ios18.stepQuantization = .rounded
        ios18.sliderLatency = 0.05
        return [
            ("default", "today's best guess for every rule", DeviceBehaviour()),
            ("slow", "every time at the top of its range (slowest rhythm, latencies, view, suspension)", slow),
            ("fast", "every time at the bottom of its range", fast),
            ("ios18", "the decompiled iOS 18.2 reading: cached-equal sets dropped, rounded reads, 50 ms slider", ios18),
        ]
    }()

    /// A named profile (see ``profiles``), or `sample:K`. Throws a ``DeviceBehaviourError`` for anything else.
    public init(profile: String) throws {
        if let named = Self.profiles.first(where: { $0.name == profile }) {
            self = named.behaviour
            return
        }
        if profile.hasPrefix("sample:"), let k = UInt64(profile.dropFirst("sample:".count)) {
            self = Self.sample(k)
            return
        }
        throw DeviceBehaviourError.unknownProfile(profile)
    }

    /// Every rule's value, as `name=value` in ``rules`` order.
    public var assignments: [String] { Self.rules.map { "\($0.name)=\($0.value(in: self))" } }
}

/// A device behaviour that could not be set up from text.
public enum DeviceBehaviourError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No rule has this name.
    case unknownRule(String)
    /// The value is outside the rule's range or variants.
    case badValue(rule: String, value: String, expected: String)
    /// Not of the form `RULE=VALUE`.
    case notAnAssignment(String)
    /// Not a named profile or `sample:K`.
    case unknownProfile(String)

    /// One sentence a person can act on; the text it echoes is cut and cleaned (`EchoedText`).
    public var description: String {
        switch self {
        case .unknownRule(let name):
            "There is no rule named '\(EchoedText.argument(name))'; 'volumekit profiles' lists them."
        case .badValue(let rule, let value, let expected):
            "'\(EchoedText.argument(value))' is not a value of \(rule), which takes \(expected)."
        case .notAnAssignment(let text):
            "'\(EchoedText.argument(text))' is not of the form RULE=VALUE."
        case .unknownProfile(let name):
            "'\(EchoedText.argument(name))' is not a profile: use \(DeviceBehaviour.profiles.map(\.name).joined(separator: ", ")) or sample:K with K a whole number."
        }
    }
}
