#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TraceRecord {
    /// The record as one JSON object: `t`, `type`, the event's fields, then `by` (the feature) if tagged.
    public var json: TraceJSON {
        var members: [TraceJSON.Member] = [.init("t", .number(time)), .init("type", .string(event.typeName))]
        members += event.fields
        if let feature { members.append(.init("by", .string(feature))) }
        return .object(members)
    }

    /// Reads a record from line `line`'s JSON, strictly, as a record of the newest format version
    /// (``TraceHeader/formatVersion``).
    public init(json: TraceJSON, line: Int) throws {
        try self.init(json: json, line: line, version: TraceHeader.formatVersion)
    }

    /// Reads a record of a trace of format `version`: a record type newer than that version is refused.
    init(json: TraceJSON, line: Int, version: Int) throws {
        let fields = try TraceFields(json, line: line)
        time = try fields.number("t")
        guard time.isFinite, time >= 0 else {
            throw fields.invalid("t", "\(time)", expected: "a number of seconds ≥ 0")
        }
        let type = try fields.string("type")
        event = try TraceEvent(type: type, fields, version: version)
        feature = try fields.optionalString("by")
    }
}

extension TraceEvent {
    /// Every record `type` of the format, in the order of `docs/trace.md`.
    public static let typeNames = [
        "kvo", "notification", "lifecycle", "capture", "viewReady", "soundCompleted",
        "subscribe", "unsubscribe", "set", "viewInstall", "viewRemove", "category", "activate", "prime",
        "soundCreate", "soundStart", "soundUI", "soundDispose", "storeWrite",
        "read", "mark", "gesture", "app", "button", "routeDetails", "diagnostic", "interruptionDetails",
    ]

    /// The record's `type`.
    public var typeName: String {
        switch self {
        case .outputVolume: "kvo"
        case .systemNotification: "notification"
        case .lifecycle: "lifecycle"
        case .captureEvent: "capture"
        case .volumeViewReady: "viewReady"
        case .soundCompleted: "soundCompleted"
        case .subscribed: "subscribe"
        case .unsubscribed: "unsubscribe"
        case .setVolume: "set"
        case .volumeViewInstalled: "viewInstall"
        case .volumeViewRemoved: "viewRemove"
        case .setCategory: "category"
        case .setActive: "activate"
        case .primeOutput: "prime"
        case .soundCreated: "soundCreate"
        case .soundStarted: "soundStart"
        case .soundMarkedUISound: "soundUI"
        case .soundDisposed: "soundDispose"
        case .storeWrite: "storeWrite"
        case .read: "read"
        case .mark: "mark"
        case .gesture: "gesture"
        case .app: "app"
        case .buttonEvent: "button"
        case .routeDetails: "routeDetails"
        case .diagnostic: "diagnostic"
        case .interruptionDetails: "interruptionDetails"
        }
    }

    static let lifecycleNames = [
        "didBecomeActive", "willResignActive", "didEnterBackground", "willEnterForeground",
        "interruptionBegan", "interruptionEnded", "routeChanged", "mediaServicesWereReset",
    ]
    static let appStates = ["active", "inactive", "background"]
    static let captureSources = ["primary", "secondary"]
    static let capturePhases = ["began", "ended", "cancelled"]
    static let readings = [
        "outputVolume", "route", "appState", "configuration", "otherAudioPlaying", "captureAvailable", "stored",
        "secondaryAudioShouldBeSilencedHint",
    ]
    static let gestures = ["press", "hold", "other"]

    private static func volume(_ value: Float) -> TraceJSON { .number(Double(value)) }
    private static func optional(_ text: String?) -> TraceJSON { text.map(TraceJSON.string) ?? .null }
    private static func data(_ data: Data?) -> TraceJSON { data.map { .string($0.base64EncodedString()) } ?? .null }

