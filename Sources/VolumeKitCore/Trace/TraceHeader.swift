#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a trace came from. Only a trace recorded on real hardware may say ``device``; traces made by
/// `SimulatedDevice` say ``simulator`` so that a synthetic fixture is never mistaken for evidence of how
/// iOS behaves.
public enum TraceSource: String, Sendable, Equatable, CaseIterable {
    /// Recorded by the simulated device on Linux (synthetic).
    case simulator
    /// Recorded on an iPhone or iPad.
    case device
}

/// The first line of a trace: what format it is, and the device, OS, VolumeKit and app configuration it was
/// recorded with (`docs/trace.md`).
public struct TraceHeader: Sendable, Equatable {
    /// The `format` every VolumeKit trace header carries.
    public static let formatName = "volumekit-trace"
    /// The format version this VolumeKit writes: the newest it reads (``readableVersions``).
    public static let formatVersion = 3
    /// Every format version this VolumeKit reads: 1 (the first), 2 (adds `diagnostic` records), 3 (adds
    /// `interruptionDetails` records and `secondaryAudioShouldBeSilencedHint` reads). Diagnostic names grow
    /// within a version (`outsideEnvelope` came with the calibration): a reader that does not know one refuses
    /// the record with a sentence naming it.
    public static let readableVersions = 1...formatVersion

    /// Simulator or device.
    public var source: TraceSource
    /// The hardware model identifier (`utsname.machine`, e.g. `iPhone15,2`), or `simulator`.
    public var deviceModel: String
    /// iPhone or iPad.
    public var deviceKind: DeviceKind
    /// The iOS version.
    public var osVersion: OSVersion
    /// The VolumeKit version that recorded the trace.
    public var volumeKitVersion: String
    /// The app's audio session category and options while recording.
    public var session: AudioSessionConfiguration
    /// The session mode (`AVAudioSession.Mode`, e.g. `default`, `videoRecording`).
    public var sessionMode: String
    /// The button strategy the app ran (``ButtonStrategy`` raw value), or `none` when it captured no buttons.
    public var strategy: String
    /// Capture or passive (``ButtonCaptureMode`` raw value).
    public var buttonMode: ButtonCaptureMode
    /// The engine's configured headroom (``VolumeButtonsConfiguration/headroomSteps``): the least it keeps;
    /// ``HeadroomPolicy`` may hold more.
    public var headroomSteps: Int
    /// How the engine grew its headroom with the measured round trip (``VolumeButtonsConfiguration/headroomPolicy``):
    /// a replay runs the same policy. `nil` in traces written before it was recorded (a replay then runs the
    /// default policy).
    public var headroomPolicy: HeadroomPolicy?
    /// The recording clock's reading at time 0 of the trace (seconds of uptime): record times are relative
    /// to it, and a replay's clock starts there so that uptime-based rules see the same values.
    public var clockOrigin: Instant
    /// A free note: the script, the sample, the person who ran the field check.
    public var note: String?

    /// Creates a header.
    public init(
        source: TraceSource,
        deviceModel: String,
        deviceKind: DeviceKind,
        osVersion: OSVersion,
        volumeKitVersion: String,
        session: AudioSessionConfiguration = .playbackMixing,
        sessionMode: String = "default",
        strategy: String = ButtonStrategy.outputVolume.rawValue,
        buttonMode: ButtonCaptureMode = .capture,
        headroomSteps: Int = 2,
        clockOrigin: Instant = 0,
        note: String? = nil
    ) {
        self.source = source
        self.deviceModel = deviceModel
        self.deviceKind = deviceKind
        self.osVersion = osVersion
        self.volumeKitVersion = volumeKitVersion
        self.session = session
        self.sessionMode = sessionMode
        self.strategy = strategy
        self.buttonMode = buttonMode
        self.headroomSteps = headroomSteps
        self.clockOrigin = clockOrigin
        self.note = note
    }

    /// A header describing a button engine's configuration on the given device.
    public init(
        source: TraceSource,
        deviceModel: String,
        device: DeviceInfo,
        volumeKitVersion: String,
        buttons configuration: VolumeButtonsConfiguration,
        sessionMode: String = "default",
        note: String? = nil
    ) {
        self.init(
            source: source, deviceModel: deviceModel, deviceKind: device.kind, osVersion: device.osVersion,
            volumeKitVersion: volumeKitVersion, session: configuration.session, sessionMode: sessionMode,
            strategy: configuration.strategy.rawValue, buttonMode: configuration.mode,
            headroomSteps: configuration.headroomSteps, note: note
        )
        headroomPolicy = configuration.headroomPolicy
    }

    // MARK: - JSON

    var json: TraceJSON {
        var members: [TraceJSON.Member] = [
            .init("format", .string(Self.formatName)),
            .init("version", .number(Double(Self.formatVersion))),
            .init("source", .string(source.rawValue)),
            .init(
                "device",
                .object([
                    .init("model", .string(deviceModel)),
                    .init("kind", .string(deviceKind.rawValue)),
                    .init("os", .string(osVersion.description)),
                ])),
            .init("volumeKit", .string(volumeKitVersion)),
            .init("session", Self.json(session, mode: sessionMode)),
            .init("strategy", .string(strategy)),
            .init("buttonMode", .string(buttonMode.rawValue)),
            .init("headroomSteps", .number(Double(headroomSteps))),
        ]
        if let headroomPolicy {
            members.append(
                .init(
                    "headroomPolicy",
                    .object([
                        .init("burstSpacing", .number(headroomPolicy.burstSpacing)),
                        .init("maximumSteps", .number(Double(headroomPolicy.maximumSteps))),
                    ])))
        }
        members.append(.init("clockOrigin", .number(clockOrigin)))
        if let note { members.append(.init("note", .string(note))) }
        return .object(members)
    }

