import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Trace fit")
struct TraceFitTests {
    /// The simulator's constants, which a fit of its trace must recover within the estimates' tolerances.
    static func expectRecovers(
        _ report: TraceFitReport, _ configuration: SimulatedDevice.Configuration,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        // The route notification comes first with no gap: kvoLatency, routeNotificationGap and sliderLatency are
        // bounded (their tolerance is the bounds'), the others measured.
        let truth: [String: Double] = [
            "roundTrip": configuration.sliderLatency + configuration.kvoLatency,
            "kvoLatency": configuration.kvoLatency,
            "sliderLatency": configuration.sliderLatency,
            "firstRepeatDelay": SimulatedDevice.firstRepeatDelay,
            "repeatInterval": SimulatedDevice.repeatInterval,
            "routeNotificationGap": 0,
        ]
        for (rule, value) in truth {
            guard let estimate = report[rule], let number = estimate.value?.number, let tolerance = estimate.tolerance
            else {
                Issue.record("\(rule) not observed: \(report[rule]?.how ?? "missing")", sourceLocation: sourceLocation)
                continue
            }
            #expect(
                abs(number - value) <= tolerance, "\(rule): fitted \(number) ± \(tolerance), simulator \(value)",
                sourceLocation: sourceLocation)
        }
        #expect(report["stepQuantization"]?.value == .variant("exact"), sourceLocation: sourceLocation)
        #expect(
            report["stepQuantization"]?.how.contains("presses move 0.06250") == true, sourceLocation: sourceLocation)
        #expect(report["routeNotification"]?.value == .variant("beforeKVO"), sourceLocation: sourceLocation)
        expectReadiness(report, configuration, sourceLocation: sourceLocation)
    }

    /// The volume view's readiness shows only where a set made through the view was lost before one came back
    /// (``VolumeViewReadiness``): then its bounds hold the true value (`slack`: delivery jitter); otherwise the fit
    /// says it was not observed, and why.
    static func expectReadiness(
        _ report: TraceFitReport, _ configuration: SimulatedDevice.Configuration, slack: Double = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let ready = report["volumeViewReadyDelay"] else {
            Issue.record("volumeViewReadyDelay missing from the report", sourceLocation: sourceLocation)
            return
        }
        if let bounds = ready.bounds {
            #expect(
                bounds.lowerBound - slack - 1e-9 <= configuration.volumeViewReadyDelay
                    && configuration.volumeViewReadyDelay <= bounds.upperBound + slack + 1e-9,
                "volumeViewReadyDelay: \(ready)", sourceLocation: sourceLocation)
        } else {
            #expect(report.reason(ready)?.isEmpty == false, sourceLocation: sourceLocation)
        }
    }

    @Test("A fit of a simulated run recovers the simulator's constants within the stated tolerances")
    func fitRecoversTheSimulatorsConstants() throws {
        let run = try TraceRecording.standardSession()
        let report = TraceFit.fit(try Trace(jsonLines: Data(run.recorder.trace.jsonLines.utf8)))
        Self.expectRecovers(report, run.device.configuration)
        // The simulator refuses the sets VolumeKit makes during a held volume-down press (iOS 11+ rule, seed 000):
        // the fit sees exactly those as dropped.
        let refused = run.device.log.filter { if case .setRefused = $0 { true } else { false } }.count
        #expect(refused > 0)
        let dropped = try #require(report.droppedSets)
        #expect(
            dropped.of == run.recorder.records.filter { if case .setVolume = $0.event { true } else { false } }.count)
        #expect(dropped.dropped == refused)
        #expect(report["tapLength"]?.isObserved == false)
        for estimate in report.estimates {
            #expect(report.verdict(estimate) != .outside, "\(estimate.rule) \(estimate)")
        }
    }

    @Test(
        "Delivery jitter, as on a device, widens the tolerances without losing the true values", arguments: [1, 2, 3])
    func jitteredDeliveries(seed: Int) throws {
        let configuration = Self.sample(seed + 100)
        let run = try TraceRecording.standardSession(configuration)
        var trace = run.recorder.trace
        // Every KVO arrives up to 4 ms late (main-queue scheduling), reproducibly.
        var state = UInt64(seed)
        for index in trace.records.indices {
            guard case .outputVolume = trace.records[index].event else { continue }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            trace.records[index].time += 0.004 * Double(state >> 11) / Double(1 << 53)
        }
        trace.records = trace.records.enumerated().sorted {
            ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
        }.map(\.element)
        let report = TraceFit.fit(try Trace(jsonLines: Data(trace.jsonLines.utf8)))
        let truth: [String: Double] = [
            "roundTrip": configuration.sliderLatency + configuration.kvoLatency,
            "firstRepeatDelay": SimulatedDevice.firstRepeatDelay,
            "repeatInterval": SimulatedDevice.repeatInterval,
        ]
        // A constant delay seen through one-sided jitter lies below every measurement by up to the jitter: the
        // fit's error bound is its tolerance plus the jitter (docs/trace.md).
        for (rule, value) in truth {
            let estimate = try #require(report[rule])
            #expect(
                abs((estimate.value?.number ?? -1) - value) <= (estimate.tolerance ?? 0) + 0.004, "\(rule): \(estimate)"
            )
        }
        // The later KVO makes the route's sum (the KVO delay, no gap) larger by at most the jitter: the KVO delay's
        // bounds still hold it.
        Self.expectReadiness(report, configuration, slack: 0.004)
        let kvo = try #require(report["kvoLatency"]?.bounds)
        #expect(kvo.lowerBound <= configuration.kvoLatency + 1e-9 && kvo.upperBound >= configuration.kvoLatency)
        #expect(kvo.upperBound <= configuration.kvoLatency + 0.004 + 0.001 + 1e-9)
        #expect(report["stepQuantization"]?.how.contains("presses move 0.0625") == true)
        let dropped = try #require(report.droppedSets)
        #expect(Double(dropped.dropped) < 0.2 * Double(dropped.of))
    }

    @Test("With the private notification instead of KVO, the fit reads the notifications' volumes")
    func notificationStrategyFit() throws {
        let configuration = SimulatedDevice.Configuration(
            kvoLatency: 0.02, sliderLatency: 0.07, volumeViewReadyDelay: 0.5)
        let run = try TraceRecording.standardSession(
            configuration, buttons: VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true))
        #expect(!run.recorder.records.contains { if case .outputVolume = $0.event { true } else { false } })
        Self.expectRecovers(TraceFit.fit(run.recorder.trace), configuration)
    }

    @Test("With capture events the fit measures the tap length, and says the KVO rules were not observed")
    func captureEventsFit() throws {
        let run = try TraceRecording.standardSession(buttons: VolumeButtonsConfiguration(strategy: .captureEvents))
        let report = TraceFit.fit(run.recorder.trace)
        let tap = try #require(report["tapLength"]?.value?.number)
        #expect(abs(tap - run.device.configuration.tapLength) <= report["tapLength"]!.tolerance!)
        #expect(report.verdict(report["tapLength"]!) == .inside)
        #expect(report["roundTrip"]?.isObserved == false)
        #expect(report.verdict(report["firstRepeatDelay"]!) == .undetermined)
        #expect(report.reason(report["firstRepeatDelay"]!)?.hasPrefix("not observed") == true)
        #expect(report.jsonLines.contains { $0.contains("\"rule\":\"firstRepeatDelay\",\"observed\":false") })
    }

    @Test("A view slower than the host's timer shows its readiness between its last lost set and its first kept one")
    func readinessFromTheFirstConfirmedSet() throws {
        // From volume 0 capture sets the volume at once (its headroom): the sets made before the view is ready are
        // lost and made again every 0.2 s until one comes back.
        let slow = try TraceRecording.standardSession(.init(volume: 0, volumeViewReadyDelay: 0.5))
        let report = TraceFit.fit(slow.recorder.trace)
        let ready = try #require(report["volumeViewReadyDelay"])
        let bounds = try #require(ready.bounds)
        #expect(bounds.contains(0.5) && bounds.upperBound - bounds.lowerBound <= 0.2 + 1e-9, "\(ready)")
        #expect(report.verdict(ready) == .inside)
        // A view ready before the host's timer takes the first set: the trace bounds it from above only, and the
        // fit says so rather than guess.
        let quick = try TraceRecording.standardSession(.init(volume: 0, volumeViewReadyDelay: 0.1))
        let unseen = try #require(TraceFit.fit(quick.recorder.trace)["volumeViewReadyDelay"])
        #expect(!unseen.isObserved)
        #expect(unseen.how.contains("ready within 150.0 ms"), "\(unseen.how)")
    }

    @Test("A fit of a trace whose rules lie outside the envelope says so")
    func outsideTheEnvelope() throws {
        // A view that takes 1.4 s to become ready is outside the envelope's 0.05–1 s (from volume 0, capture's first
        // sets show it).
        let run = try TraceRecording.standardSession(.init(volume: 0, volumeViewReadyDelay: 1.4))
        let report = TraceFit.fit(run.recorder.trace)
        let ready = try #require(report["volumeViewReadyDelay"])
        #expect(abs((ready.value?.number ?? 0) - 1.4) <= ready.tolerance!)
        #expect(report.verdict(ready) == .outside)
        #expect(report.textLines.contains { $0.hasPrefix("volumeViewReadyDelay") && $0.contains(" outside") })
        // Judged against other ranges (the lead's DeviceBehaviour ranges, say), the same estimate is inside.
        var wider = TraceFit.envelope
        wider["volumeViewReadyDelay"] = EnvelopeRange(.interval(0.05, 2), source: "a wider guess")
        let rejudged = TraceFit.fit(run.recorder.trace, ranges: wider)
        #expect(rejudged.verdict(rejudged["volumeViewReadyDelay"]!) == .inside)
    }

    @Test("Without gesture records the hold rhythm is still found, from the shape of the repeats")
    func holdsWithoutGestures() throws {
        let run = try TraceRecording.standardSession()
        var trace = run.recorder.trace
        trace.records.removeAll { if case .gesture = $0.event { true } else { false } }
        let report = TraceFit.fit(trace)
        for (rule, value) in [
            "firstRepeatDelay": SimulatedDevice.firstRepeatDelay, "repeatInterval": SimulatedDevice.repeatInterval,
        ] {
            let estimate = try #require(report[rule])
            #expect(abs((estimate.value?.number ?? -1) - value) <= (estimate.tolerance ?? 0), "\(rule): \(estimate)")
            #expect(estimate.how.contains("no hold gestures"))
        }
    }

    /// A device trace written by hand: KVO values of presses from `start` by `deltas`, each followed 20 ms
    /// later by the app's set back and its KVO 30 ms after that.
    static func handmade(start: Float, presses: [Float]) -> Trace {
        var records: [TraceRecord] = [
            TraceRecord(time: 0, event: .subscribed(.outputVolume, observer: 1)),
            TraceRecord(time: 0, event: .setActive(true, notifyOthers: false, error: nil)),
        ]
        var time = 1.0
        for value in presses {
            records.append(TraceRecord(time: time, event: .outputVolume(value, observer: 1)))
            records.append(TraceRecord(time: time + 0.02, event: .setVolume(start, view: 1)))
            records.append(TraceRecord(time: time + 0.05, event: .outputVolume(start, observer: 1)))
            time += 1
        }
        return Trace(header: TraceFormatTests.header, records: records)
    }

    @Test("Quantization variants the simulator cannot make yet are told apart: grid snapping and rounded reads")
    func quantizationVariants() {
        // From 0.3 (off the grid) a press lands on the grid: 0.3125 up, 0.25 down.
        let grid = TraceFit.fit(Self.handmade(start: 0.3, presses: [0.3125, 0.25, 0.3125, 0.25]))
        #expect(grid["stepQuantization"]?.value == .variant("grid"))
        // From 0.3, exactly one step.
        let exact = TraceFit.fit(Self.handmade(start: 0.3, presses: [0.3625, 0.2375, 0.3625]))
        #expect(exact["stepQuantization"]?.value == .variant("exact"))
        #expect(exact["stepQuantization"]?.how.contains("presses move 0.06250") == true)
        // Reads rounded to 3 decimals (Apple forums 756484): neither exact nor on the grid.
        let rounded = TraceFit.fit(Self.handmade(start: 0.3, presses: [0.363, 0.238, 0.363]))
        #expect(rounded["stepQuantization"]?.value == .variant("rounded"))
        // Rounded reads do not make the app's sets look dropped: a set of 0.29988 read back as 0.3 landed.
        var roundedSets = Self.handmade(start: 0.3, presses: [0.363, 0.238, 0.363])
        roundedSets.records = roundedSets.records.map { record in
            guard case .setVolume(0.3, let view) = record.event else { return record }
            return TraceRecord(time: record.time, event: .setVolume(0.29988, view: view))
        }
        #expect(TraceFit.fit(roundedSets).droppedSets?.dropped == 0)
        // From the grid both variants look the same: not observed.
        let onGrid = TraceFit.fit(Self.handmade(start: 0.5, presses: [0.5625, 0.4375]))
        #expect(onGrid["stepQuantization"]?.isObserved == false)
        #expect(abs((grid["roundTrip"]?.value?.number ?? 0) - 0.03) < 1e-9)
    }

    @Test("Sets that never reach KVO are counted as dropped; sets to the volume already there are not")
    func droppedSetsHandmade() {
        var trace = Self.handmade(start: 0.5, presses: [0.5625, 0.4375, 0.5625, 0.4375])
        // The second press's reset never lands (the cache variant: the slider drops it).
        let kvos = trace.records.indices.filter {
            if case .outputVolume(0.5, _) = trace.records[$0].event { true } else { false }
        }
        trace.records.remove(at: kvos[1])
        // And a set to the value already there, which no KVO can show.
        trace.records.append(TraceRecord(time: 9, event: .setVolume(0.5, view: 1)))
        let report = TraceFit.fit(trace)
        #expect(report.droppedSets?.of == 4)
        #expect(report.droppedSets?.dropped == 1)
    }

    /// A reproducible sample of the envelope's ranges for the rules today's simulator takes as parameters.
    static func sample(_ seed: Int) -> SimulatedDevice.Configuration {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        return SimulatedDevice.Configuration(
            kvoLatency: 0.03 * next(),
            sliderLatency: 0.005 + 0.145 * next(),
            volumeViewReadyDelay: 0.05 + 0.95 * next()
        )
    }

    @Test("Fits of 50 sampled simulator configurations recover each sample's values", arguments: 0..<50)
    func fitRecoversSampledConfigurations(seed: Int) throws {
        let configuration = Self.sample(seed)
        let run = try TraceRecording.standardSession(configuration)
        let report = TraceFit.fit(run.recorder.trace)
        Self.expectRecovers(report, configuration)
        // Replay of the same trace gives the same button events.
        #expect(try TraceReplay.run(run.recorder.trace).eventsMatchRecording == true)
    }
}

