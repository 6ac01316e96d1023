import Foundation
import VolumeKit

/// What the field check's trace file says about where it came from: its header and its name.
public enum FieldCheckTrace {
    /// The header of a field check's trace.
    ///
    /// Only a run on real hardware says ``TraceSource/device`` (issue 14, item 6): a build for the iOS
    /// Simulator (`isSimulatorBuild`) records ``TraceSource/simulator``, so its file can never pass for
    /// evidence of how an iPhone behaves.
    /// - Parameters:
    ///   - model: `utsname.machine` (`iPhone15,2`).
    ///   - device: the iOS version and idiom.
    ///   - isSimulatorBuild: whether the app runs in the iOS Simulator.
    ///   - buttons: the button engine's configuration (strategy, mode, session category and options).
    ///   - sessionMode: `AVAudioSession.Mode`'s raw value.
    ///   - volumeKitVersion: the VolumeKit the app was built with.
    ///   - protocolName: the check's name (``FieldCheck/name``), the note's start.
    public static func header(
        model: String, device: DeviceInfo, isSimulatorBuild: Bool, buttons: VolumeButtonsConfiguration,
        sessionMode: String, volumeKitVersion: String = VolumeKitVersion.current,
        protocolName: String = "field check \(FieldCheck.version)"
    ) -> TraceHeader {
        TraceHeader(
            source: isSimulatorBuild ? .simulator : .device,
            deviceModel: isSimulatorBuild ? "simulator" : model,
            device: device, volumeKitVersion: volumeKitVersion, buttons: buttons, sessionMode: sessionMode,
            note: protocolName + (isSimulatorBuild ? ", iOS Simulator (\(model))" : "")
        )
    }

    /// The file name a contributed trace goes by: `device-os-date.jsonl`, e.g.
    /// `iPhone15-2-ios17.4-2026-12-01.jsonl` (the date in UTC; `attempt` 2 and later add `-2`, …, for more
    /// runs on one day). Characters other than letters, digits, `.` and `-` become `-`.
    public static func fileName(model: String, os: OSVersion, date: Date, attempt: Int = 1) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
        let device = String(model.map { allowed.contains($0) ? $0 : "-" })
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let day = calendar.dateComponents([.year, .month, .day], from: date)
        let text = String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
        return "\(device)-ios\(os)-\(text)" + (attempt > 1 ? "-\(attempt)" : "") + ".jsonl"
    }
}