    var fields: [TraceJSON.Member] {
        switch self {
        case .outputVolume(let value, let observer):
            return [.init("value", Self.volume(value)), .init("observer", .number(Double(observer)))]
        case .systemNotification(let notification, let observer):
            let info = notification.userInfo.sorted { $0.key < $1.key }.map {
                TraceJSON.Member($0.key, Self.payload($0.value))
            }
            return [
                .init("name", .string(notification.name)), .init("userInfo", .object(info)),
                .init("observer", .number(Double(observer))),
            ]
        case .lifecycle(let event, let observer):
            var members: [TraceJSON.Member]
            switch event {
            case .didBecomeActive: members = [.init("event", .string("didBecomeActive"))]
            case .willResignActive: members = [.init("event", .string("willResignActive"))]
            case .didEnterBackground: members = [.init("event", .string("didEnterBackground"))]
            case .willEnterForeground: members = [.init("event", .string("willEnterForeground"))]
            case .interruptionBegan: members = [.init("event", .string("interruptionBegan"))]
            case .interruptionEnded(let shouldResume):
                members = [.init("event", .string("interruptionEnded")), .init("shouldResume", .bool(shouldResume))]
            case .routeChanged(let route):
                members = [.init("event", .string("routeChanged")), .init("route", .string(route.rawValue))]
            case .mediaServicesWereReset: members = [.init("event", .string("mediaServicesWereReset"))]
            }
            return members + [.init("observer", .number(Double(observer)))]
        case .captureEvent(let event, let observer):
            return [
                .init("source", .string(event.source.rawValue)), .init("phase", .string(event.phase.rawValue)),
                .init("observer", .number(Double(observer))),
            ]
        case .volumeViewReady(let view):
            return [.init("view", .number(Double(view)))]
        case .soundCompleted(let play):
            return [.init("play", .number(Double(play)))]
        case .subscribed(let channel, let observer), .unsubscribed(let channel, let observer):
            return [.init("channel", .string(channel.rawValue)), .init("observer", .number(Double(observer)))]
        case .setVolume(let value, let view):
            return [.init("value", Self.volume(value)), .init("view", view.map { .number(Double($0)) } ?? .null)]
        case .volumeViewInstalled(let view), .volumeViewRemoved(let view):
            return [.init("view", .number(Double(view)))]
        case .setCategory(let configuration, let error):
            return [.init("session", TraceHeader.json(configuration)), .init("error", Self.optional(error))]
        case .setActive(let active, let notifyOthers, let error):
            return [
                .init("active", .bool(active)), .init("notifyOthers", .bool(notifyOthers)),
                .init("error", Self.optional(error)),
            ]
        case .primeOutput:
            return []
        case .soundCreated(let file, let sound, let status):
            return [
                .init("file", .string(file)), .init("sound", sound.map { .number(Double($0)) } ?? .null),
                .init("status", status.map { .number(Double($0)) } ?? .null),
            ]
        case .soundStarted(let sound, let alert, let play):
            return [
                .init("sound", .number(Double(sound))), .init("alert", .bool(alert)),
                .init("play", .number(Double(play))),
            ]
        case .soundMarkedUISound(let sound, let isUISound):
            return [.init("sound", .number(Double(sound))), .init("isUISound", .bool(isUISound))]
        case .soundDisposed(let sound):
            return [.init("sound", .number(Double(sound)))]
        case .storeWrite(let key, let data):
            return [.init("key", .string(key)), .init("data", Self.data(data))]
        case .read(let reading):
            switch reading {
            case .outputVolume(let value):
                return [.init("what", .string("outputVolume")), .init("value", Self.volume(value))]
            case .route(let route): return [.init("what", .string("route")), .init("value", .string(route.rawValue))]
            case .appState(let state):
                return [.init("what", .string("appState")), .init("value", .string(state.rawValue))]
            case .configuration(let configuration):
                return [.init("what", .string("configuration")), .init("value", TraceHeader.json(configuration))]
            case .otherAudioPlaying(let playing):
                return [.init("what", .string("otherAudioPlaying")), .init("value", .bool(playing))]
            case .captureAvailable(let available):
                return [.init("what", .string("captureAvailable")), .init("value", .bool(available))]
            case .secondaryAudioShouldBeSilencedHint(let hint):
                return [.init("what", .string("secondaryAudioShouldBeSilencedHint")), .init("value", .bool(hint))]
            case .stored(let key, let data):
                return [.init("what", .string("stored")), .init("key", .string(key)), .init("value", Self.data(data))]
            }
        case .mark(let text, let answer):
            return [.init("text", .string(text))] + (answer.map { [.init("answer", .string($0 ? "yes" : "no"))] } ?? [])
        case .gesture(let gesture):
            switch gesture {
            case .press(let button):
                return [.init("action", .string("press")), .init("button", .string(button.rawValue))]
            case .hold(let button, let seconds):
                return [
                    .init("action", .string("hold")), .init("button", .string(button.rawValue)),
                    .init("seconds", .number(seconds)),
                ]
            case .other(let text): return [.init("action", .string("other")), .init("text", .string(text))]
            }
        case .app(let feature, let call):
            return [.init("feature", .string(feature)), .init("call", .string(call))]
        case .buttonEvent(let button, let phase):
            return [.init("button", .string(button.rawValue)), .init("phase", .string(phase.rawValue))]
        case .routeDetails(let reason, let ports):
            return [
                .init("reason", .string(reason)),
                .init(
                    "ports",
                    .array(
                        ports.map {
                            .object([.init("type", .string($0.type)), .init("uid", .string($0.uid))])
                        })),
            ]
        case .diagnostic(let diagnostic):
            return Self.fields(of: diagnostic)
        case .interruptionDetails(let details, let observer):
            return Self.fields(of: details, observer: observer)
        }
    }

