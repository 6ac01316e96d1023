import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One thing the scenario's observer saw.
public struct ScenarioRecord: Sendable, Equatable {
    /// What was seen.
    public enum Kind: Sendable, Equatable {
        /// A button event the app received.
        case button(VolumeButton, ButtonPhase)
        /// The system volume HUD appeared.
        case systemHUD
        /// The app's custom HUD changed: shown or hidden, its level, and a bump at a rail.
        case hud(level: Float, visible: Bool, bump: VolumeHUDBump?)
        /// The app could not start capture.
        case error(String)
        /// A script line, as it starts (shown to people, not in JSON).
        case command(String)
        /// The mute monitor reported a new Ring/Silent switch state.
        case mute(MuteState)
        /// What the user physically did (the ground truth the verdict judges against).
        case truth(TruthRecord)
        /// A diagnostic VolumeKit raised: something worth knowing that did not stop capture.
        case diagnostic(PressOracle.Diagnostic)
        /// The oracle's judgment of every event against the ground truth, just before the end.
        case verdict(Verdict)
        /// The end of the scenario: the device's output volume, and the app's audio session then — its
        /// category (`nil` when the app is not running) and whether it is active — so that a script can check
        /// that VolumeKit kept the app's session (a camera app's `.playAndRecord`) and left it as it found it.
        case end(volume: Float, category: AudioCategory?, sessionActive: Bool)
    }

    /// When, in seconds of virtual time (absent for the end).
    public var time: Instant?
    /// What.
    public var kind: Kind
    /// On the end record: what the buttons engine learned of the simulated phone (``/VolumeKitCore/CalibrationMachine``),
    /// printed as `"calibration"`; `nil` when no buttons engine ran.
    public var calibration: CalibrationMachine?

