import Foundation

@testable import RemoteVolume

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Binds `fd` (a TCP or UDP socket) to 127.0.0.1 on a port the system picks, and returns that port — the
/// test peers' one way onto loopback (never another address).
func bindLoopback(_ fd: Int32, _ what: String) throws -> UInt16 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw RemoteVolumeError.unreachable("\(what) cannot bind to 127.0.0.1") }
    return UInt16(bigEndian: address.sin_port)
}
