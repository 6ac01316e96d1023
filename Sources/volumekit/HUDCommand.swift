import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `volumekit hud preview`: the custom volume HUD drawn as SVG on a device outline.
enum HUDCommand: Subcommand {
    static let name = "hud"
    static let summary = "Preview the custom volume HUD as SVG"
    static var help: String {
        """
        USAGE: volumekit hud preview [--style S] [--device D] [--level L] [--orientation O]
                                     [--bump minimum|maximum] [--contrast] [--no-safe-area] [--output FILE]

        Prints an SVG of the HUD on a device outline, from the same style and geometry values the iOS views use.

        OPTIONS:
          --style S        \(styleNames) (default classic)
          --device D       \(deviceNames) (default iphone-15)
          --level L        0…1 or a percentage like 50% (default 0.5)
          --orientation O  \(orientationNames) (default portrait)
          --bump B         draw a press at a rail: minimum or maximum
          --contrast       use the Increase Contrast colours
          --no-safe-area   do not outline the safe area
          --output FILE    write the SVG to FILE instead of standard output
        """
    }

    static var styleNames: String { VolumeHUDStyle.presets.map(\.name).joined(separator: ", ") }
    static var deviceNames: String { VolumeHUDDevice.all.map(\.id).joined(separator: ", ") }
    static var orientationNames: String { "portrait, landscape (= landscape-left), landscape-left, landscape-right" }

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let verb = arguments.first else { throw UsageError("missing action: use 'hud preview' (see --help)") }
        guard verb == "preview" else {
            throw UsageError("unknown action '\(EchoedText.argument(verb))': use 'hud preview'")
        }
        var reader = ArgumentReader(Array(arguments.dropFirst()))

        let styleName = try reader.option("--style") ?? "classic"
        guard let style = VolumeHUDStyle.preset(named: styleName) else {
            throw UsageError("unknown style '\(EchoedText.argument(styleName))'; valid styles: \(styleNames)")
        }
        let deviceName = try reader.option("--device") ?? "iphone-15"
        guard let device = VolumeHUDDevice.named(deviceName) else {
            throw UsageError("unknown device '\(EchoedText.argument(deviceName))'; valid devices: \(deviceNames)")
        }
        let levelText = try reader.option("--level") ?? "0.5"
        guard let level = parseLevel(levelText) else {
            throw UsageError(
                "bad level '\(EchoedText.argument(levelText))': use a number from 0 to 1, or a percentage like 50%")
        }
        let orientationText = try reader.option("--orientation") ?? "portrait"
        guard let orientation = parseOrientation(orientationText) else {
            throw UsageError(
                "unknown orientation '\(EchoedText.argument(orientationText))'; valid orientations: \(orientationNames)"
            )
        }
        var bump: VolumeHUDBump?
        if let bumpText = try reader.option("--bump") {
            guard let value = VolumeHUDBump(rawValue: bumpText.lowercased()) else {
                throw UsageError("unknown bump '\(EchoedText.argument(bumpText))'; valid: minimum, maximum")
            }
            bump = value
        }
        let contrast = reader.flag("--contrast")
        let noSafeArea = reader.flag("--no-safe-area")
        let output = try reader.option("--output")
        try reader.rejectUnknownOptions()
        if let extra = reader.remaining.first {
            throw UsageError("unexpected argument '\(EchoedText.argument(extra))'")
        }

        let svg = VolumeHUDPreview.svg(
            style: style, device: device, orientation: orientation, level: level, bump: bump,
            increaseContrast: contrast, showsSafeArea: !noSafeArea
        )
        if let output {
            do {
                try Data(svg.utf8).write(to: URL(fileURLWithPath: output))
            } catch {
                printError(
                    "volumekit hud: cannot write the SVG to '\(EchoedText.path(output))'; check that its folder exists and can be written"
                )
                return 1
            }
        } else {
            print(svg, terminator: "")
        }
        return 0
    }

    /// "0.5", "50%", "1" → 0…1; anything else (or out of range, NaN) → nil.
    static func parseLevel(_ text: String) -> Float? {
        let percent = text.hasSuffix("%")
        guard let value = Float(percent ? String(text.dropLast()) : text), value.isFinite else { return nil }
        let level = percent ? value / 100 : value
        return (0...1).contains(level) ? level : nil
    }

    static func parseOrientation(_ text: String) -> VolumeHUDOrientation? {
        switch text.lowercased() {
        case "portrait": return .portrait
        case "landscape", "landscape-left", "landscapeleft": return .landscapeLeft
        case "landscape-right", "landscaperight": return .landscapeRight
        default: return nil
        }
    }
}