    init(json: TraceJSON, line: Int) throws {
        guard case .object = json else { throw TraceError(line: line, .notAnObject(found: json.kindName)) }
        guard case .string(let format)? = json["format"] else { throw TraceError(line: line, .notATrace(format: nil)) }
        guard format == Self.formatName else { throw TraceError(line: line, .notATrace(format: format)) }
        let fields = try TraceFields(json, line: line)
        // The version is checked before anything else it might change.
        guard let versionValue = json["version"], versionValue != .null else {
            throw TraceError(line: line, .missingField("version"))
        }
        guard case .number(let version) = versionValue else {
            throw fields.wrongType("version", "a whole number", versionValue)
        }
        guard version == version.rounded(), Self.readableVersions.contains(Int(exactly: version) ?? -1) else {
            let text = version == version.rounded() && abs(version) < 1e15 ? String(Int64(version)) : "\(version)"
            throw TraceError(line: line, .unsupportedVersion(text, supported: Self.formatVersion))
        }
        source = try fields.choice("source", TraceSource.self)
        let device = try fields.object("device")
        deviceModel = try device.string("model")
        deviceKind = try device.choice("kind", DeviceKind.self)
        let os = try device.string("os")
        guard let osVersion = OSVersion(parsing: os) else {
            throw device.invalid("os", TraceFields.quoted(os), expected: "an iOS version such as \"17.4\"")
        }
        self.osVersion = osVersion
        volumeKitVersion = try fields.string("volumeKit")
        let session = try fields.object("session")
        (self.session, sessionMode) = try Self.session(from: session)
        strategy = try fields.string("strategy")
        buttonMode = try fields.choice("buttonMode", ButtonCaptureMode.self)
        headroomSteps = try fields.integer("headroomSteps")
        guard (0...8).contains(headroomSteps) else {
            throw fields.invalid("headroomSteps", "\(headroomSteps)", expected: "0…8")
        }
        headroomPolicy = try Self.headroomPolicy(in: fields)
        clockOrigin = try fields.number("clockOrigin")
        if let problem = Self.originProblem(clockOrigin) { throw TraceError(line: line, problem) }
        note = try fields.optionalString("note")
    }

    /// The optional `headroomPolicy` object: a burst spacing of 0…1 s, at most 0…8 steps.
    static func headroomPolicy(in fields: TraceFields) throws -> HeadroomPolicy? {
        guard fields.has("headroomPolicy") else { return nil }
        let policy = try fields.object("headroomPolicy")
        let spacing = try policy.number("burstSpacing")
        guard spacing.isFinite, (0...1).contains(spacing) else {
            throw policy.invalid("burstSpacing", "\(spacing)", expected: "0…1 s")
        }
        let steps = try policy.integer("maximumSteps")
        guard (0...8).contains(steps) else { throw policy.invalid("maximumSteps", "\(steps)", expected: "0…8") }
        return HeadroomPolicy(burstSpacing: spacing, maximumSteps: steps)
    }

    /// Why `origin` cannot be a trace's clock origin (not finite, or beyond ``Trace/latestTime``), or `nil`.
    static func originProblem(_ origin: Double) -> TraceError.Problem? {
        guard !origin.isFinite || abs(origin) >= Trace.latestTime else { return nil }
        return .invalidValue(
            field: "clockOrigin", value: "\(origin)",
            expected:
                "a number of seconds below 8589934592 (2^33 s, about 272 years of uptime); beyond it a time cannot hold a microsecond"
        )
    }

    /// The names of ``AudioCategoryOptions`` as `AVAudioSession.CategoryOptions` spells them.
    static let optionNames: [(String, AudioCategoryOptions)] = [
        ("mixWithOthers", .mixWithOthers),
        ("duckOthers", .duckOthers),
        ("allowBluetooth", .allowBluetooth),
        ("defaultToSpeaker", .defaultToSpeaker),
        ("interruptSpokenAudioAndMixWithOthers", .interruptSpokenAudioAndMixWithOthers),
        ("allowBluetoothA2DP", .allowBluetoothA2DP),
        ("allowAirPlay", .allowAirPlay),
    ]

    static func json(_ configuration: AudioSessionConfiguration, mode: String? = nil) -> TraceJSON {
        var members: [TraceJSON.Member] = [
            .init("category", .string(configuration.category.rawValue)),
            .init("options", .array(optionNames.filter { configuration.options.contains($0.1) }.map { .string($0.0) })),
            .init("allowsSystemSoundsDuringRecording", .bool(configuration.allowsSystemSoundsDuringRecording)),
        ]
        if let mode { members.append(.init("mode", .string(mode))) }
        return .object(members)
    }

    static func configuration(from fields: TraceFields) throws -> AudioSessionConfiguration {
        let category = try fields.choice("category", AudioCategory.self)
        var options: AudioCategoryOptions = []
        for value in try fields.array("options") {
            guard case .string(let name) = value else {
                throw fields.wrongType("options", "an array of option names", value)
            }
            guard let option = optionNames.first(where: { $0.0 == name })?.1 else {
                throw fields.invalid(
                    "options", TraceFields.quoted(name),
                    expected: "one of " + optionNames.map { "\"\($0.0)\"" }.joined(separator: ", "))
            }
            options.insert(option)
        }
        let allows = try fields.bool("allowsSystemSoundsDuringRecording")
        return AudioSessionConfiguration(
            category: category, options: options, allowsSystemSoundsDuringRecording: allows)
    }

    private static func session(from fields: TraceFields) throws -> (AudioSessionConfiguration, String) {
        (try configuration(from: fields), try fields.string("mode"))
    }
}
