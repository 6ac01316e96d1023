#if os(iOS)
import Foundation

extension KeyValueStoreClient {
    /// `UserDefaults.standard`. The package's `PrivacyInfo.xcprivacy` declares this use (reason CA92.1:
    /// reading and writing information accessible only to the app itself).
    public static let live = KeyValueStoreClient(
        data: { key in UserDefaults.standard.data(forKey: key) },
        setData: { data, key in
            if let data {
                UserDefaults.standard.set(data, forKey: key)
            } else {
                UserDefaults.standard.removeObject(forKey: key)
            }
        }
    )
}
#endif
