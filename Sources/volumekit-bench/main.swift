import Foundation

// volumekit-bench: speed and memory figures for README's Performance section.
// Run: swift run -c release volumekit-bench
// `volumekit-bench remote` runs only the remote rows (devices and peers); `volumekit-bench buttons` only the
// detection machine's row (short enough to run under valgrind).
print("volumekit-bench (\(ProcessInfo.processInfo.processorCount) cores)")
if CommandLine.arguments.dropFirst().contains("buttons") {
    ButtonsBenchmark.run()
    exit(0)
}
if !CommandLine.arguments.dropFirst().contains("remote") {
    ButtonsBenchmark.run()
    SoundsBenchmark.run()
    MuteBenchmark.run()
    TraceReplayBenchmark.run()
}
RemoteBenchmark.run()
PeerBenchmark.run()
