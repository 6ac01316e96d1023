import Foundation

// volumekit-bench: speed and memory figures for README's Performance section.
// Run: swift run -c release volumekit-bench
// `volumekit-bench remote` runs only the remote rows (devices and peers).
print("volumekit-bench (\(ProcessInfo.processInfo.processorCount) cores)")
if !CommandLine.arguments.dropFirst().contains("remote") {
    ButtonsBenchmark.run()
    SoundsBenchmark.run()
    MuteBenchmark.run()
    TraceReplayBenchmark.run()
}
RemoteBenchmark.run()
PeerBenchmark.run()