    static func payload(_ value: PayloadValue) -> TraceJSON {
        switch value {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .other(let text): .object([.init("other", .string(text))])
        }
    }

    // MARK: - Reading

    init(type: String, _ fields: TraceFields, version: Int) throws {
        switch type {
        case "kvo":
            self = .outputVolume(try fields.float("value"), observer: try fields.integer("observer"))
        case "notification":
            let info = try fields.object("userInfo")
            guard case .object(let members) = info.json else {
                throw fields.wrongType("userInfo", "an object", info.json)
            }
            var userInfo: [String: PayloadValue] = [:]
            for member in members { userInfo[member.key] = try Self.payload(member.value, key: member.key, info) }
            self = .systemNotification(
                SystemVolumeNotification(name: try fields.string("name"), userInfo: userInfo),
                observer: try fields.integer("observer"))
        case "lifecycle":
            let observer = try fields.integer("observer")
            let event: AppLifecycleEvent
            switch try fields.choice("event", among: Self.lifecycleNames) {
            case "didBecomeActive": event = .didBecomeActive
            case "willResignActive": event = .willResignActive
            case "didEnterBackground": event = .didEnterBackground
            case "willEnterForeground": event = .willEnterForeground
            case "interruptionBegan": event = .interruptionBegan
            case "interruptionEnded": event = .interruptionEnded(shouldResume: try fields.bool("shouldResume"))
            case "mediaServicesWereReset": event = .mediaServicesWereReset
            default: event = .routeChanged(try fields.choice("route", AudioRoute.self))
            }
            self = .lifecycle(event, observer: observer)
        case "capture":
            let source = CaptureEventSource(rawValue: try fields.choice("source", among: Self.captureSources))!
            let phase = CaptureEventPhase(rawValue: try fields.choice("phase", among: Self.capturePhases))!
            self = .captureEvent(CaptureEvent(source: source, phase: phase), observer: try fields.integer("observer"))
        case "viewReady": self = .volumeViewReady(view: try fields.integer("view"))
        case "soundCompleted": self = .soundCompleted(play: try fields.integer("play"))
        case "subscribe":
            self = .subscribed(
                try fields.choice("channel", TraceChannel.self), observer: try fields.integer("observer"))
        case "unsubscribe":
            self = .unsubscribed(
                try fields.choice("channel", TraceChannel.self), observer: try fields.integer("observer"))
        case "set": self = .setVolume(try fields.float("value"), view: try fields.optionalInteger("view"))
        case "viewInstall": self = .volumeViewInstalled(view: try fields.integer("view"))
        case "viewRemove": self = .volumeViewRemoved(view: try fields.integer("view"))
        case "category":
            self = .setCategory(
                try TraceHeader.configuration(from: try fields.object("session")),
                error: try fields.optionalString("error"))
        case "activate":
            self = .setActive(
                try fields.bool("active"), notifyOthers: try fields.bool("notifyOthers"),
                error: try fields.optionalString("error"))
        case "prime": self = .primeOutput
        case "soundCreate":
            let sound = try fields.optionalInteger("sound")
            let status = try fields.optionalInteger("status")
            guard (sound == nil) != (status == nil) else {
                throw fields.invalid(
                    "sound", sound.map(String.init) ?? "null",
                    expected: "a sound ID or a status, exactly one of the two")
            }
            self = .soundCreated(
                file: try fields.string("file"), sound: try sound.map { try Self.soundID($0, fields) },
                status: try status.map { try Self.status($0, fields) })
        case "soundStart":
            self = .soundStarted(
                sound: try Self.soundID(try fields.integer("sound"), fields), alert: try fields.bool("alert"),
                play: try fields.integer("play"))
        case "soundUI":
            self = .soundMarkedUISound(
                sound: try Self.soundID(try fields.integer("sound"), fields), isUISound: try fields.bool("isUISound"))
        case "soundDispose": self = .soundDisposed(sound: try Self.soundID(try fields.integer("sound"), fields))
        case "storeWrite": self = .storeWrite(key: try fields.string("key"), data: try Self.data("data", fields))
        case "read":
            switch try fields.choice("what", among: Self.readings) {
            case "outputVolume": self = .read(.outputVolume(try fields.float("value")))
            case "route": self = .read(.route(try fields.choice("value", AudioRoute.self)))
            case "appState":
                self = .read(.appState(AppState(rawValue: try fields.choice("value", among: Self.appStates))!))
            case "configuration":
                self = .read(.configuration(try TraceHeader.configuration(from: try fields.object("value"))))
            case "otherAudioPlaying": self = .read(.otherAudioPlaying(try fields.bool("value")))
            case "captureAvailable": self = .read(.captureAvailable(try fields.bool("value")))
            case "secondaryAudioShouldBeSilencedHint":
                try Self.requireFormat(
                    Self.interruptionDetailsVersion, fields, version: version, field: "what",
                    value: "secondaryAudioShouldBeSilencedHint", kind: "a read",
                    plural: "secondaryAudioShouldBeSilencedHint reads")
                self = .read(.secondaryAudioShouldBeSilencedHint(try fields.bool("value")))
            default: self = .read(.stored(key: try fields.string("key"), data: try Self.data("value", fields)))
            }
        case "mark":
            let answer = try fields.optionalString("answer")
            guard answer == nil || answer == "yes" || answer == "no" else {
                throw fields.invalid("answer", TraceFields.quoted(answer!), expected: "\"yes\" or \"no\"")
            }
            self = .mark(try fields.string("text"), answer: answer.map { $0 == "yes" })
        case "gesture":
            switch try fields.choice("action", among: Self.gestures) {
            case "press": self = .gesture(.press(try fields.choice("button", VolumeButton.self)))
            case "hold":
                let seconds = try fields.number("seconds")
                guard seconds.isFinite, seconds >= 0 else {
                    throw fields.invalid("seconds", "\(seconds)", expected: "a number of seconds ≥ 0")
                }
                self = .gesture(.hold(try fields.choice("button", VolumeButton.self), seconds: seconds))
            default: self = .gesture(.other(try fields.string("text")))
            }
        case "app":
            self = .app(
                feature: try fields.string("feature"), call: try fields.choice("call", among: ["start", "stop"]))
        case "button":
            self = .buttonEvent(
                try fields.choice("button", VolumeButton.self), try fields.choice("phase", ButtonPhase.self))
        case "routeDetails":
            var ports: [TracePort] = []
            for port in try fields.array("ports") {
                let portFields = try TraceFields(port, line: fields.line, path: "ports[\(ports.count)]")
                ports.append(TracePort(type: try portFields.string("type"), uid: try portFields.string("uid")))
            }
            self = .routeDetails(reason: try fields.string("reason"), ports: ports)
        case "diagnostic":
            // A trace that says it is of an older format cannot hold one: its reader would not know the record.
            try Self.requireFormat(
                Self.diagnosticVersion, fields, version: version, field: "type", value: type, kind: "a record type",
                plural: "diagnostic records")
            self = .diagnostic(try Self.diagnostic(fields))
        case "interruptionDetails":
            try Self.requireFormat(
                Self.interruptionDetailsVersion, fields, version: version, field: "type", value: type,
                kind: "a record type", plural: "interruptionDetails records")
            self = try Self.interruptionDetails(fields)
        default:
            throw TraceError(line: fields.line, .unknownRecordType(type))
        }
    }

    static func payload(_ value: TraceJSON, key: String, _ info: TraceFields) throws -> PayloadValue {
        switch value {
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .object:
            let fields = try TraceFields(value, line: info.line, path: "userInfo.\(EchoedText.clean(key))")
            return .other(try fields.string("other"))
        default:
            throw info.wrongType(key, "a string, a number or {\"other\": …}", value)
        }
    }

    private static func soundID(_ value: Int, _ fields: TraceFields) throws -> SystemSoundID {
        guard let id = SystemSoundID(exactly: value) else {
            throw fields.invalid("sound", "\(value)", expected: "a sound ID (0…\(UInt32.max))")
        }
        return id
    }

    private static func status(_ value: Int, _ fields: TraceFields) throws -> Int32 {
        guard let status = Int32(exactly: value) else {
            throw fields.invalid("status", "\(value)", expected: "an OSStatus (a 32-bit integer)")
        }
        return status
    }

    private static func data(_ key: String, _ fields: TraceFields) throws -> Data? {
        guard let text = try fields.optionalString(key) else { return nil }
        guard let data = Data(base64Encoded: text) else {
            throw fields.invalid(key, TraceFields.quoted(text), expected: "base64 data or null")
        }
        return data
    }
}
