import Foundation
import RemoteVolume

/// A 16-press burst (25 ms apart, step 2) through a controller; returns the SetVolume requests it sent and
/// how many the burst's real duration allows (one per interval + the first).
func pressBurst(_ device: any RemoteVolumeDevice) async throws -> (sent: Int, allowed: Int, idle: Bool) {
    let configuration = RemoteVolumeSync.Configuration(step: 2)
    let controller = RemoteVolumeController(device: device, configuration: configuration)
    try await controller.start()
    let updates = await controller.updates()
    let started = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<16 {
        await controller.press(.up)
        try await Task.sleep(nanoseconds: 25_000_000)
    }
    // Real time: on a loaded machine the 400 ms burst stretches; the bound is one request per interval over
    // the burst as it really ran (3 when it ran in 400 ms, as the sync machine's virtual-time tests check).
    let burst = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 - 0.025
    let allowed = 1 + Int((burst / configuration.minimumInterval).rounded(.up))
    let idle = await waitUntilIdle(controller)
    await controller.stop()
    var sent = 0
    for await update in updates { if case .requestSent = update { sent += 1 } }
    return (sent, allowed, idle)
}
