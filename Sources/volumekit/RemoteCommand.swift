import Dispatch
import RemoteVolume
import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `volumekit remote …`: find UPnP renderers and MPD and Snapcast servers, list a Snapcast server's clients,
/// and drive their volume.
enum RemoteCommand: Subcommand {
    static let name = "remote"
    static let summary =
        "Find UPnP renderers and MPD/Snapcast servers, list Snapcast clients; get/set/drive their volume"
    static let help = """
        USAGE: volumekit remote discover [--timeout S] [--interface IPV4] [--first]
               volumekit remote get URL
               volumekit remote set URL LEVEL
               volumekit remote mute URL on|off
               volumekit remote control URL [--step N]
               volumekit remote list snapcast://HOST[:PORT]

        A device is named by a URL: a UPnP renderer by its description URL (http://…), as 'discover' prints
        it (UPnP devices speak plain http, so https URLs are refused); a Music Player Daemon by
        mpd://[PASSWORD@]HOST[:PORT] (port 6600); a Snapcast client by snapcast://HOST[:PORT]/CLIENT_ID and a
        whole Snapcast group by snapcast://HOST[:PORT]/group/GROUP_ID (port 1705).

        discover   Multicasts an SSDP search for UPnP renderers and a DNS-SD (mDNS) query for MPD and Snapcast
                   servers (_mpd._tcp, _snapcast-jsonrpc._tcp), and prints one line per device as it
                   answers: URL, a tab, its name (a server's followed by "(MPD)" or "(Snapcast server)"; give
                   'list' a Snapcast server's URL for its clients). The whole command ends within --timeout
                   seconds (plus under a second).
        get        Prints the volume (checked against the device's own range) and mute state.
        set        Sets the volume to LEVEL, which must lie within the device's range.
        mute       Mutes (on) or unmutes (off).
        list       Prints a Snapcast server's groups and clients, one per line: the URL that names it, a tab,
                   then what it is (group or client), its name, volume and mute; a client's line follows
                   its group's, indented by two spaces in the second column.
        control    Arrow keys or +/- move the volume, m toggles mute, q quits (the last level asked for is
                   sent before it exits). Piped input is read as lines: up, down, mute, quit, or keys
                   such as +++; a line holding anything else is named on stderr and ignored, and a line
                   longer than 1,024 bytes ends the command (exit status 2). When stdout is not a
                   terminal one plain line is printed per change.

        MPD has no mute: 'mute on' sets volume 0 and keeps the level it had in a small file in your cache
        folder ($XDG_CACHE_HOME or ~/.cache, volumekit/mpd-mute-levels), which 'mute off' restores; without
        that file 'mute off' sets 20 and says so.

        OPTIONS:
          --timeout S       discover: seconds for the whole search, answers and descriptions (default 3,
                            at most 60).
          --first           discover: print the first renderer whose description was read, or the first
                            server, and exit.
          --interface IPV4  discover: search on the interface with this IPv4 address of this machine
                            (e.g. 192.168.1.20); default: the system's choice of interface.
          --step N          control: device units one key press moves (1…50, default 2).

        Names and errors that come from a device are printed with control characters removed; an MPD
        password is never printed (a URL in a message shows it as •••).
        EXIT STATUS: 0 success, 1 the device failed or none answered, 2 bad usage.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else {
            throw UsageError("needs an action: discover, get, set, mute, control or list")
        }
        var reader = ArgumentReader(Array(arguments.dropFirst()))
        switch action {
        case "discover":
            let timeoutText = try reader.option("--timeout") ?? "3"
            guard let timeout = Double(timeoutText), timeout > 0, timeout <= 60 else {
                throw UsageError("--timeout must be more than 0 and at most 60 seconds")
            }
            let interface = try reader.option("--interface")
            if let interface { try checkInterface(interface) }
            let firstOnly = reader.flag("--first")
            try reader.rejectUnknownOptions()
            guard reader.remaining.isEmpty else { throw UsageError("discover takes no arguments") }
            return try blocking {
                do {
                    return try await discover(timeout: timeout, interface: interface, firstOnly: firstOnly)
                } catch let error as RemoteVolumeError {
                    // Not the device's fault: no device was involved yet. A wrong --interface is
                    // bad usage (2); anything else is the search failing (1).
                    printError("volumekit remote: \(discoveryFailure(error, interface: interface))")
                    return interface == nil ? 1 : 2
                }
            }
        case "get":
            let url = try readURL(&reader, extra: 0)
            if case .mpd(let host, let port, let password) = url {
                // Written directly: `print` casts its argument at run time, a search of every conformance.
                writeUnbuffered(
                    try RemoteOneShot.mpdLine(host: host, port: port, password: password, setting: nil) + "\n")
                return 0
            }
            return try blocking {
                print(try await RemoteOneShot.get(url))
                return 0
            }
        case "set":
            let url = try readURL(&reader, extra: 1)
            guard let level = Int(reader.remaining[1]) else {
                throw UsageError(
                    "LEVEL must be a whole number within the device's range, such as 30 ('\(clean(reader.remaining[1]))' is not)"
                )
            }
            if case .mpd(let host, let port, let password) = url {
                writeUnbuffered(
                    try RemoteOneShot.mpdLine(host: host, port: port, password: password, setting: level) + "\n")
                return 0
            }
            return try blocking {
                print(try await RemoteOneShot.set(url, to: level))
                return 0
            }
        case "mute":
            let url = try readURL(&reader, extra: 1)
            let muted: Bool
            switch reader.remaining[1] {
            case "on", "1", "true": muted = true
            case "off", "0", "false": muted = false
            default: throw UsageError("mute takes on or off, such as: volumekit remote mute URL on")
            }
            if case .mpd(let host, let port, let password) = url {
                return try blocking { try await muteMPD(host: host, port: port, password: password, muted: muted) }
            }
            return try blocking {
                let renderer = try await url.connect()
                try await renderer.setMuted(muted)
                print("\(renderer.displayName): \(try await renderer.isMuted() ? "muted" : "not muted")")
                return 0
            }
        case "control":
            let stepText = try reader.option("--step") ?? "2"
            guard let step = Int(stepText), step >= 1, step <= 50 else {
                throw UsageError("--step must be a whole number of device units from 1 to 50, such as --step 5")
            }
            let url = try readURL(&reader, extra: 0)
            return try blocking { try await RemoteControlScreen.run(url: url, step: step) }
        case "list":
            try reader.rejectUnknownOptions()
            guard reader.remaining.count == 1 else {
                throw UsageError(
                    "list takes one Snapcast server, such as: volumekit remote list snapcast://HOST[:PORT]")
            }
            let text = reader.remaining[0]
            let server: (host: String, port: UInt16)
            do {
                server = try RemoteDeviceURL.parseSnapcastServer(text)
            } catch let error as RemoteVolumeError {
                guard case .invalidURL(let message) = error else { throw error }
                throw UsageError(message)
            }
            return try blocking { try await list(host: server.host, port: server.port) }
        default:
            throw UsageError("unknown action '\(clean(action))' (discover, get, set, mute, control, list)")
        }
    }

    private static func readURL(_ reader: inout ArgumentReader, extra: Int) throws -> RemoteDeviceURL {
        try reader.rejectUnknownOptions()
        guard reader.remaining.count == 1 + extra else {
            throw UsageError(
                extra == 0
                    ? "needs exactly one device URL (see 'volumekit remote --help')"
                    : "needs a device URL and \(extra) value (see 'volumekit remote --help')")
        }
        let text = reader.remaining[0]
        // Never echoed as given: an MPD password becomes •••. Only worked out for a message.
        var shown: String { RemoteDeviceURL.redacted(text, limit: 80) }
        let url: RemoteDeviceURL
        do {
            url = try RemoteDeviceURL.parse(text)
        } catch {
            throw UsageError(
                "'\(shown)' is not a device URL\(reason(of: error, for: text)): give the http:// description URL that 'volumekit remote discover' prints, or \(RemoteDeviceURL.acceptedForms.replacingAll("http://HOST[:PORT]/description.xml (UPnP), ", with: ""))"
            )
        }
        if case .upnp(let upnp) = url, upnp.scheme?.lowercased() != "http" {
            throw UsageError(
                "'\(shown)' is an https URL, but UPnP devices serve plain http: give the http:// URL that 'volumekit remote discover' prints"
            )
        }
        return url
    }

    /// The reason RemoteDeviceURL gave for refusing `text`, as " (REASON)": its message without the URL it
    /// repeats and the forms it lists after.
    private static func reason(of error: any Error, for text: String) -> String {
        let prefix = RemoteDeviceURL.redacted(text) + ": "
        guard case .invalidURL(let message) = error as? RemoteVolumeError, message.hasPrefix(prefix),
            let end = message.firstRange(ofText: "; use ")
        else { return "" }
        let why = message[message.index(message.startIndex, offsetBy: prefix.count)..<end.lowerBound]
        return why.isEmpty ? "" : " (\(why))"
    }

    /// What went wrong when discovery could not run, without blaming a device (none was involved).
    static func discoveryFailure(_ error: RemoteVolumeError, interface: String?) -> String {
        let what: String
        switch error {
        case .unreachable(let reason), .invalidURL(let reason), .unsupported(let reason), .invalidReply(let reason):
            what = clean(reason)
        default:
            what = clean(error.description)
        }
        let hint =
            interface == nil
            ? "check that this machine has a network connection"
            : "give --interface the IPv4 address of one of this machine's network interfaces, or leave it out"
        return "the search for devices could not run (\(what)); \(hint)"
    }

    /// `remote mute mpd://… on|off`: MPD has no mute, so the level muted from is kept across processes
    /// (``MPDMuteMemory``) and `mute off` says what it restored.
    private static func muteMPD(host: String, port: UInt16, password: String?, muted: Bool) async throws -> Int32 {
        let server = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        let remembered = muted ? nil : MPDMuteMemory.level(for: server)
        let device = try MPDDevice(
            host: host, port: port, password: password, unmuteLevel: remembered ?? 20)
        let before = try await device.volume()
        try await device.setMuted(muted)
        let after = try await device.volume()
        let note: String
        if muted {
            if before > 0 {
                let kept = MPDMuteMemory.remember(before, for: server)
                note =
                    kept
                    ? "volume 0; MPD has no mute, so 'mute off' restores \(before)"
                    : "volume 0; MPD has no mute, and the level \(before) could not be kept in the cache folder, so 'mute off' will set \(device.unmuteLevel)"
            } else {
                note = "volume 0; it was at 0 already"
            }
        } else {
            MPDMuteMemory.forget(server)
            if before != 0 {
                note = "volume \(after); it was not muted (MPD mutes by volume 0)"
            } else if remembered != nil {
                note = "volume \(after), the level before 'mute on'"
            } else {
                note =
                    "volume \(after): MPD has no mute and the level before muting is not known here, so \(device.unmuteLevel) was set"
            }
        }
        print("\(device.displayName): \(after == 0 ? "muted" : "not muted") (\(note))")
        return 0
    }

    /// `remote list snapcast://HOST[:PORT]`: the server's groups and clients with the URLs that name them.
    private static func list(host: String, port: UInt16) async throws -> Int32 {
        let status = try await SnapcastServerStatus.read(host: host, port: port)
        let base = "snapcast://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        var lines: [String] = []
        for group in status.groups {
            let name = group.name.isEmpty ? "(no name)" : "\"\(group.name)\""
            lines.append(
                "\(group.idIsExact ? "\(base)/group/\(group.id)" : "(id with control characters: \(group.id))")\t"
                    + "group \(name), \(group.clients.count) client\(group.clients.count == 1 ? "" : "s")\(group.muted ? ", muted" : "")"
            )
            for client in group.clients {
                var details = ["client \"\(client.name)\""]
                if let hostName = client.hostName, hostName != client.name { details.append("host \(hostName)") }
                details.append(client.volume.map { "volume \($0)" } ?? "volume outside 0…100")
                if client.muted { details.append("muted") }
                if client.connected == false { details.append("not connected") }
                lines.append(
                    "\(client.idIsExact ? "\(base)/\(client.id)" : "(id with control characters: \(client.id))")\t  "
                        + details.joined(separator: ", "))
            }
        }
        if status.groups.isEmpty { lines.append("\(base)\tno groups: no snapclient has connected to this server") }
        if status.isTruncated {
            lines.append(
                "\(base)\t(only the first \(SnapcastServerStatus.maxGroups) groups and \(SnapcastServerStatus.maxClients) clients are listed)"
            )
        }
        writeUnbuffered(lines.map { $0 + "\n" }.joined())
        return 0
    }

    /// Refuses an --interface value that is not an IPv4 address, with what to give instead.
    static func checkInterface(_ text: String) throws {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else {
            throw UsageError(
                "--interface takes the IPv4 address of one of this machine's network interfaces, such as 192.168.1.20; '\(clean(text))' is not an IPv4 address"
            )
        }
    }

    /// Text from the command line or a device, safe to echo: VolumeKit's one rule (`EchoedText`), control
    /// characters written as `\u{1B}`-style escapes, at most 80 characters, then "…".
    static func clean(_ text: String) -> String {
        EchoedText.clean(text, limit: 80)
    }

    /// What one of discovery's two searches brought.
    private enum Found: Sendable {
        case renderer(DiscoveredRenderer)
        case server(DiscoveredService)
        case failed(RemoteVolumeError)
    }

    private static func discover(timeout: Double, interface: String?, firstOnly: Bool) async throws -> Int32 {
        // One bound for the whole command: search and descriptions end within --timeout. Each renderer or
        // server is printed as soon as it is known, not at the timeout. UPnP (SSDP) and DNS-SD (mDNS: MPD and
        // Snapcast) search side by side.
        let renderers = try UPnPRenderer.discoveries(timeout: timeout, interfaceAddress: interface)
        let servers = try DNSSD.services(timeout: timeout, interfaceAddress: interface)
        let (found, sink) = AsyncStream<Found>.makeStream()
        let searches = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        for try await item in renderers { sink.yield(.renderer(item)) }
                    } catch {
                        sink.yield(.failed((error as? RemoteVolumeError) ?? .unreachable("\(error)")))
                    }
                }
                group.addTask {
                    do {
                        for try await item in servers { sink.yield(.server(item)) }
                    } catch {
                        sink.yield(.failed((error as? RemoteVolumeError) ?? .unreachable("\(error)")))
                    }
                }
            }
            sink.finish()
        }
        defer { searches.cancel() }
        var printed = 0
        var failure: RemoteVolumeError?
        for await item in found {
            let line: String
            switch item {
            case .renderer(let renderer):
                if firstOnly && renderer.renderer == nil { continue }
                // Names are cleaned of control characters by RemoteVolume; the URL is percent-encoded.
                let name =
                    renderer.renderer?.displayName
                    ?? (renderer.error == .timedOut ? "(no description in time)" : "(no description)")
                line = "\(renderer.response.location.absoluteString)\t\(name)"
            case .server(let server):
                // Names are cleaned by RemoteVolume; the URL holds a numeric address and a port.
                line = "\(server.url)\t\(server.name) (\(server.kind == .mpd ? "MPD" : "Snapcast server"))"
            case .failed(let error):
                failure = failure ?? error
                continue
            }
            writeUnbuffered(line + "\n")
            printed += 1
            if firstOnly { return 0 }
        }
        if printed == 0 {
            if let failure { throw failure }
            printError(
                "volumekit remote: no renderer or server answered within \(timeout) s; check that it is on and on this "
                    + "network, or try a longer --timeout or another --interface")
            return 1
        }
        if let failure {
            printError("volumekit remote: \(discoveryFailure(failure, interface: interface)) (one of the two searches)")
        }
        return 0
    }

    /// Runs async work from the synchronous command entry point.
    private static func blocking(_ work: @escaping @Sendable () async throws -> Int32) throws -> Int32 {
        let result = Locked<Result<Int32, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do { let status = try await work(); result.withLock { $0 = .success(status) } } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.current!.get()
    }
}
