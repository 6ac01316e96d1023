import Foundation

/// A renderer found by ``UPnPRenderer/discover(timeout:interfaceAddress:)``: the SSDP answer, and the
/// connected renderer or the reason its description could not be read in time.
public struct DiscoveredRenderer: Sendable {
    /// The SSDP answer (its `location` is the description URL).
    public var response: SSDPResponse
    /// The renderer, when its description (and SCPD) were read within the bound.
    public var renderer: UPnPRenderer?
    /// Why there is no renderer, when there is none.
    public var error: RemoteVolumeError?
}

extension UPnPRenderer {
    /// The most descriptions fetched at the same time during ``discover(timeout:interfaceAddress:)``.
    public static let maxConcurrentDescriptionFetches = 8

    /// Searches with SSDP and reads each answer's description, all within `timeout` seconds.
    ///
    /// `timeout` bounds the whole call (issue 12, defect 4: 10,000 answers pointing at a silent host used to
    /// take 2 s each, one after another): descriptions are fetched while answers still arrive, at most
    /// ``maxConcurrentDescriptionFetches`` at a time, each with a deadline that ends with the search's; at
    /// most ``SSDP/maxAnswers`` answers are kept. Answers whose description was not read in time come back
    /// with an ``DiscoveredRenderer/error`` (`.timedOut` for those never reached). In the order answers came.
    public static func discover(timeout: TimeInterval = 3, interfaceAddress: String? = nil) async throws -> [DiscoveredRenderer] {
        try await discover(timeout: timeout, interfaceAddress: interfaceAddress, destination: SSDP.multicastGroup)
    }

    /// ``discover(timeout:interfaceAddress:)`` with the search sent to `destination` (tests: a loopback peer).
    static func discover(
        timeout: TimeInterval, interfaceAddress: String?, destination: (host: String, port: UInt16),
        requestTimeout: TimeInterval = 2
    ) async throws -> [DiscoveredRenderer] {
        let deadline = Deadline(in: timeout)
        let answers = try SSDP.answers(timeout: timeout, interfaceAddress: interfaceAddress, destination: destination)
        let limit = ConcurrencyLimit(maxConcurrentDescriptionFetches)
        return try await withThrowingTaskGroup(of: (Int, DiscoveredRenderer).self) { group in
            var count = 0
            for try await answer in answers {
                let index = count
                count += 1
                group.addTask {
                    await limit.acquire()
                    var result = DiscoveredRenderer(response: answer, renderer: nil, error: .timedOut)
                    if deadline.remainingSeconds > 0.01 {
                        do {
                            result.renderer = try await connect(to: answer.location, requestTimeout: requestTimeout, deadline: deadline)
                            result.error = nil
                        } catch {
                            result.error = error.asRemoteVolumeError
                        }
                    }
                    await limit.release()
                    return (index, result)
                }
            }
            var found: [(Int, DiscoveredRenderer)] = []
            for try await result in group { found.append(result) }
            return found.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}

/// At most `n` holders at a time; the others wait in order.
actor ConcurrencyLimit {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { available = max(1, count) }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
