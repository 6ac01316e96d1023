import VolumeKitCore
import VolumeKitTesting

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

/// `volumekit trace`: replays a recorded trace through VolumeKit's engines, or fits the device-behaviour
/// rules to it (`docs/trace.md`).
enum TraceCommand: Subcommand {
    static let name = "trace"
    static let summary = "Replay a recorded trace through VolumeKit, or fit the device's rules to it"
    static let help = """
        USAGE: volumekit trace replay FILE [--json]
               volumekit trace fit FILE [--json]

        FILE is a VolumeKit trace (JSON Lines, docs/trace.md), recorded on a device by the field check or
        by `volumekit simulate --trace`; - reads standard input. Only a regular file is read: a FIFO or
        device is refused by its type (pipe it to - instead).

        replay  feeds the trace's recorded inputs (KVO, notifications, lifecycle, view readiness, …) to the
                same engine an iPhone runs, in virtual time, and prints the button events it produces now,
                flagging (!) every place where its sets, or the diagnostics it raises, differ from the
                recorded ones (a difference is reported, not a failure).
                --json: each button event as `volumekit simulate --json` prints it,
                {"t":…, "type":"setChanged"|"setMissing"|"setExtra", …},
                {"t":…, "type":"diagnosticMissing"|"diagnosticExtra", "name":…, …}, then {"type":"summary", …}.
        fit     estimates the device-behaviour rules from the trace alone, named as `volumekit profiles` names
                them (plus roundTrip, set → KVO): stepQuantization, roundTrip, sliderLatency, kvoLatency,
                volumeViewReadyDelay, firstRepeatDelay, repeatInterval, tapLength, routeNotification (a
                change never notified is `missing`), routeNotificationGap, downPressRefusal, volumeCacheDelay,
                the sound probe's delays and lateInterruptionBegan — and prints each beside the envelope's
                range: inside, outside, or undetermined (not shown, too few observations, no range, or
                bounds across the range's edge — the reason is printed). A rule the trace only bounds (the
                KVO delay, of which a notified route change shows only the sum with the gap) is marked ≈.
                Beside each, the live calibration's estimate: the last one VolumeKit stored in the trace.
                --json: {"rule":…, "observed":…, "value":…, "unit":…, "tolerance":…, "bound":…, "samples":…,
                "range":…, "rangeSource":…, "verdict":…, "reason":…, "how":…, "live":…} per rule, then
                {"type":"summary", …}.

        A malformed trace is refused with the line number and what is wrong (exit status 1).
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var reader = ArgumentReader(arguments)
        let json = reader.flag("--json")
        try reader.rejectUnknownOptions()
        let positional = reader.remaining
        guard let action = positional.first else { throw UsageError("missing action: replay or fit") }
        guard action == "replay" || action == "fit" else {
            throw UsageError("unknown action '\(EchoedText.argument(action))' (replay, fit)")
        }
        guard positional.count == 2 else {
            throw UsageError(positional.count < 2 ? "missing FILE" : "one FILE at most")
        }
        let path = positional[1]
        // Echoed cut and cleaned of control characters, like every input.
        let shown = EchoedText.path(path)
        let trace: Trace
        do {
            if path == "-" {
                trace = try Trace(reading: STDIN_FILENO)
            } else {
                trace = try Trace(contentsOf: URL(fileURLWithPath: path))
            }
        } catch {
            printError("volumekit trace: \(shown): \(error)")
            return 1
        }
        let lines: [String]
        if action == "replay" {
            do {
                let report = try TraceReplay.run(trace)
                lines = json ? report.jsonLines : report.textLines
            } catch {
                printError("volumekit trace: \(shown): \(error)")
                return 1
            }
        } else {
            let report = TraceFit.fit(trace)
            lines = json ? report.jsonLines : report.textLines
        }
        for line in lines { print(line) }
        return 0
    }
}