/// Regression tests for what the field-check sweep (`FieldCheckFitTests`) found wrong in the fitter, each on a
/// trace written by hand so that it shows the one thing.
@Suite("Trace fit: the field-check sweep's findings")
struct TraceFitFindingsTests {
    static func trace(_ records: [TraceRecord]) -> Trace {
        Trace(
            header: TraceFormatTests.header,
            records: [
                TraceRecord(time: 0, event: .subscribed(.outputVolume, observer: 1)),
                TraceRecord(time: 0, event: .setActive(true, notifyOthers: false, error: nil)),
            ] + records)
    }

    static func kvo(_ time: Double, _ value: Float) -> TraceRecord {
        TraceRecord(time: time, event: .outputVolume(value, observer: 1))
    }

    static func set(_ time: Double, _ value: Float) -> TraceRecord {
        TraceRecord(time: time, event: .setVolume(value, view: 1))
    }

    @Test("Reads rounded to 1e-4 are the rounded variant, although a whole step keeps its size when rounded")
    func roundedReads() {
        // A press from 0.3 reads 0.3625 (exactly one step); VolumeKit sets 0.3 - 1/4096 and reads it back as 0.2998.
        var records: [TraceRecord] = []
        var time = 1.0
        for _ in 0..<4 {
            records += [Self.kvo(time, 0.3625), Self.set(time, 0.299_755_86), Self.kvo(time + 0.03, 0.2998)]
            records += [Self.set(time + 0.3, 0.3), Self.kvo(time + 0.33, 0.3)]
            time += 1
        }
        let report = TraceFit.fit(Self.trace(records))
        #expect(report["stepQuantization"]?.value == .variant("rounded"))
        #expect(report["stepQuantization"]?.how.contains("a multiple of 0.0001") == true)
        // The same trace with reads at full precision steps exactly.
        let exact = records.map { record -> TraceRecord in
            guard case .outputVolume(0.2998, let observer) = record.event else { return record }
            return TraceRecord(time: record.time, event: .outputVolume(0.299_755_86, observer: observer))
        }
        #expect(TraceFit.fit(Self.trace(exact))["stepQuantization"]?.value == .variant("exact"))
    }

