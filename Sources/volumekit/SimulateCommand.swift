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

/// `volumekit simulate`: runs a scenario on the simulated iOS device and prints what the app observed.
enum SimulateCommand: Subcommand {
    static let name = "simulate"
    static let summary = "Run a scenario on the simulated iOS device and print what the app observed"
    static let help = """
        USAGE: volumekit simulate [--strategy NAME] [--profile NAME|sample:K] [--set RULE=VALUE]… [--json]
                                  [--outside RULE=SECONDS]… [--calibration FILE] [--strict] [--trace FILE]
                                  [SCRIPT]

        Runs SCRIPT (a file, or - for standard input) on VolumeKit's simulated iPhone in virtual time and
        prints each button event the app received, each time the system volume HUD appeared, the app's
        custom HUD and Ring/Silent state changes, every diagnostic VolumeKit raised, and the device's volume
        at the end. `launch` runs the app's VolumeKit.recoverVolumeIfNeeded(). With no SCRIPT it runs a
        built-in demo.

        Every run ends with a verdict: each event the app received is judged against what the simulated user
        physically did (the ground truth) — presses reported against presses made, per button; phantom
        events; their order; a press's `pressed` within 0.5 s of the button going down; one `pressed` and one
        `released` per press, a hold's repeats inside it; no system HUD over a press the app captured. Presses
        the app must see are those made in front, once capture has settled (1.5 s after a start, a return,
        an interruption, a call or a route change, or at once while VolumeKit says it is capturing). A failure
        an envelope limit explains is excused only with that limit's diagnostic, named in the verdict.

        OPTIONS:
          --strategy NAME  \(SimulatedStrategy.allCases.map(\.rawValue).joined(separator: " | "))
                           (default outputVolume; baseline is the approach most libraries ship)
          --profile P      how the simulated iOS behaves where we do not know for sure:
                           \(DeviceBehaviour.profiles.map(\.name).joined(separator: " | ")) | sample:K (the K-th seeded
                           sample of the plausible envelope; sample:0 is default). See 'volumekit profiles'.
          --set RULE=VALUE override one rule of the profile (repeatable), e.g. --set kvoLatency=0.03
          --outside RULE=SECONDS
                           put a time rule OUTSIDE its envelope on purpose (repeatable; 0–60 s), e.g.
                           --outside sliderLatency=0.3: a phone the envelope does not cover. The end record's
                           calibration then counts what VolumeKit measured outside ("outside":N), kept apart.
          --calibration FILE
                           what capture learned of the simulated phone, kept as an iPhone keeps it (per model
                           and iOS version): read into the device's store before the run, as a later launch
                           finds it, and written back after (a missing FILE starts with nothing learned; one
                           VolumeKit did not write is refused). A learning run, then the same profile again
                           with the same FILE, is a warm start (scenarios/calibrate.txt learns a phone).
          --trace FILE     also write the run's trace to FILE (JSON Lines, docs/trace.md): what crossed the
                           clients of the buttons engine and the mute monitor, each script line's gesture, the
                           app's start/stop and its button events. The header says it is synthetic
                           ("source":"simulator") and its note lists the profile's rules, which
                           'volumekit trace fit FILE' should give back; 'volumekit trace replay FILE'
                           prints the button events of this run again.
          --strict         exit with status 1 when the verdict finds a violation
          --json           one JSON object a line:
                           {"t":…, "type":"button", "button":"up"|"down", "phase":"pressed"|"repeated"|"released"}
                           {"t":…, "type":"systemHUD"}
                           {"t":…, "type":"hud", "level":L, "visible":true|false[, "bump":"minimum"|"maximum"]}
                                (the app's custom HUD; bump when a press hits a rail)
                           {"t":…, "type":"mute", "state":"silent"|"ringing"|"unavailable"}
                           {"t":…, "type":"mute", "state":"unknown", "reason":R}
                                (R: \(MuteUnknownReason.allCases.map(\.rawValue).joined(separator: " | ")))
                           {"t":…, "type":"error", "message":M}   (capture could not start, or a limit)
                           {"t":…, "type":"diagnostic", "name":N, "sentence":S}   (VolumeKit's diagnostics)
                           {"t":…, "type":"truth", "action":"press", "button":B, "duration":D, "seen":W
                                [, "source":"headset"][, "warning":true][, "warnedRepeat":T]}
                                (each physical press, in order, W: inFront | interrupted | unseen; a headset's
                                buttons say so, and a press the EU high-volume warning took, which moved nothing;
                                warnedRepeat: when the warning took one of a hold's auto-repeats instead)
                           {"t":…, "type":"truth", "action":"volume", "value":V, "by":S}
                                (the user's volume from then on, S: controlCenter | bluetoothSync | headphoneSafety)
                           {"t":…, "type":"truth", "action":"route", "route":R}
                           {"type":"verdict", "ok":true|false, "violations":[{"kind":K, "t":…, "detail":…}],
                                "limits":[{"name":…, "count":N, "diagnostic":…}]}   (just before the end)
                           and last {"type":"end", "volume":V, "category":C|null, "sessionActive":true|false
                                [, "calibration":{RULE:{"value":V, "samples":N, "spread":S[, "outside":N]}, …
                                [, "byRoute":{ROUTE:{"roundTrip":{…}}, …}]}]}
                                (the device's volume, the app's audio session category and state, and what
                                capture learned of this simulated phone, as used on the route at the end:
                                roundTrip, firstRepeatDelay, repeatInterval, tapLength, stepQuantization — the
                                names 'volumekit profiles' uses; byRoute: the round trip on each route, when
                                more than one route measured it)

        SCRIPT: one command a line, '#' comments, times in seconds:
          ios N · device iphone|ipad · volume V · headphones V   (setup, before anything else; 'volume'
          sets every route, 'headphones' then every route but the speaker)
          start (buttons, HUD and Ring/Silent monitor) · start buttons|hud|mute (one alone; 'start hud':
          the HUD with default options, no capture, as '.volumeHUD(.island)') · stop
          press up|down [xN] [every S] · hold up|down S [&] · wait S · slider V · drag V
          background · foreground · interrupt begin|end · call begin|end · siri [S] · alarm S [noend]
          takeover camera|player|webview · camera start|stop · media reset
          route speaker|headphones|bluetooth|airplay|receiver|external · crash · launch
          route bluetooth|airplay|external NAME   (the device NAME: each keeps its own volume)
          mute on|off (iPhone switch) · silent on|off (Control Center Silent mode)
          other sources of the volume, with a headset on the route:
            headset up|down [xN] [every S]   the headset's own buttons (a step, or its own level:
                                             --set headsetButtons=absoluteVolume)
            bluetooth connect V              the Bluetooth headset connects, keeping V itself: iOS takes
                                             it bluetoothSyncDelay later
            bluetooth sync V                 the headset's own volume V taken now
            safety lower                     Headphone Notifications turn a volume above
                                             headphoneLimitLevel down to it
          ('hold … &' keeps the button down while the next lines run; 'start … &' and 'launch &' run the
          next line at once instead of waiting for capture to begin or the recovery to end, as
          scenarios/known/ replays a randomized session)
          Lines end with LF, CRLF or CR. Limits: \(Scenario.maximumScriptBytes) bytes of UTF-8 text (no NUL),
          \(Int(Scenario.maximumVirtualTime)) s of virtual time, \(Scenario.maximumPresses) presses, \(ScenarioRunner.maximumRecords) records.
        """

