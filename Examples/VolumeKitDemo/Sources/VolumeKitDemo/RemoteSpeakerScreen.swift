#if os(iOS)
import RemoteVolume
import SwiftUI
import VolumeKit

/// A network speaker (UPnP/DLNA renderer) driven by the volume buttons, with VolumeKit's HUD showing the
/// speaker's level: the phone's own volume does not move while the screen is on show.
@MainActor
struct RemoteSpeakerScreen: View {
    @StateObject private var model = RemoteSpeakerModel()

    var body: some View {
        List {
            Section("Speakers on this network") {
                if model.found.isEmpty {
                    Text(model.isSearching ? "Searching…" : "None found yet").foregroundColor(.secondary)
                }
                ForEach(model.found, id: \.location) { speaker in
                    Button(speaker.server ?? speaker.location.host ?? speaker.location.absoluteString) {
                        Task { await model.connect(to: speaker.location) }
                    }
                }
                Button("Search again") { Task { await model.search() } }.disabled(model.isSearching)
            }
            if let name = model.connectedName {
                Section("Driving \(name)") {
                    HStack {
                        Text("Level")
                        Spacer()
                        Text(model.level.map { String(format: "%.0f %%", $0 * 100) } ?? "—").monospacedDigit()
                    }
                    Text("Press or hold the volume buttons: the speaker follows.").font(.footnote).foregroundColor(.secondary)
                }
            }
            if let problem = model.problem {
                Section { Text(problem).foregroundColor(.red) }
            }
        }
        .navigationTitle("Remote speaker")
        .task { await model.search() }
        .onDisappear { model.disconnect() }
    }
}

/// Discovery, the connection and the button → speaker → HUD wiring of ``RemoteSpeakerScreen``.
@MainActor
final class RemoteSpeakerModel: ObservableObject {
    @Published private(set) var found: [SSDPResponse] = []
    @Published private(set) var isSearching = false
    @Published private(set) var connectedName: String?
    @Published private(set) var level: Float?
    @Published private(set) var problem: String?

    private var controller: RemoteVolumeController?
    private var buttons: VolumeButtons?
    private var hud: VolumeHUD?
    private var tasks: [Task<Void, Never>] = []

    func search() async {
        isSearching = true
        defer { isSearching = false }
        do {
            let responses = try await SSDP.discover(timeout: 3)
            var seen = Set<URL>()
            found = responses.filter { seen.insert($0.location).inserted }
        } catch {
            problem = "Search failed: \(error)"
        }
    }

    func connect(to location: URL) async {
        disconnect()
        do {
            let renderer = try await UPnPRenderer.connect(to: location)
            let controller = RemoteVolumeController(device: renderer)
            try await controller.start()
            let buttons = VolumeButtons()
            try buttons.start()
            // The HUD shows the speaker's level, not the phone's.
            let hud = VolumeHUD(observesSystemVolume: false)
            hud.start()
            self.controller = controller
            self.buttons = buttons
            self.hud = hud
            connectedName = renderer.displayName
            problem = nil
            let events = buttons.events()
            tasks.append(Task { await controller.drive(with: events) })
            tasks.append(Task { [weak self] in
                for await level in await controller.hudLevels() {
                    hud.show(level: level)
                    self?.level = level
                }
            })
        } catch {
            problem = "Could not drive the speaker: \(error)"
        }
    }

    func disconnect() {
        tasks.forEach { $0.cancel() }
        tasks = []
        buttons?.stop()
        hud?.stop()
        if let controller { Task { await controller.stop() } }
        controller = nil
        buttons = nil
        hud = nil
        connectedName = nil
        level = nil
    }
}
#endif
