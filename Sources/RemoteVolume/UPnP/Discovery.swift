#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A renderer found by ``UPnPRenderer/discover(timeout:interfaceAddress:)``: the SSDP answer, and the
/// connected renderer or the reason its description could not be read in time.
public struct DiscoveredRenderer: Sendable {
    /// The SSDP answer (its `location` is the description URL).
    public var response: SSDPResponse
    /// The renderer, when its description (and SCPD) were read within the bound.
    public var renderer: UPnPRenderer?
    /// Why there is no renderer, when there is none.
    public var error: RemoteVolumeError?
    /// Its place among the search's answers (0 = first answer).
    var order = 0
}

extension UPnPRenderer {
    /// The most descriptions fetched at the same time during ``discover(timeout:interfaceAddress:)``.
    public static let maxConcurrentDescriptionFetches = 8

    /// Searches with SSDP and reads each answer's description, all within `timeout` seconds.
    ///
    /// `timeout` bounds the whole call, however many answers point at a silent host: descriptions are fetched
    /// while answers still arrive, at most ``maxConcurrentDescriptionFetches`` at a time, each with a deadline
    /// that ends with the search's; at most ``SSDP/maxAnswers`` answers are kept. Answers whose description
    /// was not read in time come back with an ``DiscoveredRenderer/error`` (`.timedOut` for those never
    /// reached). In the order answers came.
    public static func discover(timeout: TimeInterval = 3, interfaceAddress: String? = nil) async throws
        -> [DiscoveredRenderer]
    {
        try await discover(timeout: timeout, interfaceAddress: interfaceAddress, destination: SSDP.multicastGroup)
    }

    /// ``discover(timeout:interfaceAddress:)`` with the search sent to `destination` (tests: a loopback peer).
    static func discover(
        timeout: TimeInterval, interfaceAddress: String?, destination: (host: String, port: UInt16),
        requestTimeout: TimeInterval = 2
    ) async throws -> [DiscoveredRenderer] {
        var found: [DiscoveredRenderer] = []
        for try await item in try discoveries(
            timeout: timeout, interfaceAddress: interfaceAddress, destination: destination,
            requestTimeout: requestTimeout)
        {
            found.append(item)
        }
        return found.sorted { $0.order < $1.order }
    }

    /// The renderers one search finds, each as soon as its description is read (or failed), within
    /// `timeout` seconds for the whole search (so the CLI prints each as it arrives, and
    /// `remote discover --first` ends at the first one).
    ///
    /// The same bounds as ``discover(timeout:interfaceAddress:)``: answers de-duplicated by device (USN),
    /// at most ``SSDP/maxAnswers``, ``maxConcurrentDescriptionFetches`` fetches at a time, each ending with
    /// the search. Stop iterating (or cancel) to end the search and its fetches early.
    public static func discoveries(timeout: TimeInterval = 3, interfaceAddress: String? = nil) throws
        -> AsyncThrowingStream<DiscoveredRenderer, any Error>
    {
        try discoveries(timeout: timeout, interfaceAddress: interfaceAddress, destination: SSDP.multicastGroup)
    }

    static func discoveries(
        timeout: TimeInterval, interfaceAddress: String?, destination: (host: String, port: UInt16),
        requestTimeout: TimeInterval = 2
    ) throws -> AsyncThrowingStream<DiscoveredRenderer, any Error> {
        let deadline = Deadline(in: timeout)
        let answers = try SSDP.answers(timeout: timeout, interfaceAddress: interfaceAddress, destination: destination)
        let limit = ConcurrencyLimit(maxConcurrentDescriptionFetches)
        let (stream, continuation) = AsyncThrowingStream<DiscoveredRenderer, any Error>.makeStream()
        let work = Task {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    var count = 0
                    for try await answer in answers {
                        let index = count
                        count += 1
                        group.addTask {
                            await limit.acquire()
                            var result = DiscoveredRenderer(response: answer, renderer: nil, error: .timedOut)
                            result.order = index
                            if deadline.remainingSeconds > 0.01 && !Task.isCancelled {
                                do {
                                    result.renderer = try await connect(
                                        to: answer.location, requestTimeout: requestTimeout, deadline: deadline)
                                    result.error = nil
                                } catch {
                                    result.error = error.asRemoteVolumeError
                                }
                            }
                            await limit.release()
                            continuation.yield(result)
                        }
                    }
                    try await group.waitForAll()
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in work.cancel() }
        return stream
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
