import Foundation
import VolumeKitCore

/// The detection machines' cost per system observation: one KVO value through ``VolumeStepMachine`` and
/// the resulting steps through ``PressClassifier``, as `VolumeButtonsEngine` runs them.
enum ButtonsBenchmark {
    static func run() {
        let iterations = 2_000_000
        var steps = VolumeStepMachine()
        var classifier = PressClassifier()
        var system: Float = 0.5
        var pendingEcho: Float?
        var time: Instant = 0
        var produced = 0
        _ = steps.start(volume: system, at: time)
        let result = Measure.perIteration(iterations) { index in
            time += 0.05
            let observed: Float
            if let echo = pendingEcho {
                observed = echo
                pendingEcho = nil
            } else {
                // Alternate bursts of up and down presses, as a person tapping away would.
                let up = (index / 8) % 2 == 0
                system = min(1, max(0, system + (up ? 1 : -1) * VolumeStepMachine.step))
                observed = system
            }
            for action in steps.observe(observed, at: time) {
                switch action {
                case .steps(let button, let count):
                    for _ in 0..<count { produced &+= classifier.step(button, at: time).count }
                case .setVolume(let value):
                    pendingEcho = value
                    system = value
                default:
                    break
                }
            }
            if index % 16 == 0 {
                produced &+= steps.tick(at: time + 1).count + classifier.tick(at: time + 1).count
            }
        }
        blackHole(produced)
        print(
            "buttons: detection machine per observation: \(Measure.format(result.ns)) ns, "
                + "\(result.allocations.map { Measure.format($0, decimals: 3) } ?? "n/a") heap allocations "
                + "(\(iterations) observations, release build)")
    }
}
