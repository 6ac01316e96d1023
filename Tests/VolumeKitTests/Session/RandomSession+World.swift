import Foundation
import VolumeKitCore
import VolumeKitTesting

/// The wider world of the randomized sessions (issue 22, item 4): besides the earlier world's presses, holds,
/// sliders, app switches, interruptions, calls, speaker ↔ headphones and crashes, a session also draws the iPad
/// and iOS 18, Bluetooth (with the headset's own volume synced after it connects), AirPlay and receiver routes,
/// a headset's buttons, Headphone Safety turning the volume down, session takeovers (camera, player, web view),
/// the app's camera session, Siri, alarms with and without an end, a media-services reset and Control Center
/// drags.
///
/// Everything here is drawn from the session's own world generator (``RandomSession/world``), seeded apart from
/// the earlier world's: the earlier draws and actions stay the same, with world actions between them.
///
/// What each does to the user's volume (``RandomSession/truth``, kept by `followTruth` from the device's log):
/// - a headset's press is a press (a `.button` change): the user's volume moves by it unless VolumeKit holds the
///   volume, as with a side button — VolumeKit cannot tell the two apart (the same `ExplicitVolumeChange`, on
///   the grid or at the headset's own level);
/// - a Bluetooth sync (on connect, or now) and Headphone Safety's lowering set the user's volume on that route,
///   whether or not VolumeKit holds it (an `.otherSource` change, as a Control Center change);
/// - a Control Center drag sets it, as the slider does; a route change makes the new route's own volume current;
/// - takeovers, the camera, Siri, alarms and a media reset change no volume themselves.
/// A session uses one Bluetooth headset (``SimulatedDevice/defaultBluetoothPort``): `truth` keeps one volume per
/// route, and another headset would be another volume on the same route.
extension RandomSession {
    /// The world generator of the session with `seed`: seeded apart from the earlier world's.
    static func worldRandom(_ seed: UInt64) -> SeededRandom {
        SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 ^ 0x0077_6F72_6C64_0022)
    }

    /// The device of the session with `seed` (`nil`: of the earlier world, as drawn), and its world generator: one
    /// session in four on iOS 18.2 instead of the earlier world's version, one in five on an iPad.
    static func worldDevice(_ version: OSVersion, seed: UInt64?) -> (OSVersion, DeviceKind, SeededRandom?) {
        guard let seed else { return (version, .iphone, nil) }
        var random = worldRandom(seed)
        let ios = random.index(below: 4) == 0 ? OSVersion(18, 2) : version
        return (ios, random.index(below: 5) == 0 ? .ipad : .iphone, random)
    }

    /// Volumes a Bluetooth headset may keep itself, on and off the grid.
    private static let storedVolumes: [Float] = [0.1, 0.25, 0.4, 0.5, 0.6875, 0.8, 1]

    /// Before each of the earlier world's actions: one of the wider world's, one time in three (none in a session
    /// of the earlier world).
    func worldTurn() {
        guard var random = world else { return }
        defer { world = random }
        guard random.index(below: 3) == 0 else { return }
        let headset = device.route == .headphones || device.route == .bluetooth
        switch random.index(below: 100) {
        case 0..<16 where headset: headsetPresses(&random)
        case 0..<30: worldRoute(&random)
        case 30..<36 where device.route == .bluetooth:
            let value = Self.storedVolumes[random.index(below: Self.storedVolumes.count)]
            act("bluetooth sync \(value)", wait: 0.2) { $0.bluetoothSync(value) }
        case 30..<42 where headset:
            act("safety lower", wait: 0.2) { $0.headphoneSafetyLowering() }
        case 30..<54:
            let component = SessionComponent.allCases[random.index(below: SessionComponent.allCases.count)]
            act("takeover \(component == .webView ? "webview" : component.rawValue)", wait: 0.3) {
                $0.takeOverSession(by: component)
            }
        case 54..<62:
            let running = device.isCameraRunning
            act(running ? "camera stop" : "camera start", wait: 0.3) {
                if running { $0.stopCamera() } else { $0.startCamera() }
            }
        case 62..<72:
            let seconds = seconds(0.3...2, &random)
            act("siri \(seconds)", wait: seconds + 0.2, replayedWait: 0.2) { $0.siri(for: seconds) }
        case 72..<82:
            let seconds = seconds(0.5...3, &random)
            let sendsEnd = random.index(below: 2) == 0
            act("alarm \(seconds)\(sendsEnd ? "" : " noend")", wait: seconds + 0.2, replayedWait: 0.2) {
                $0.alarm(for: seconds, sendsEnd: sendsEnd)
            }
        case 82..<88:
            act("media reset", wait: 0.3) { $0.resetMediaServices() }
        default:
            let value = Float(random.index(below: 101)) / 100
            act("drag \(value)", wait: device.controlCenterTime(drag: .series) + 0.1, replayedWait: 0.1) {
                $0.controlCenterDrag(value)
            }
        }
    }

    /// Audio moves to Bluetooth (half the time a headset whose own volume iOS takes after it connects), AirPlay or
    /// the receiver — whichever is not current.
    private func worldRoute(_ random: inout SeededRandom) {
        let routes = [AudioRoute.bluetooth, .external, .receiver].filter { $0 != device.route }
        let route = routes[random.index(below: routes.count)]
        let stored =
            route == .bluetooth && random.index(below: 2) == 0
            ? Self.storedVolumes[random.index(below: Self.storedVolumes.count)] : nil
        let line =
            stored.map { "bluetooth connect \($0)" } ?? "route \(route == .external ? "airplay" : route.rawValue)"
        act(line, wait: 0.3) { [self] device in
            if let stored { device.connectBluetooth(syncingTo: stored) } else { device.connect(route) }
            routeSince[route] = device.now
        }
    }

    /// One to four presses of the headset's own buttons.
    private func headsetPresses(_ random: inout SeededRandom) {
        let count = 1 + random.index(below: 4)
        let every = Double(10 + random.index(below: 41)) / 100
        let button: VolumeButton = random.index(below: 2) == 0 ? .up : .down
        act("headset \(button) x\(count) every \(every)") { device in
            for _ in 0..<count {
                device.headsetPress(button)
                device.advance(by: every)
            }
            device.advance(by: 0.1)
        }
        script.append("wait 0.1")
    }

    /// A time drawn from `range`, in hundredths of a second.
    private func seconds(_ range: ClosedRange<Double>, _ random: inout SeededRandom) -> Double {
        let lower = Int((range.lowerBound * 100).rounded())
        let steps = Int((range.upperBound * 100).rounded()) - lower
        return Double(lower + random.index(below: steps + 1)) / 100
    }
}
