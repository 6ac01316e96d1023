import Foundation
import Testing
import VolumeKitCore

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Collects every element's name and attributes.
private final class ElementCollector: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append((name, attributes))
    }
    func elements(class className: String) -> [[String: String]] {
        elements.filter { $0.attributes["class"] == className }.map(\.attributes)
    }
}

@Suite("VolumeHUDPreview")
struct VolumeHUDPreviewTests {
    private func parse(_ svg: String) throws -> ElementCollector {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = ElementCollector()
        parser.delegate = collector
        let ok = parser.parse()
        #expect(ok, "SVG is well-formed: \(String(describing: parser.parserError))")
        return collector
    }

    @Test("every preset on every device and orientation is well-formed SVG with the style's segment count")
    func wellFormed() throws {
        for style in VolumeHUDStyle.presets {
            for device in VolumeHUDDevice.all {
                for orientation in VolumeHUDOrientation.allCases {
                    let svg = VolumeHUDPreview.svg(style: style, device: device, orientation: orientation, level: 0.5)
                    let xml = try parse(svg)
                    #expect(xml.elements.first?.name == "svg")
                    #expect(
                        xml.elements(class: "segment").count == style.fill.segmentCount, "\(style.name) \(device.id)")
                    #expect(xml.elements(class: "plate").count == 1)
                }
            }
        }
    }

    @Test("classic at 50 %: 16 segments, 8 lit, placed at the layout's frame")
    func classicContent() throws {
        let device = VolumeHUDDevice.named("iphone-15")!
        let xml = try parse(VolumeHUDPreview.svg(style: .classic, device: device, level: 0.5))
        #expect(xml.elements(class: "segment").count == 16)
        #expect(xml.elements(class: "fill").count == 8)
        let frame = VolumeHUDLayout(style: .classic, screen: device.screen(.portrait)).frame
        let hud = try #require(xml.elements(class: "hud").first)
        #expect(
            hud["transform"]
                == "translate(\(frame.minX) \(frame.minY))".replacingOccurrences(of: ".0 ", with: " ")
                .replacingOccurrences(of: ".0)", with: ")"))
        #expect(xml.elements(class: "cutout").count == 1)
    }

    @Test("bump and Increase Contrast show up in the drawing")
    func bumpAndContrast() throws {
        let device = VolumeHUDDevice.named("ipad-air")!
        let bumped = try parse(
            VolumeHUDPreview.svg(style: .classic, device: device, level: 1, bump: .maximum, increaseContrast: true))
        #expect(bumped.elements(class: "bump").count == 1)
        let plate = try #require(bumped.elements(class: "plate").first)
        #expect(plate["stroke"] == "#FFFFFF", "Increase Contrast outlines the plate")
        #expect(bumped.elements(class: "cutout").isEmpty, "an iPad has no cutout")
        let plain = try parse(VolumeHUDPreview.svg(style: .classic, device: device, level: 1))
        #expect(plain.elements(class: "plate").first?["stroke"] == nil)
    }
}