    @Test("A route change and its KVO at the same instant are ordered as the file orders them")
    func sameInstantRoute() {
        let route = TraceRecord(time: 2, event: .lifecycle(.routeChanged(.headphones), observer: 2))
        let jump = Self.kvo(2, 0.75)
        let start = [Self.kvo(1, 0.5)]
        let after = TraceFit.fit(Self.trace(start + [jump, route]))
        #expect(after["routeNotification"]?.value == .variant("afterKVO"))
        let before = TraceFit.fit(Self.trace(start + [route, jump]))
        #expect(before["routeNotification"]?.value == .variant("beforeKVO"))
        // At one instant the sum is 0: the KVO delay and the gap are both 0, within the clock's millisecond.
        #expect(before["kvoLatency"]?.bounds.map { $0.lowerBound == 0 && $0.upperBound <= 0.001 + 1e-12 } == true)
    }

    @Test("A hold whose first KVO comes at the gesture's instant measures the first repeat from it")
    func holdFromTheGesture() throws {
        // No KVO delay: the press's KVO has the gesture's time; repeats 0.5 s later, then every 0.1 s.
        var records = [Self.kvo(0.5, 0.5), TraceRecord(time: 1, event: .gesture(.hold(.up, seconds: 1)))]
        var value: Float = 0.5
        for time in [1.0, 1.5, 1.6, 1.7, 1.8] {
            value += 1.0 / 16
            records.append(Self.kvo(time, value))
        }
        let report = TraceFit.fit(Self.trace(records))
        let first = try #require(report["firstRepeatDelay"]?.value?.number)
        #expect(abs(first - 0.5) < 1e-9)
        let later = try #require(report["repeatInterval"]?.value?.number)
        #expect(abs(later - 0.1) < 1e-9)
    }

