#if os(iOS)
import SwiftUI
import VolumeKit

/// The field check's "Your iPhone" section (issue 25): each rule VolumeKit learns of this iPhone with its value,
/// samples and spread beside the envelope's range, "not measured yet" where nothing is learned, and a flag with
/// the count for measurements outside the envelope. ``FieldCheckCalibration`` says what; this only lays it out.
@MainActor
struct FieldCheckCalibrationSection: View {
    /// What to show.
    let calibration: FieldCheckCalibration

    var body: some View {
        Section {
            ForEach(calibration.rows) { row in
                VStack(alignment: .leading, spacing: 2) {
                    HStack(alignment: .firstTextBaseline) {
                        Text(row.title)
                        Spacer()
                        Text(row.value).monospacedDigit().foregroundColor(color(row.verdict))
                    }
                    Text("envelope \(row.envelope)" + (row.detail.map { " · \($0)" } ?? ""))
                        .font(.caption).foregroundColor(.secondary)
                    if let note = row.outsideNote {
                        Label(note, systemImage: "exclamationmark.triangle.fill")
                            .font(.caption).foregroundColor(.orange)
                    }
                }
            }
            Text(calibration.summary).font(.footnote)
                .foregroundColor(calibration.isFlagged ? .orange : .secondary)
        } header: {
            HStack {
                Text("Your iPhone")
                if calibration.isFlagged {
                    Spacer()
                    Label("\(calibration.outsideCount) outside", systemImage: "exclamationmark.triangle.fill")
                        .foregroundColor(.orange)
                }
            }
        } footer: {
            Text(FieldCheckCalibration.explanation + " " + FieldCheckCalibration.reset)
        }
    }

    private func color(_ verdict: FieldCheckCalibration.Row.Verdict) -> Color {
        switch verdict {
        case .notMeasured: .secondary
        case .inside: .primary
        case .outside: .orange
        }
    }
}
#endif