    static let demo = """
        # VolumeKit demo: an iPhone on iOS 17.4 whose user listens at volume 0 (a rail).
        ios 17.4
        volume 0
        start
        press down x3          # at the bottom rail: KVO alone would see nothing
        press up x2
        hold up 1.5            # held: one pressed, auto-repeats, one released
        wait 1
        slider 0.3             # the user moves Control Center's slider: not a press
        press down
        wait 1
        background
        foreground             # the session is re-activated, capture resumes
        press up
        interrupt begin        # an interruption with no end
        wait 0.5
        background
        foreground
        press down
        wait 1
        stop                   # the user's volume (0.3 after the slider) comes back
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var reader = ArgumentReader(arguments)
        let json = reader.flag("--json")
        let strict = reader.flag("--strict")
        let strategyName = try reader.option("--strategy") ?? SimulatedStrategy.outputVolume.rawValue
        let profile = try reader.option("--profile") ?? "default"
        let overrides = try reader.options("--set")
        let outside = try reader.options("--outside")
        let tracePath = try reader.option("--trace")
        let calibrationPath = try reader.option("--calibration")
        try reader.rejectUnknownOptions()
        var behaviour: DeviceBehaviour
        do {
            behaviour = try DeviceBehaviour(profile: profile)
            for assignment in overrides { try behaviour.set(assignment) }
            for assignment in outside { try behaviour.setOutside(assignment) }
        } catch let error as DeviceBehaviourError {
            throw UsageError(error.description)
        }
        guard let strategy = SimulatedStrategy(rawValue: strategyName) else {
            throw UsageError(
                "There is no strategy named '\(EchoedText.argument(strategyName))'; use one of \(SimulatedStrategy.allCases.map(\.rawValue).joined(separator: ", "))."
            )
        }
        let paths = reader.remaining
        guard paths.count <= 1 else { throw UsageError("one SCRIPT at most") }
        let text: String
        if let path = paths.first {
            let shown = EchoedText.path(path)
            let descriptor: Int32
            if path == "-" {
                descriptor = STDIN_FILENO
            } else {
                // A FIFO with no writer would block forever: only a regular file is read (docs/security.md).
                do {
                    descriptor = try RegularFile.open(path, kind: "script").descriptor
                } catch let failure as RegularFile.Failure {
                    throw UsageError("cannot read script '\(shown)': \(failure.reason)")
                }
            }
            defer { if descriptor != STDIN_FILENO { RegularFile.closeDescriptor(descriptor) } }
            do {
                text = try Scenario.readScript(from: descriptor)
            } catch let error as ScenarioInputError {
                throw UsageError("\(shown): \(error)")
            } catch {
                throw UsageError("cannot read script '\(shown)'")
            }
        } else {
            text = demo
        }
        let scenario: Scenario
        do {
            scenario = try Scenario(parsing: text)
        } catch {
            throw UsageError("\(paths.first.map { EchoedText.path($0) } ?? "demo"): \(error)")
        }
        let runner = ScenarioRunner(scenario: scenario, strategy: strategy, behaviour: behaviour)
        if let calibrationPath {
            runner.storedCalibration = try readCalibration(calibrationPath)
        }
        var writer: TraceFileWriter?
        if let tracePath {
            guard !tracePath.isEmpty, tracePath != "-" else {
                throw UsageError("--trace needs a file name (the trace goes to a file, the events to standard output)")
            }
            if let script = paths.first, script != "-", isSameFile(tracePath, script) {
                throw UsageError(
                    "--trace \(EchoedText.path(tracePath)) is the script itself: writing the trace there would replace the script; give the trace another file name."
                )
            }
            do {
                writer = try TraceFileWriter(url: URL(fileURLWithPath: tracePath))
            } catch {
                throw UsageError("\(error)")
            }
            let rules = behaviour.assignments.joined(separator: " ")
            let script = paths.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "demo"
            runner.traceOptions = ScenarioTraceOptions(
                note:
                    "volumekit simulate --profile \(profile)\(overrides.map { " --set \($0)" }.joined())\(outside.map { " --outside \($0)" }.joined()) \(script); rules: \(rules)",
                keepsRecords: false, onLine: writer!.write)
        }
        defer { writer?.close() }
        if !json {
            // For people: what the columns mean, and where the volume starts.
            print(
                "# seconds · '>' a line of your script · then what the app saw: buttons, HUDs, the Ring/Silent switch, VolumeKit's messages"
            )
            let volume = scenario.lines.reduce(SimulatedDevice.Configuration(behaviour: behaviour).volume) {
                if case .volume(let volume) = $1.command { volume } else { $0 }
            }
            var shown = cFormat("%.4f", (Double(volume) * 10_000).rounded() / 10_000)
            while shown.hasSuffix("0") && !shown.hasSuffix(".0") { shown.removeLast() }
            print("start    volume \(shown)")
        }
        // Printed as they come, so a long run neither waits to the end nor keeps every record.
        do {
            try runner.run { record in
                switch record.kind {
                case .command where json: return  // the JSON stream carries observations only
                case .truth where !json: return  // people read what they did in the script's lines
                default: print(json ? record.json : record.text)
                }
            }
        } catch {
            let record = ScenarioRecord(time: nil, kind: .error(String(describing: error)))
            print(json ? record.json : record.text)
            return 1
        }
        writer?.close()
        if let failure = writer?.failure {
            printError("volumekit simulate: \(failure)")
            return 1
        }
        if let calibrationPath, let data = runner.storedCalibration {
            do {
                try data.write(to: URL(fileURLWithPath: calibrationPath), options: .atomic)
            } catch {
                printError(
                    "volumekit simulate: cannot write the calibration to '\(EchoedText.path(calibrationPath))'; check the folder exists and can be written."
                )
                return 1
            }
        }
        return strict && runner.verdict?.ok == false ? 1 : 0
    }

    /// The calibration file's bytes for `--calibration`, checked as the engine would check its store: `nil` when
    /// the file does not exist yet (nothing learned); a usage error with a sentence when it cannot be read or
    /// VolumeKit did not write it.
    static func readCalibration(_ path: String) throws -> Data? {
        let shown = EchoedText.path(path)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            let file = try RegularFile.open(path, kind: "calibration")
            defer { RegularFile.closeDescriptor(file.descriptor) }
            guard file.size <= CalibrationStore.maximumBytes else {
                throw UsageError("calibration '\(shown)': \(CalibrationStoreError.tooLarge(Int(clamping: file.size)))")
            }
            // Bounded even if the file grows after it was measured.
            data = try RegularFile.read(file.descriptor, atMost: CalibrationStore.maximumBytes + 1)
        } catch let failure as RegularFile.Failure {
            throw UsageError("cannot read calibration '\(shown)': \(failure.reason)")
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("cannot read calibration '\(shown)'")
        }
        do {
            _ = try CalibrationStore.machine(reading: data, for: DeviceInfo(osVersion: OSVersion(17), kind: .iphone))
        } catch let error as CalibrationStoreError {
            throw UsageError("calibration '\(shown)': \(error)")
        }
        return data
    }

    /// Whether paths `a` and `b` name one file: the same path once symbolic links are resolved, or (both
    /// existing) the same file on the same device (a hard link).
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        let urls = [a, b].map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath() }
        if urls[0].path == urls[1].path { return true }
        var first = stat()
        var second = stat()
        guard stat(urls[0].path, &first) == 0, stat(urls[1].path, &second) == 0 else { return false }
        return first.st_ino == second.st_ino && first.st_dev == second.st_dev
    }
}
