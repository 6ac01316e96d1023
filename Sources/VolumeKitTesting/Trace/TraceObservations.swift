import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a trace shows, reduced for the fitter: the volume stream (each KVO value once, whichever observers
/// received it; the private notification when no KVO was recorded), the sets, the app's listening and
/// active intervals, route changes, views, gestures and capture events.
struct TraceObservations {
    struct Sample: Hashable {
        let time: Double
        let value: Float
    }

    /// A change of the volume not explained by the app's sets: a button press or auto-repeat.
    struct Move {
        let time: Double
        let previous: Float
        let value: Float
        var delta: Double { Double(value) - Double(previous) }
        /// The press hit a rail, so the move is shorter than a step.
        var clamped: Bool { value == 0 || value == 1 }
    }

    struct Snapshot {
        let time: Double
        let listening: Bool
        let active: Bool
        /// Counts the times listening started: two samples in the same epoch saw every change between them.
        let epoch: Int
    }

    private(set) var stream: [Sample] = []
    /// The index in the trace of each ``stream`` sample's record: at equal times, the record order says what
    /// came first.
    var streamOrder: [Int] = []
    private(set) var sets: [Sample] = []
    private(set) var routes: [Double] = []
    /// The index in the trace of each route change's record.
    var routeOrder: [Int] = []
    var snapshots: [Snapshot] = []
    var installs: [Int: Double] = [:]
    /// The volume view each of ``sets`` was made through.
    var setViews: [Int?] = []
    /// The app's reads of the volume (`outputVolume` read, not observed): what the volume was before any KVO.
    var volumeReads: [Sample] = []
    var gestures: [(time: Double, gesture: TraceGesture?)] = []
    var captures: [(time: Double, event: CaptureEvent)] = []
    var playStarts: [Int: Double] = [:]
    var playEnds: [Int: Double] = [:]
    /// Each time the route the app read differed from the one it read before: the app's own view of a route
    /// change, notified or not (the new route and the time of the first read of it).
    var routeReads: [(time: Double, route: AudioRoute, since: Double)] = []
    /// The route each route-change notification named, by its time.
    var notifiedRoutes: [(time: Double, route: AudioRoute)] = []
    /// The trace's iOS version (the down-press refusal exists from iOS 11).
    let osVersion: OSVersion

    init(_ trace: Trace) {
        let usesKVO = trace.records.contains { if case .outputVolume = $0.event { true } else { false } }
        let channel: TraceChannel = usesKVO ? .outputVolume : .systemNotifications
        var seen = Set<Sample>()
        var seenRoutes = Set<Double>()
        var seenCaptures = Set<String>()
        var subscribers = 0
        var sessionActive = true
        var state: AppState?
        var epoch = 0
        var wasListening = false
        var lastRead: (time: Double, route: AudioRoute)?
        osVersion = trace.header.osVersion
        func snapshot(_ time: Double) {
            let listening = subscribers > 0 && sessionActive && state != .background
            if listening, !wasListening { epoch += 1 }
            wasListening = listening
            snapshots.append(
                Snapshot(time: time, listening: listening, active: (state ?? .active) == .active, epoch: epoch))
        }
        for (order, record) in trace.records.enumerated() {
            let time = record.time
            switch record.event {
            case .outputVolume(let value, _):
                let sample = Sample(time: time, value: value)
                if seen.insert(sample).inserted {
                    stream.append(sample)
                    streamOrder.append(order)
                }
            case .systemNotification(let notification, _) where !usesKVO:
                guard let parsed = try? notification.parse(),
                    parsed.reason == .explicitVolumeChange || parsed.reason == .routeChange
                else { break }
                let sample = Sample(time: time, value: parsed.volume)
                if seen.insert(sample).inserted {
                    stream.append(sample)
                    streamOrder.append(order)
                }
            case .setVolume(let value, let view):
                sets.append(Sample(time: time, value: value))
                setViews.append(view)
            case .subscribed(channel, _):
                subscribers += 1
                snapshot(time)
            case .unsubscribed(channel, _):
                subscribers -= 1
                snapshot(time)
            case .setActive(let active, _, nil):
                sessionActive = active
                snapshot(time)
            case .read(.appState(let appState)) where state == nil:
                state = appState
                snapshot(time)
            case .lifecycle(let event, _):
                switch event {
                case .willResignActive: state = .inactive
                case .didBecomeActive: state = .active
                case .didEnterBackground: state = .background; sessionActive = false
                case .willEnterForeground: state = .inactive
                case .interruptionBegan, .mediaServicesWereReset: sessionActive = false
                case .interruptionEnded: break
                case .routeChanged(let route):
                    if notifiedRoutes.last.map({ $0.time != time || $0.route != route }) ?? true {
                        notifiedRoutes.append((time, route))
                    }
                    if seenRoutes.insert(time).inserted {
                        routes.append(time)
                        routeOrder.append(order)
                    }
                }
                snapshot(time)
            case .read(.outputVolume(let value)):
                volumeReads.append(Sample(time: time, value: value))
            case .read(.route(let route)):
                if let lastRead, lastRead.route != route { routeReads.append((time, route, lastRead.time)) }
                lastRead = (time, route)
            case .volumeViewInstalled(let view): installs[view] = time
            case .gesture(let gesture): gestures.append((time, gesture))
            case .mark, .app: gestures.append((time, nil))
            case .soundStarted(_, _, let play): playStarts[play] = time
            case .soundCompleted(let play): playEnds[play] = playEnds[play] ?? time
            case .captureEvent(let event, _):
                if seenCaptures.insert("\(time) \(event.source.rawValue) \(event.phase.rawValue)").inserted {
                    captures.append((time, event))
                }
            default: break
            }
        }
    }

    func state(at time: Double) -> Snapshot? {
        var low = 0
        var high = snapshots.count
        while low < high {
            let middle = (low + high) / 2
            if snapshots[middle].time <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : snapshots[low - 1]
    }

    /// The last stream value strictly before `time`.
    func volume(before time: Double) -> Float? {
        var low = 0
        var high = stream.count
        while low < high {
            let middle = (low + high) / 2
            if stream[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : stream[low - 1].value
    }

    func firstStreamIndex(atOrAfter time: Double) -> Int {
        var low = 0
        var high = stream.count
        while low < high {
            let middle = (low + high) / 2
            if stream[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
