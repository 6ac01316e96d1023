import Foundation

/// A program's figures as a whole process, over runs that alternate with a peer's so that a burst of load
/// from elsewhere on the machine lands on both: median and fastest wall time, and the page faults of a
/// median run (the child's own minor faults, which load does not move: the steadiest figure on a shared
/// machine).
struct SpawnFigures: CustomStringConvertible {
    /// Runs of each program (after one unmeasured run of each).
    static let runs = 40

    /// The median wall time in seconds.
    var median: Double
    /// The fastest run's wall time in seconds.
    var fastest: Double
    /// The median of the runs' minor page faults.
    var faults: Int

    /// "3.9 ms (fastest 3.6 ms, 515 page faults)".
    var description: String {
        "\(PeerBenchmark.ms(median)) (fastest \(PeerBenchmark.ms(fastest)), \(faults) page faults)"
    }

    init?(_ runs: [(seconds: Double, faults: Int)]) {
        guard !runs.isEmpty else { return nil }
        median = RemoteBenchmark.percentile(runs.map(\.seconds), 0.5)
        fastest = runs.map(\.seconds).min() ?? .nan
        faults = Int(RemoteBenchmark.percentile(runs.map { Double($0.faults) }, 0.5))
    }

    /// `path arguments` and, when given, the peer's command, each run ``runs`` times in turn; a side is `nil`
    /// when one of its runs fails (the other side then runs alone).
    static func alternating(
        _ path: String, _ arguments: [String], _ peer: (path: String, arguments: [String])? = nil
    ) -> (ours: SpawnFigures?, theirs: SpawnFigures?) {
        var ours: [(seconds: Double, faults: Int)]? = []
        var theirs: [(seconds: Double, faults: Int)]? = peer == nil ? nil : []
        for run in 0...runs {
            if ours != nil {
                let result = PeerBenchmark.spawn(path, arguments)
                if let result { ours?.append(result) } else { ours = nil }
            }
            if let peer, theirs != nil {
                let result = PeerBenchmark.spawn(peer.path, peer.arguments)
                if let result { theirs?.append(result) } else { theirs = nil }
            }
            if run == 0 {  // The unmeasured run: page cache and the server's first connection.
                if ours != nil { ours = [] }
                if theirs != nil { theirs = [] }
            }
        }
        return (ours.flatMap(SpawnFigures.init), theirs.flatMap(SpawnFigures.init))
    }
}
