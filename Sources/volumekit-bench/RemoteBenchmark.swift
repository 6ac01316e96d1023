import Dispatch
import Foundation
import RemoteVolume
import VolumeKitCore

/// Figures against real servers, one protocol after another in one run: requests per 16-press / 400 ms burst
/// (target ≤ 5 with the 0.1 s spacing) with the final level exact, press-to-request latency p50 / p99 (target
/// p99 ≤ 120 ms), the set round trip, and (UPnP)
/// search → first renderer with streaming discovery.
///
/// Devices: `--upnp URL` or `VOLUMEKIT_UPNP_LOCATION` (a UPnP description URL), `VOLUMEKIT_MPD_URL`
/// (`mpd://…`) and `VOLUMEKIT_SNAPCAST_URL` (`snapcast://…`); each one not given is skipped, saying so.
/// With `scripts/upnp-peer.sh up` and, inside `vk-client`, `scripts/mpd-peer.sh up` and
/// `scripts/snapcast-peer.sh up`: `ip netns exec vk-client env
/// VOLUMEKIT_UPNP_LOCATION=http://10.77.0.1:49494/description.xml VOLUMEKIT_MPD_URL=mpd://vk-secret@127.0.0.1:16600
/// VOLUMEKIT_SNAPCAST_URL=snapcast://127.0.0.1:17705/<client id> swift run -c release volumekit-bench`.
enum RemoteBenchmark {
    static func run(arguments: [String] = CommandLine.arguments) {
        let environment = ProcessInfo.processInfo.environment
        var upnp = environment["VOLUMEKIT_UPNP_LOCATION"]
        if let index = arguments.firstIndex(of: "--upnp"), index + 1 < arguments.count {
            upnp = arguments[index + 1]
        }
        let devices: [(label: String, url: String?, hint: String)] = [
            ("UPnP", upnp, "pass --upnp URL or set VOLUMEKIT_UPNP_LOCATION; see scripts/upnp-peer.sh"),
            ("MPD", environment["VOLUMEKIT_MPD_URL"], "set VOLUMEKIT_MPD_URL; see scripts/mpd-peer.sh"),
            (
                "Snapcast", environment["VOLUMEKIT_SNAPCAST_URL"],
                "set VOLUMEKIT_SNAPCAST_URL; see scripts/snapcast-peer.sh"
            ),
        ]
        for (label, text, hint) in devices {
            guard let text, let url = try? RemoteDeviceURL.parse(text) else {
                print("remote \(label): skipped (no device: \(hint))")
                continue
            }
            let done = DispatchSemaphore(value: 0)
            Task {
                do { try await measure(label, url) } catch { print("remote \(label): failed: \(error)") }
                done.signal()
            }
            done.wait()
        }
    }

    /// Wraps a device and notes when each SetVolume leaves.
    final class Recording: RemoteVolumeDevice {
        let inner: any RemoteVolumeDevice
        let sends = Locked<[Instant]>([])
        let roundTrips = Locked<[Double]>([])
        init(_ inner: any RemoteVolumeDevice) { self.inner = inner }
        var displayName: String { inner.displayName }
        var volumeRange: ClosedRange<Int> { inner.volumeRange }
        func volume() async throws -> Int { try await inner.volume() }
        func setVolume(_ level: Int) async throws {
            let start = RemoteVolumeController.systemClock.now()
            sends.withLock { $0.append(start) }
            try await inner.setVolume(level)
            let end = RemoteVolumeController.systemClock.now()
            roundTrips.withLock { $0.append(end - start) }
        }
        func isMuted() async throws -> Bool { try await inner.isMuted() }
        func setMuted(_ muted: Bool) async throws { try await inner.setMuted(muted) }
    }

    static func measure(_ label: String, _ url: RemoteDeviceURL) async throws {
        let renderer = try await url.connect()
        let device = Recording(renderer)
        let clock = RemoteVolumeController.systemClock
        print("remote \(label): '\(renderer.displayName)', range \(renderer.volumeRange)")
        let bursts = 10
        var perBurst: [Int] = []
        var exact = 0
        var burstLatencies: [Double] = []
        for burst in 0..<bursts {
            let up = burst % 2 == 0
            let start = up ? 20 : 80
            try await renderer.setVolume(start)
            let run = try await press(Array(repeating: up ? .up : .down, count: 16), step: 2, every: 0.025, on: device)
            perBurst.append(run.sends.count)
            burstLatencies += latencies(presses: run.presses, sends: run.sends)
            if try await renderer.volume() == start + (up ? 32 : -32) { exact += 1 }
        }
        // Lone presses, 0.5 s apart: the latency a single tap sees.
        try await renderer.setVolume(50)
        let lone = try await press((0..<20).map { $0 % 2 == 0 ? .up : .down }, step: 1, every: 0.5, on: device)
        let loneLatencies = latencies(presses: lone.presses, sends: lone.sends)
        let sorted = perBurst.sorted()
        print(
            "remote \(label): 16 presses / 400 ms: SetVolume per burst min \(sorted.first!) median \(sorted[sorted.count / 2]) max \(sorted.last!) (target ≤ 5); final level exact in \(exact)/\(bursts) bursts"
        )
        print(
            "remote \(label): press→request latency, burst presses: p50 \(ms(percentile(burstLatencies, 0.5))) p99 \(ms(percentile(burstLatencies, 0.99))) (target p99 ≤ 120 ms)"
        )
        print(
            "remote \(label): press→request latency, lone presses: p50 \(ms(percentile(loneLatencies, 0.5))) p99 \(ms(percentile(loneLatencies, 0.99)))"
        )
        let trips = device.roundTrips.current
        print(
            "remote \(label): set round trip: p50 \(ms(percentile(trips, 0.5))) p99 \(ms(percentile(trips, 0.99))) over \(trips.count) requests"
        )
        guard case .upnp = url else { return }
        // Streaming discovery: time from the search to the first renderer with its description.
        var firsts: [Double] = []
        for _ in 0..<5 {
            let start = clock.now()
            for try await found in try UPnPRenderer.discoveries(timeout: 3) where found.renderer != nil {
                firsts.append(clock.now() - start)
                break
            }
        }
        print(
            "remote \(label): search → first renderer (streaming discovery): p50 \(ms(percentile(firsts, 0.5))) max \(ms(firsts.max() ?? .nan)) over \(firsts.count)/5 searches"
        )
    }

    /// Presses `buttons` one after another, `interval` seconds apart, through a fresh controller of `step` on
    /// `device`, then waits until it is idle and stops it: when each press was made, and when each SetVolume
    /// left.
    static func press(
        _ buttons: [VolumeButton], step: Int, every interval: Double, on device: Recording
    ) async throws -> (presses: [Instant], sends: [Instant]) {
        let clock = RemoteVolumeController.systemClock
        let controller = RemoteVolumeController(device: device, configuration: .init(step: step), clock: clock)
        try await controller.start()
        device.sends.withLock { $0.removeAll() }
        var presses: [Instant] = []
        for button in buttons {
            presses.append(clock.now())
            await controller.press(button)
            try await Task.sleep(nanoseconds: UInt64(interval * 1e9))
        }
        try await waitIdle(controller)
        await controller.stop()
        return (presses, device.sends.current)
    }

    /// For each press, the time until the first SetVolume that left at or after it.
    static func latencies(presses: [Instant], sends: [Instant]) -> [Double] {
        presses.compactMap { press in sends.first { $0 >= press }.map { $0 - press } }
    }

    static func waitIdle(_ controller: RemoteVolumeController) async throws {
        for _ in 0..<500 {
            if await !controller.isBusy { return }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
}
