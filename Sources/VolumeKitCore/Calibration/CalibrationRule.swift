#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A rule of the iPhone VolumeKit learns while it runs, named as `volumekit profiles` names the simulator's
/// rules — plus ``roundTrip``, the set → KVO time that the simulator splits into `sliderLatency` and
/// `kvoLatency` — so one set of names serves the calibration, `trace fit` and the envelope.
///
/// Each timed rule has the envelope's range (`shared/facts/envelope.md`): a measurement inside is used, one
/// outside is kept apart and reported, never used — it is news of a phone the envelope does not cover.
public enum CalibrationRule: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// From VolumeKit's set to its KVO: the slider's latency plus KVO's (0.005–0.15 s and 0–0.03 s; decompiled
    /// MediaPlayer iOS 18.2: two async hops and a cross-process call).
    case roundTrip
    /// From a held button going down to its first auto-repeat step (0.3–0.7 s; SLVolumeButtonListener.m).
    case firstRepeatDelay
    /// Between a hold's later auto-repeat steps (0.06–0.2 s; SLVolumeButtonListener.m).
    case repeatInterval
    /// How long a button stays down for one press, as capture events show it (0.04–0.15 s; a human tap).
    case tapLength
    /// Between a route change's notification and its KVO, in either order (0–0.02 s; `shared/facts/envelope.md`).
    case routeNotificationGap

    /// Whether the rule may take another value on each audio route, and is learned on each route apart as well as
    /// over all of them: the round trip — a set on a Bluetooth route is carried on to the headset as absolute volume
    /// (AVRCP 1.4 `SetAbsoluteVolume`), one on AirPlay to the receiver, so the KVO may come later there than on the
    /// speaker (no measurement of it is known: the envelope's range stays the same). The buttons' rhythm and a tap's
    /// length belong to the phone's keys, the notification gap to one change of route: learned once.
    public var isPerRoute: Bool { self == .roundTrip }

    /// The envelope's range for the rule, in seconds.
    public var range: ClosedRange<Double> {
        switch self {
        case .roundTrip: 0.005...0.18
        case .firstRepeatDelay: 0.3...0.7
        case .repeatInterval: 0.06...0.2
        case .tapLength: 0.04...0.15
        case .routeNotificationGap: 0...0.02
        }
    }
}

/// How a press moves the volume (`stepQuantization` in `volumekit profiles`): exactly 1/16 from the value, to
/// the 1/16 grid, or with rounded reads (seed 002; koze.hatenablog.jp, iOS 8.3; Apple forums thread 756484).
public enum StepQuantization: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// 1/16 from the value before the press.
    case exact
    /// Onto the nearest 1/16 in the press's direction.
    case grid
}
