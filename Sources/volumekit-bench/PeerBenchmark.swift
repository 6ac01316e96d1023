import Foundation
import RemoteVolume
import VolumeKitCore

#if canImport(Glibc)
import Glibc
#endif

/// VolumeKit's remote figures side by side with the peers that run here, each peer skipped
/// with the reason when it is not installed:
///
/// - MPD per request: `MPDDevice.setVolume` vs python-mpd2's `setvol` (`VOLUMEKIT_BENCH_PYTHON`, a Python
///   with `mpd` importable; `scripts/bench.sh` makes a venv);
/// - Snapcast per request: `SnapcastClient.setVolume` vs a raw JSON-RPC loop on one socket (the floor);
/// - whole process, 40 runs alternating with the peer's: `volumekit remote set mpd://…` vs Debian's
///   `mpc volume`, and each program's start alone (`volumekit --version`, `mpc help`), as median and fastest
///   wall time and the median run's page faults (the child's own `ru_minflt`, which the load on a shared
///   machine does not move). No peak memory: Linux hands a spawned child the high-water mark of the (large)
///   bench process, so `ru_maxrss` would not be the child's.
enum PeerBenchmark {
    static let requests = 500
    /// Rounds each side runs, alternating with the peer's: the figure is the median of the rounds' p50s, so a
    /// burst of load from elsewhere on the machine lands on both sides rather than on one.
    static let rounds = 5

    /// The median of `rounds` alternating rounds of `ours` and `theirs` (each a round's p50, or `nil` when it
    /// cannot run).
    static func alternating(
        _ ours: () async throws -> Double, _ theirs: () async throws -> Double?
    ) async throws -> (ours: Double, theirs: Double?) {
        var mine: [Double] = []
        var peer: [Double] = []
        for _ in 0..<rounds {
            mine.append(try await ours())
            if let value = try await theirs() { peer.append(value) }
        }
        return (
            RemoteBenchmark.percentile(mine, 0.5), peer.count == rounds ? RemoteBenchmark.percentile(peer, 0.5) : nil
        )
    }

    static func run() {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["VOLUMEKIT_MPD_URL"], let url = try? RemoteDeviceURL.parse(text),
            case .mpd(let host, let port, let password) = url
        {
            blocking { try await mpd(url, host: host, port: port, password: password, python: environment) }
            wholeProcess(mpdURL: text, host: host, port: port, password: password)
        } else {
            print("peers MPD: skipped (set VOLUMEKIT_MPD_URL; see scripts/bench.sh)")
        }
        if let text = environment["VOLUMEKIT_SNAPCAST_URL"], let url = try? RemoteDeviceURL.parse(text),
            case .snapcastClient(let host, let port, let clientID) = url
        {
            blocking { try await snapcast(url, host: host, port: port, clientID: clientID) }
            snapcastWholeProcess(host: host, port: port, clientID: clientID)
        } else {
            print("peers Snapcast: skipped (set VOLUMEKIT_SNAPCAST_URL to a client's URL; see scripts/bench.sh)")
        }
    }

