import Foundation

// volumekit-bench: speed and memory figures for README's Performance section.
// Run: swift run -c release volumekit-bench
print("volumekit-bench (\(ProcessInfo.processInfo.processorCount) cores)")
ButtonsBenchmark.run()
SoundsBenchmark.run()
MuteBenchmark.run()
TraceReplayBenchmark.run()
RemoteBenchmark.run()
PeerBenchmark.run()
