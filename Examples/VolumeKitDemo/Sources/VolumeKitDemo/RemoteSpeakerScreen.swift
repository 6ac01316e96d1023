#if os(iOS)
import RemoteVolume
import SwiftUI
import VolumeKit

/// A network speaker driven by the volume buttons, with VolumeKit's HUD showing the speaker's level (and its
/// bump at 0 % and 100 %): the phone's own volume does not move while a speaker is connected.
///
/// The speaker is typed as a URL — a UPnP/DLNA renderer's description (`http://HOST:PORT/description.xml`),
/// `mpd://[PASSWORD@]HOST[:PORT]` or `snapcast://HOST[:PORT]/CLIENT_ID` — or found on the network: UPnP
/// renderers by SSDP, MPD and Snapcast servers by DNS-SD (each Snapcast client listed from the server's
/// status). Both searches send multicast, which needs Apple's multicast entitlement
/// (`com.apple.developer.networking.multicast`; a free personal team cannot get it, so typing the address is the
/// way that always works). Once connected, the buttons drive it
/// through `.volumeButtons(driving:hud:)`, the one line an app writes.
@MainActor
struct RemoteSpeakerScreen: View {
    @StateObject private var model = RemoteSpeakerModel()
    /// The last address typed, kept for the next launch.
    @AppStorage("VolumeKitDemo.speakerURL") private var address = ""

    var body: some View {
        List {
            Section {
                TextField("http://…/description.xml, mpd://…, snapcast://…", text: $address)
                    .keyboardType(.URL)
                    .textInputAutocapitalization(.never)
                    .disableAutocorrection(true)
                    .onSubmit { connect() }
                Button(model.controller == nil ? "Connect" : "Connect again") { connect() }
                    .disabled(address.trimmingCharacters(in: .whitespaces).isEmpty || model.isConnecting)
            } header: {
                Text("Speaker address")
            } footer: {
                Text(
                    "UPnP: the renderer's description URL (gmediarender: http://HOST:49494/description.xml). MPD: mpd://HOST (port 6600). Snapcast: snapcast://HOST/CLIENT_ID (port 1705)."
                )
            }
            if let controller = model.controller {
                Section {
                    HStack {
                        Text("Level")
                        Spacer()
                        Text(model.levelText).monospacedDigit()
                    }
                    Text("Press or hold the volume buttons: the speaker follows, and the HUD bumps at 0 % and 100 %.")
                        .font(.footnote).foregroundColor(.secondary)
                    Button("Disconnect", role: .destructive) { model.disconnect() }
                } header: {
                    Text("Driving \(controller.device.displayName)")
                }
            }
            Section {
                if model.found.isEmpty {
                    Text(model.isSearching ? "Searching…" : "None found").foregroundColor(.secondary)
                }
                ForEach(model.found, id: \.location) { speaker in
                    Button(speaker.server ?? speaker.location.host ?? speaker.location.absoluteString) {
                        address = speaker.location.absoluteString
                        connect()
                    }
                }
                ForEach(model.servers, id: \.url) { server in
                    Button(server.title) {
                        address = server.url
                        connect()
                    }
                }
                Button("Search the network (UPnP)") { Task { await model.search() } }.disabled(model.isSearching)
                Button("Search for MPD and Snapcast (DNS-SD)") { Task { await model.searchServers() } }
                    .disabled(model.isSearching)
            } header: {
                Text("Found on this network")
            } footer: {
                Text(
                    "Both searches send multicast, which iOS allows only to apps with Apple's multicast entitlement. Without it a search fails: type the address above."
                )
            }
            if let problem = model.problem {
                Section { Text(problem).foregroundColor(.red) }
            }
        }
        .navigationTitle("Remote speaker")
        // While a speaker is connected and this screen is on show, the buttons drive it and VolumeKit's HUD
        // shows its level; leaving the screen or disconnecting gives the buttons back to the phone.
        .background {
            if let controller = model.controller {
                Color.clear
                    .volumeButtons(driving: controller, hud: .island) { diagnostic in
                        model.report(diagnostic)
                    }
            }
        }
        .onDisappear { model.disconnect() }
    }

    private func connect() {
        let typed = address
        Task { await model.connect(typed: typed) }
    }
}

/// The connection of ``RemoteSpeakerScreen``: parses the typed URL, connects, and follows the level.
@MainActor
final class RemoteSpeakerModel: ObservableObject {
    /// The speaker being driven (started and stopped by `.volumeButtons(driving:hud:)`).
    @Published private(set) var controller: RemoteVolumeController?
    @Published private(set) var isConnecting = false
    @Published private(set) var level: Int?
    @Published private(set) var found: [SSDPResponse] = []
    /// MPD servers and Snapcast clients found by DNS-SD, each with the URL that drives it.
    @Published private(set) var servers: [FoundServer] = []
    @Published private(set) var isSearching = false
    @Published private(set) var problem: String?

    private var levelTask: Task<Void, Never>?

    var levelText: String {
        guard let level, let range = controller?.device.volumeRange else { return "—" }
        return "\(level) of \(range.lowerBound)…\(range.upperBound)"
    }

    func connect(typed: String) async {
        disconnect()
        isConnecting = true
        defer { isConnecting = false }
        do {
            let url = try RemoteDeviceURL.parse(typed)
            let device = try await url.connect()
            let controller = RemoteVolumeController(device: device)
            self.controller = controller
            problem = nil
            levelTask = Task { [weak self] in
                for await update in await controller.updates() {
                    switch update {
                    case .level(let level): self?.level = level
                    case .failed(let error): self?.problem = "The speaker refused a change: \(error)"
                    case .muted, .requestSent: break
                    }
                }
            }
        } catch {
            problem = "Could not connect: \(error)"
        }
    }

    func disconnect() {
        levelTask?.cancel()
        levelTask = nil
        controller = nil
        level = nil
    }

    func report(_ diagnostic: VolumeDriveDiagnostic) {
        problem = "\(diagnostic)"
    }

    func search() async {
        isSearching = true
        defer { isSearching = false }
        do {
            let responses = try await SSDP.discover(timeout: 3)
            var seen = Set<URL>()
            found = responses.filter { seen.insert($0.location).inserted }
        } catch {
            problem = "Search failed (without the multicast entitlement it always does): \(error)"
        }
    }

    /// DNS-SD: MPD servers as they are, and each Snapcast server's clients (a `snapcast://` URL names one).
    func searchServers() async {
        isSearching = true
        defer { isSearching = false }
        do {
            var found: [FoundServer] = []
            for service in try await DNSSD.discover(timeout: 3) {
                switch service.kind {
                case .mpd:
                    found.append(FoundServer(title: "MPD: \(service.name)", url: service.url))
                case .snapcast:
                    let status = try? await SnapcastServerStatus.read(host: service.address, port: service.port)
                    for client in status?.groups.flatMap(\.clients) ?? [] where client.idIsExact {
                        found.append(FoundServer(title: "Snapcast: \(client.name)", url: "\(service.url)/\(client.id)"))
                    }
                }
            }
            servers = found
            if found.isEmpty { problem = "No MPD or Snapcast server answered." }
        } catch {
            problem = "Search failed (without the multicast entitlement it always does): \(error)"
        }
    }
}

/// A server found by DNS-SD: what the list shows, and the URL that connects to it.
struct FoundServer: Hashable {
    var title: String
    var url: String
}
#endif