    static func blocking(_ work: @escaping @Sendable () async throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            do { try await work() } catch { print("peers: failed: \(error)") }
            done.signal()
        }
        done.wait()
    }

    /// p50 of `requests` sets, in seconds, after 20 unmeasured ones.
    static func perRequest(_ set: (Int) async throws -> Void) async throws -> Double {
        for index in 0..<20 { try await set(30 + index % 40) }
        var times: [Double] = []
        for index in 0..<requests {
            let start = Measure.nanoseconds()
            try await set(30 + index % 40)
            times.append(Double(Measure.nanoseconds() - start) / 1e9)
        }
        return RemoteBenchmark.percentile(times, 0.5)
    }

    static func mpd(
        _ url: RemoteDeviceURL, host: String, port: UInt16, password: String?, python environment: [String: String]
    ) async throws {
        let device = try await url.connect()
        let python = environment["VOLUMEKIT_BENCH_PYTHON"]
        let (ours, theirs) = try await alternating(
            { try await perRequest { try await device.setVolume($0) } },
            {
                python.flatMap { python in
                    capture(python, ["-c", pythonMPD, host, String(port), password ?? ""]).flatMap {
                        Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                }
            })
        var line = "peers MPD set, per request p50 (median of \(rounds) alternating rounds): VolumeKit \(us(ours))"
        if let python {
            if let theirs {
                line += " vs python-mpd2 \(us(theirs)) (\(ratio(ours, theirs)); target ≤ 1.00×)"
            } else {
                line += " vs python-mpd2: failed to run \(python)"
            }
        } else {
            line += " vs python-mpd2: skipped (set VOLUMEKIT_BENCH_PYTHON; scripts/bench.sh makes a venv)"
        }
        print(line)
    }

    /// python-mpd2's `setvol` loop: argv HOST PORT PASSWORD; prints the p50 in seconds.
    static let pythonMPD = """
        import mpd, statistics, sys, time
        c = mpd.MPDClient(); c.connect(sys.argv[1], int(sys.argv[2]))
        if sys.argv[3]: c.password(sys.argv[3])
        for i in range(20): c.setvol(30 + i % 40)
        t = []
        for i in range(\(requests)):
            s = time.perf_counter(); c.setvol(30 + i % 40); t.append(time.perf_counter() - s)
        print(statistics.median(t))
        """

    static func snapcast(_ url: RemoteDeviceURL, host: String, port: UInt16, clientID: String) async throws {
        let device = try await url.connect()
        let floor = try RawLineSocket(host: host, port: port)
        defer { floor.close() }
        let id = String(decoding: try JSONSerialization.data(withJSONObject: [clientID]), as: UTF8.self).dropFirst()
            .dropLast()
        let (ours, theirs) = try await alternating(
            { try await perRequest { try await device.setVolume($0) } },
            {
                try await perRequest { level in
                    try floor.roundTrip(
                        #"{"id":\#(level),"jsonrpc":"2.0","method":"Client.SetVolume","params":{"id":\#(id),"volume":{"percent":\#(level),"muted":false}}}"#,
                        awaiting: #""id":\#(level),"#)
                }
            })
        let floorText = theirs.map { "\(us($0)) (\(ratio(ours, $0)); target ≤ 1.20×)" } ?? "failed"
        print(
            "peers Snapcast set, per request p50 (median of \(rounds) alternating rounds): VolumeKit \(us(ours)) vs raw JSON-RPC loop \(floorText)"
        )
    }

    /// The `volumekit` next to this benchmark, or `nil` (said) when it was not built.
    static var volumekit: String? {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("volumekit").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            print("peers whole process: skipped (no \(path); build it: swift build -c release)")
            return nil
        }
        return path
    }

    /// The load average (1, 5 and 15 minutes) as `/proc/loadavg` says, for the figures printed beside it.
    static var loadAverage: String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
        return "load average " + text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// What a command sends on the wire: it runs once pointed at a ``WireCounter`` in front of the server.
    /// "N lines (first line; …) on M connections", or `nil` when it fails.
    static func onTheWire(_ path: String, _ arguments: (UInt16) -> [String], server port: UInt16) -> String? {
        guard let counter = try? WireCounter(upstream: port) else { return nil }
        defer { counter.stop() }
        guard spawn(path, arguments(counter.port)) != nil else { return nil }
        usleep(50_000)  // The relay's last read.
        let (connections, lines) = counter.take()
        let shown = lines.map { line -> String in
            let words = line.split(separator: " ", maxSplits: 1)
            return words.first == "password" ? "password" : String(line.prefix(60)) + (line.count > 60 ? "…" : "")
        }
        return
            "\(lines.count) line\(lines.count == 1 ? "" : "s") (\(shown.joined(separator: "; "))) on \(connections) connection\(connections == 1 ? "" : "s")"
    }

    /// `volumekit remote set|get snapcast://…` as whole processes, and what each sends on the wire (a set
    /// is one request line, a batch of the Client.SetVolume and a Client.GetStatus; a get one line).
    static func snapcastWholeProcess(host: String, port: UInt16, clientID: String) {
        guard let volumekit else { return }
        for action in ["set", "get"] {
            let url = { (port: UInt16) in "snapcast://\(host):\(port)/\(clientID)" }
            let arguments = { (port: UInt16) in ["remote", action, url(port)] + (action == "set" ? ["40"] : []) }
            guard let figures = SpawnFigures.alternating(volumekit, arguments(port)).ours else {
                print("peers whole process remote \(action) snapcast://…: volumekit failed")
                continue
            }
            let wire = onTheWire(volumekit, arguments, server: port) ?? "not counted"
            print(
                "peers whole process, \(SpawnFigures.runs) runs, remote \(action) snapcast://…\(action == "set" ? " 40" : ""): volumekit \(figures) (\(loadAverage)); on the wire: \(wire)"
            )
        }
    }

    /// `volumekit remote set` vs `mpc volume` as whole processes, and each one's start (`--version`).
    static func wholeProcess(mpdURL: String, host: String, port: UInt16, password: String?) {
        guard let volumekit else { return }
        let mpc = ["/usr/bin/mpc", "/usr/local/bin/mpc"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let mpcHost = password.map { "\($0)@\(host)" } ?? host
        let rows: [(String, String, [String], String?, [String])] = [
            (
                "remote set mpd://… 40", volumekit, ["remote", "set", mpdURL, "40"], mpc,
                ["-q", "-h", mpcHost, "-p", String(port), "volume", "40"]
            ),
            ("start (--version / mpc help)", volumekit, ["--version"], mpc, ["help"]),
        ]
        for (label, ours, arguments, peer, peerArguments) in rows {
            let (us, them) = SpawnFigures.alternating(ours, arguments, peer.map { ($0, peerArguments) })
            guard let us else {
                print("peers whole process \(label): volumekit failed")
                continue
            }
            var line = "peers whole process, \(SpawnFigures.runs) alternating runs, \(label): volumekit \(us)"
            if let them {
                line += " vs mpc \(them) (medians \(ratio(us.median, them.median)), fastest "
                line += "\(ratio(us.fastest, them.fastest))\(label.hasPrefix("remote") ? "; target ≤ 2.00×" : ""))"
            } else {
                line += " vs mpc: \(peer == nil ? "skipped (apt-get install mpc)" : "failed")"
            }
            print(line + " (\(loadAverage))")
        }
        // What each sends, through a counting relay.
        let ours = onTheWire(
            volumekit,
            { relay in ["remote", "set", mpdURL.replacingOccurrences(of: ":\(port)", with: ":\(relay)"), "40"] },
            server: port)
        var wire = "peers on the wire, remote set mpd://… 40: volumekit \(ours ?? "not counted")"
        if let mpc = ["/usr/bin/mpc", "/usr/local/bin/mpc"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) {
            let mpcHost = password.map { "\($0)@\(host)" } ?? host
            let theirs = onTheWire(
                mpc, { relay in ["-q", "-h", mpcHost, "-p", String(relay), "volume", "40"] }, server: port)
            wire += " vs mpc \(theirs ?? "not counted")"
        }
        print(wire)
    }

    /// Runs `path` with output to /dev/null; its wall time and minor page faults, or `nil` when it fails.
    static func spawn(_ path: String, _ arguments: [String]) -> (seconds: Double, faults: Int)? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = Measure.nanoseconds()
        guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { return nil }
        let seconds = Double(Measure.nanoseconds() - start) / 1e9
        return status == 0 ? (seconds, usage.ru_minflt) : nil
    }

    /// `path arguments`'s standard output, or `nil` when it fails.
    static func capture(_ path: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    static func us(_ seconds: Double) -> String { String(format: "%.3f ms", seconds * 1000) }
    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
    static func ratio(_ ours: Double, _ theirs: Double) -> String { String(format: "%.2f×", ours / theirs) }
}

/// A plain TCP socket sending a line and reading lines until one holds a marker: the floor a JSON-RPC
/// client cannot beat.
final class RawLineSocket: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(host: String, port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard connected == 0 else { throw RemoteVolumeError.unreachable("raw socket to \(host):\(port)") }
    }

    func close() { _ = Glibc.close(fd) }

    /// Sends `line` and reads lines until one contains `marker`.
    func roundTrip(_ line: String, awaiting marker: String) throws {
        let bytes = Array((line + "\n").utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            throw RemoteVolumeError.unreachable("raw socket send")
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let found = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if found.contains(marker) { return }
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw RemoteVolumeError.unreachable("raw socket closed") }
            buffer += chunk[..<count]
        }
    }
}