    @Test("A dropped set does not take the KVO of a later set of the same value")
    func repeatedEqualSets() throws {
        // Each cycle: a press, the app's set of 0.5 (dropped), a repeat 50 ms later and the app's set of 0.5 again,
        // which lands 80 ms later. The dropped set's nearest KVO of 0.5 is the second set's, 130 ms on: inside
        // the matching window, but not the common latency.
        var records: [TraceRecord] = []
        var time = 1.0
        for _ in 0..<6 {
            records += [Self.kvo(time, 0.5625), Self.set(time, 0.5)]
            records += [Self.kvo(time + 0.05, 0.625), Self.set(time + 0.05, 0.5), Self.kvo(time + 0.13, 0.5)]
            time += 1
        }
        let report = TraceFit.fit(Self.trace(records))
        let latency = try #require(report["roundTrip"])
        #expect(abs((latency.value?.number ?? 0) - 0.08) < 1e-9)
        #expect(latency.tolerance == 0.001)
        #expect(report.droppedSets?.of == 12)
        #expect(report.droppedSets?.dropped == 6)
    }

    @Test("With capture events, volume changes are not presses: no step is read from them")
    func captureEventsLeaveTheVolume() {
        // A route change with no notification moves the volume by 0.2; the presses come as capture events.
        let records = [
            TraceRecord(time: 0, event: .subscribed(.captureEvents, observer: 3)),
            Self.kvo(1, 0.3),
            TraceRecord(time: 1.5, event: .captureEvent(CaptureEvent(source: .secondary, phase: .began), observer: 3)),
            TraceRecord(time: 1.6, event: .captureEvent(CaptureEvent(source: .secondary, phase: .ended), observer: 3)),
            Self.kvo(2, 0.5), Self.kvo(3, 0.3), Self.kvo(4, 0.5),
        ]
        let report = TraceFit.fit(Self.trace(records))
        #expect(report["stepQuantization"]?.isObserved == false)
        #expect(report["stepQuantization"]?.how.contains("capture events") == true)
        #expect(abs((report["tapLength"]?.value?.number ?? 0) - 0.1) < 1e-9)
    }
}
