import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended: whether it exited before its deadline (else it was killed), its status, and
/// what it wrote to standard output and standard error.
public struct ChildProcessOutcome: Sendable {
    /// Whether the process ended by itself before the deadline.
    public let exited: Bool
    /// Its termination status (the signal's number when it was killed).
    public let status: Int32
    /// Everything it wrote to standard output.
    public let output: String
    /// Everything it wrote to standard error.
    public let error: String
}

/// The `volumekit` executable `swift test` built beside the test bundle.
public var volumekitExecutable: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        .deletingLastPathComponent().appendingPathComponent("volumekit")
}

/// Runs `executable arguments…` with standard input from /dev/null until it exits or `deadline` seconds pass
/// (then it is killed with SIGKILL: a child of `Process` starts with SIGTERM blocked).
///
/// The wait happens on a thread of its own (``onOwnThread(_:)``), never on one of Swift concurrency's: with
/// one pool thread per core, two tests waiting for a `volumekit` run in place stalled every other test on
/// the 2-core CI machine, and the wall-clock tests beside them saw nothing happen for seconds. Output goes
/// to files, so a chatty child never blocks on a full pipe.
public func runChildProcess(
    _ executable: URL, _ arguments: [String], deadline: TimeInterval = 120
) async throws -> ChildProcessOutcome {
    try await onOwnThread { try runChildProcessWaiting(executable, arguments, deadline: deadline) }
}

private func runChildProcessWaiting(
    _ executable: URL, _ arguments: [String], deadline: TimeInterval
) throws -> ChildProcessOutcome {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vk-child-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outURL = folder.appendingPathComponent("out")
    let errURL = folder.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    defer {
        try? out.close()
        try? err.close()
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    let exited = ended.wait(timeout: .now() + deadline) == .success
    if !exited {
        kill(process.processIdentifier, SIGKILL)
        ended.wait()
    }
    let output = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
    let error = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
    return ChildProcessOutcome(exited: exited, status: process.terminationStatus, output: output, error: error)
}

/// Runs `work` — a call that blocks, such as waiting for a child process — on a thread of its own and
/// returns its result without holding one of Swift concurrency's threads meanwhile.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.name = "TestSupport.onOwnThread"
        thread.start()
    }
}
