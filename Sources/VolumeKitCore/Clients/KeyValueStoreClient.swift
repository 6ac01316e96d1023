#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Small persistent values that survive a crash or a kill (`UserDefaults` on iOS).
public struct KeyValueStoreClient: Sendable {
    /// The data stored under `key`, if any.
    public var data: @Sendable (_ key: String) -> Data?
    /// Stores `data` under `key`, or removes the key when `data` is `nil`.
    public var setData: @Sendable (_ data: Data?, _ key: String) -> Void

    /// Creates a client from its operations.
    public init(
        data: @escaping @Sendable (_ key: String) -> Data?,
        setData: @escaping @Sendable (_ data: Data?, _ key: String) -> Void
    ) {
        self.data = data
        self.setData = setData
    }

    /// A store in memory, empty at first: for tests and previews.
    public static func inMemory() -> KeyValueStoreClient {
        let storage = Locked([String: Data]())
        return KeyValueStoreClient(
            data: { key in storage.withLock { $0[key] } },
            setData: { data, key in storage.withLock { $0[key] = data } }
        )
    }
}
