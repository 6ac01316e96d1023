#if os(iOS)
import SwiftUI
import VolumeKit

/// A camera-style shutter: each press of either volume button takes a "photo"; holding a button takes a
/// burst (one per auto-repeat). The volume does not move and the system HUD stays hidden while the screen is
/// on show; leaving it gives the user's volume back.
@MainActor
struct ShutterScreen: View {
    @State private var shots = 0
    @State private var flash = false
    @State private var lastEvent = "Press a volume button"
    @State private var problem: String?

    var body: some View {
        VStack(spacing: 24) {
            ZStack {
                RoundedRectangle(cornerRadius: 16)
                    .fill(flash ? Color.white : Color.black)
                    .animation(.easeOut(duration: 0.25), value: flash)
                Text("\(shots)")
                    .font(.system(size: 64, weight: .bold, design: .rounded))
                    .foregroundColor(flash ? .black : .white)
            }
            .frame(height: 320)
            Text(lastEvent).font(.headline)
            if let problem {
                Text(problem).font(.footnote).foregroundColor(.red)
            }
            Text("Up or down: one photo. Hold: a burst.").font(.footnote).foregroundColor(.secondary)
        }
        .padding()
        .navigationTitle("Shutter")
        .onVolumeButton(onError: { problem = "Capture could not start: \($0)" }) { event in
            lastEvent = "\(event.button.rawValue) \(event.phase.rawValue)"
            guard event.phase != .released else { return }
            shots += 1
            flash = true
            Task { @MainActor in
                try? await Task.sleep(nanoseconds: 120_000_000)
                flash = false
            }
        }
    }
}
#endif
