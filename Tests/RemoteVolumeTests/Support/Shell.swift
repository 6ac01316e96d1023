import Foundation
import RemoteVolume
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's root folder, where `scripts/` is (this file is Tests/RemoteVolumeTests/Support/Shell.swift).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// Runs `/bin/bash arguments…` and returns its exit status.
///
/// posix_spawn + waitpid rather than Foundation's Process, whose exit monitoring never fires on a thread
/// without a run loop (seen here: the child stays a zombie and `isRunning` stays true). The wait is on a
/// thread of its own (``onOwnThread(_:)``), never on the concurrency pool, which a 2-core machine gives two
/// threads.
func bash(_ arguments: [String]) async throws -> Int32 {
    try await onOwnThread {
        var pid: pid_t = 0
        let words = ["/bin/bash"] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, argv, environ)
        guard spawned == 0 else { throw RemoteVolumeError.unreachable("posix_spawn failed: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }
}

/// Runs `command` with /bin/bash and returns its exit status.
func shell(_ command: String) async throws -> Int32 {
    try await bash(["-c", command])
}

/// Runs `scripts/<name> <verb>` and returns its exit status.
func runPeerScript(_ name: String, _ verb: String) async throws -> Int32 {
    try await bash([packageRoot.appendingPathComponent("scripts/\(name)").path, verb])
}