    /// Creates a record.
    public init(time: Instant?, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    /// One JSON object, keys in a stable order.
    public var json: String {
        let t = time.map { "\"t\":\(Self.format($0)), " } ?? ""
        switch kind {
        case .button(let button, let phase):
            return "{\(t)\"type\":\"button\", \"button\":\"\(button.rawValue)\", \"phase\":\"\(phase.rawValue)\"}"
        case .systemHUD:
            return "{\(t)\"type\":\"systemHUD\"}"
        case .hud(let level, let visible, let bump):
            let bumpText = bump.map { ", \"bump\":\"\($0.rawValue)\"" } ?? ""
            return "{\(t)\"type\":\"hud\", \"level\":\(Self.format(Double(level))), \"visible\":\(visible)\(bumpText)}"
        case .error(let message):
            return "{\(t)\"type\":\"error\", \"message\":\"\(Self.escape(message))\"}"
        case .command(let line):
            return "{\(t)\"type\":\"command\", \"line\":\"\(Self.escape(line))\"}"
        case .mute(let state):
            if case .unknown(let reason) = state {
                return "{\(t)\"type\":\"mute\", \"state\":\"unknown\", \"reason\":\"\(reason.rawValue)\"}"
            }
            return "{\(t)\"type\":\"mute\", \"state\":\"\(state.name)\"}"
        case .truth(let record):
            return record.json
        case .diagnostic(let diagnostic):
            return
                "{\(t)\"type\":\"diagnostic\", \"name\":\"\(diagnostic.name)\", \"sentence\":\"\(Self.escape(diagnostic.sentence))\"}"
        case .verdict(let verdict):
            return verdict.json
        case .end(let volume, let category, let active):
            let categoryText = category.map { "\"\($0.rawValue)\"" } ?? "null"
            return
                "{\(t)\"type\":\"end\", \"volume\":\(Self.format(Double(volume))), \"category\":\(categoryText), \"sessionActive\":\(active)\(calibrationJSON)}"
        }
    }

    /// `, "calibration":{RULE:{"value":V, "samples":N, "spread":S}, …}` for the end record: the estimates in use on
    /// the route at the end (``/VolumeKitCore/CalibrationMachine/estimate(of:)``), with the rules that have a
    /// measurement (`"outside":N` when some fell outside the envelope), `"stepQuantization":{"value":Q}`,
    /// `"downPressRefusal":{"value":"seedShape", "samples":N}` once runs of down steps showed sets refused, and
    /// `"byRoute":{ROUTE:{RULE:{…}}}` when the rules learned per route were measured on more than one route.
    private var calibrationJSON: String {
        guard let calibration else { return "" }
        var members = Self.estimatesJSON { calibration.estimate(of: $0) }
        if let quantization = calibration.quantization {
            members.append("\"stepQuantization\":{\"value\":\"\(quantization.rawValue)\"}")
        }
        if calibration.refusesSetsDuringDownPress {
            // The profile's name of the variant it shows (`volumekit profiles`: downPressRefusal).
            members.append(
                "\"downPressRefusal\":{\"value\":\"\(DeviceBehaviour.DownPressRefusal.seedShape.rawValue)\", \"samples\":\(calibration.downPressRefusals)}"
            )
        }
        if calibration.byRoute.count > 1 {
            let routes = AudioRoute.allCases.compactMap { route in
                calibration.byRoute[route].map { rules in
                    "\"\(route.rawValue)\":{\(Self.estimatesJSON { rules[$0] }.joined(separator: ", "))}"
                }
            }
            members.append("\"byRoute\":{\(routes.joined(separator: ", "))}")
        }
        return ", \"calibration\":{\(members.joined(separator: ", "))}"
    }

    /// `"RULE":{"value":V, "samples":N, "spread":S[, "outside":N]}` for each rule `estimate` has a value for.
    private static func estimatesJSON(_ estimate: (CalibrationRule) -> CalibrationEstimate?) -> [String] {
        CalibrationRule.allCases.compactMap { rule in
            guard let estimate = estimate(rule) else { return nil }
            let value = estimate.value.map { format($0) } ?? "null"
            let outside = estimate.outsideSamples > 0 ? ", \"outside\":\(estimate.outsideSamples)" : ""
            return
                "\"\(rule.rawValue)\":{\"value\":\(value), \"samples\":\(estimate.samples), \"spread\":\(format(estimate.spread))\(outside)}"
        }
    }

    /// One line for people.
    public var text: String {
        // Words, not identifiers, for people who have not read VolumeKit's source.
        func words(_ state: MuteState) -> String {
            switch state {
            case .silent: return "on silent"
            case .ringing: return "on ring"
            case .unavailable: return "unavailable: this device has no silent mode a probe can see"
            case .unknown(.systemSoundsSuppressed):
                return "unknown: system sounds are suppressed (the app's audio session records), so it cannot be probed"
            case .unknown(.noCompletion): return "unknown: the probe sound never finished playing"
            case .unknown(.soundUnavailable): return "unknown: the probe sound could not be loaded"
            }
        }
        func words(_ category: AudioCategory) -> String {
            switch category {
            case .ambient: "ambient"
            case .soloAmbient: "solo ambient (the default)"
            case .playback: "playback"
            case .record: "record"
            case .playAndRecord: "play and record"
            case .multiRoute: "multi-route"
            }
        }
        // A column of 8, widened (never cut) for a longer time: a trace's uptime clock reads 48213.7723.
        let t =
            time.map { Self.format($0).padded(toLength: max(8, Self.format($0).count)) }
            ?? "        "
        switch kind {
        case .button(let button, let phase): return "\(t) button \(button.rawValue) \(phase.rawValue)"
        case .systemHUD: return "\(t) system HUD shown"
        case .hud(let level, let visible, let bump):
            return "\(t) custom HUD \(visible ? "shows" : "hides") \(Self.format(Double(level)))"
                + (bump.map { " (bump at \($0.rawValue))" } ?? "")
        case .error(let message): return "\(t) error: \(message)"
        case .command(let line): return "\(t) > \(line)"
        case .mute(let state): return "\(t) Ring/Silent switch \(words(state))"
        case .truth(let record): return record.text
        case .diagnostic(let diagnostic): return "\(t) VolumeKit says: \(diagnostic.sentence)"
        case .verdict(let verdict): return verdict.text
        case .end(let volume, let category, let active):
            let session =
                category.map { "the app's audio session: \(words($0)), \(active ? "active" : "inactive")" }
                ?? "app not running"
            return "end      volume \(Self.format(Double(volume))), \(session)"
        }
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 10_000).rounded() / 10_000
        var text = cFormat("%.4f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.append("0") }
        return text
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += cFormat("\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// A scenario run stopped because it would deliver more than ``ScenarioRunner/maximumRecords`` records.
public struct ScenarioLimitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The limit reached.
    public var records: Int

    /// Creates an error.
    public init(records: Int) { self.records = records }

    /// The sentence shown to people.
    public var description: String {
        "stopped after \(records) records, the limit for one run; shorten the script's holds, presses or waits"
    }
}
