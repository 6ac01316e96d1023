import Foundation

/// The tone the extras' player and web-view steps play: a quiet 440 Hz sine as a 16-bit mono WAV file, made
/// at run time so the demo ships no media and needs no network.
public enum FieldCheckTone {
    /// The sample rate of ``wav(seconds:)``.
    public static let sampleRate = 22_050

    /// A WAV file (RIFF, PCM, 16-bit, mono) of `seconds` of a 440 Hz sine at a quarter of full scale, faded in
    /// and out over 50 ms so it starts and stops without a click.
    public static func wav(seconds: Double) -> Data {
        let count = max(0, Int(seconds * Double(sampleRate)))
        let fade = Double(sampleRate) * 0.05
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + count * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))  // the format chunk's size
        append(UInt16(1))  // PCM
        append(UInt16(1))  // mono
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * 2))  // bytes per second
        append(UInt16(2))  // bytes per frame
        append(UInt16(16))  // bits per sample
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(count * 2))
        for index in 0..<count {
            let envelope = min(1, Double(index) / fade, Double(count - index) / fade)
            let value = 0.25 * envelope * sin(2 * Double.pi * 440 * Double(index) / Double(sampleRate))
            append(Int16(value * Double(Int16.max)))
        }
        return data
    }

    /// A web page that plays `audioFile` (a name beside the page) with the browser's own controls.
    public static func page(audioFile: String) -> String {
        """
        <!doctype html>
        <html><head><meta name="viewport" content="width=device-width, initial-scale=1">
        <style>body { font: -apple-system-body; margin: 12px; } audio { width: 100%; }</style></head>
        <body><p>A web page playing a tone:</p><audio controls loop src="\(audioFile)"></audio></body></html>
        """
    }
}
