import Foundation
import SVGTestSupport
import Geo
@testable import Maps
import Testing

@Suite struct MapRendererTests {
    static let renderer: MapRenderer = {
        do { return try MapRenderer.bundled() } catch { fatalError("the bundled boundaries do not load: \(error)") }
    }()

    func document(_ picture: MapPicture) throws -> (svg: String, document: SVGDocument) {
        let svg = try MapRendererTests.renderer.svg(picture)
        let document = try #require(SVGDocument.parse(svg), "not well-formed XML")
        return (svg, document)
    }

    /// The viewBox's four numbers.
    func viewBox(_ document: SVGDocument) throws -> [Double] {
        let svg = try #require(document.elements(named: "svg").first)
        return try #require(svg.attributes["viewBox"]).split(separator: " ").map { try #require(Double($0)) }
    }

    @Test(arguments: MapExamples.all.map(\.name))
    func examplesAreWellFormedSVG(name: String) throws {
        let picture = try #require(MapExamples.all.first { $0.name == name }).picture
        let (svg, document) = try document(picture)
        #expect(svg.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(document.elements.first?.name == "svg")
        #expect(document.elements.first?.attributes["xmlns"] == "http://www.w3.org/2000/svg")
    }

    @Test func legendListsTheKindsUsedAndOnlyThose() throws {
        let (_, document) = try document(MapExamples.shenzhenMerchant())
        let legend = document.elements(ofClass: "legend")
        #expect(legend.count == 1)
        let texts = document.texts
        #expect(texts.contains("merchant address"))
        #expect(texts.contains("terminal"))
        #expect(!texts.contains("precise fix"))
        #expect(!texts.contains("unusable fix"))

        let (_, history) = try self.document(MapExamples.borderHistory())
        for kind in MapPicture.Kind.allCases where kind != .terminal {
            #expect(history.texts.contains(kind.legendText), "\(kind)")
        }
        #expect(!history.texts.contains("terminal"))
    }

    @Test func linesAreInTheLegendWhenNamed() throws {
        let (_, document) = try document(MapExamples.shenzhenMerchant())
        let legend = try #require(document.elements(ofClass: "legend").first)
        #expect(legend.text.contains("terminal to its merchant"))

        var unnamed = MapExamples.shenzhenMerchant()
        unnamed.lineLegend = nil
        let (_, plain) = try self.document(unnamed)
        #expect(!plain.texts.contains("terminal to its merchant"))
    }

    @Test func marksTitlesAreShownUnderThePointer() throws {
        let (_, document) = try document(MapExamples.shenzhenMerchant())
        let titles = document.elements(ofClass: "mark-titles")
        #expect(titles.count == 1)
        let texts = document.elements(named: "title").map(\.text)
        #expect(texts.contains("T-1003: latest precise fix 3 km from the address of M-88"))
        #expect(texts.count == 4)  // the document's and the three terminals'
    }

    @Test func scaleBarShowsARoundDistanceShorterThanAQuarterOfTheMap() throws {
        let (_, document) = try document(MapExamples.shenzhenMerchant())
        let bar = document.elements(ofClass: "scale-bar")
        #expect(bar.count == 1)
        let label = try #require(bar.first).text.trimmingCharacters(in: .whitespacesAndNewlines)
        let round = ["1 km", "2 km", "500 m", "200 m"]
        #expect(round.contains(label), "scale bar label \(label)")
    }

    @Test func distanceLabelsOfLines() throws {
        let (_, document) = try document(MapExamples.shenzhenMerchant())
        let labels = document.texts
        #expect(labels.contains("3 km"))
        #expect(labels.contains("69 m"))
        #expect(labels.contains("235 m"))
        #expect(labels.contains("T-1003"))
    }

    @Test func textIsEscaped() throws {
        let nasty = #"<b>"Tom" & 'Jerry'</b>"#
        let position = Coordinate(latitude: 22.5, longitude: 114.0)
        let picture = MapPicture(
            title: nasty,
            marks: [MapPicture.Mark(position, kind: .preciseFix, label: nasty + "\u{1}", title: nasty)],
            lines: [MapPicture.Line(from: position, to: Coordinate(latitude: 22.51, longitude: 114.0), label: .text(nasty))])
        let (svg, document) = try document(picture)
        #expect(!svg.contains("<b>"))
        #expect(svg.contains("&lt;b&gt;&quot;Tom&quot; &amp; &apos;Jerry&apos;&lt;/b&gt;"))
        #expect(document.elements(named: "title").map(\.text) == [nasty, nasty])  // the document's and the mark's
        #expect(document.texts.filter { $0 == nasty }.count == 2)  // the title above the map and the line's label
        #expect(document.texts.contains(nasty + "\u{FFFD}"))
    }

    @Test func onePointGivesAFiniteViewOfAboutAKilometre() throws {
        let picture = MapPicture(marks: [MapPicture.Mark(MapExamples.merchant, kind: .merchantAddress)])
        let (_, document) = try document(picture)
        let box = try viewBox(document)
        #expect(box.count == 4)
        #expect(box.allSatisfy { $0.isFinite })
        #expect(box[2] > 0 && box[3] > 0)
        let bar = try #require(document.elements(ofClass: "scale-bar").first).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(["200 m", "500 m"].contains(bar), "scale bar label \(bar)")
    }

    @Test func sameInputSameBytes() throws {
        for (name, picture) in MapExamples.all {
            let first = try MapRendererTests.renderer.svg(picture)
            let second = try MapRenderer.bundled().svg(picture)
            #expect(first == second, "\(name)")
        }
    }

    @Test func outlinesOfHongKongAndMainlandInABorderView() throws {
        let (_, document) = try document(MapExamples.borderHistory())
        #expect(document.elements(ofClass: "hong_kong").filter { $0.name == "path" }.count == 1)
        #expect(document.elements(ofClass: "mainland").filter { $0.name == "path" }.count == 1)
        #expect(document.elements(ofClass: "taiwan").isEmpty)
        #expect(document.texts.contains("Hong Kong"))
        #expect(document.texts.contains("mainland China"))
    }

    @Test func outlinesAreLeftOutWithoutBoundaryData() throws {
        let svg = try MapRenderer(outlines: nil).svg(MapExamples.borderHistory())
        let document = try #require(SVGDocument.parse(svg))
        #expect(document.elements(ofClass: "region").isEmpty)
        #expect(!document.texts.contains("Hong Kong"))
    }

    @Test func aCountryWideViewStaysSmall() throws {
        let picture = MapExamples.countryWide()
        let (svg, document) = try document(picture)
        #expect(svg.utf8.count < 400_000, "\(svg.utf8.count) bytes")
        #expect(!document.elements(ofClass: "taiwan").isEmpty)
        #expect(!document.elements(ofClass: "outside").isEmpty)
    }

    @Test func tenThousandPointsAreFastAndSmall() throws {
        let picture = MapExamples.manyFixes()
        let clock = ContinuousClock()
        var svg = ""
        let elapsed = try clock.measure { svg = try MapRendererTests.renderer.svg(picture) }
        #expect(elapsed < .seconds(3), "\(elapsed)")
        #expect(svg.utf8.count < 1_000_000, "\(svg.utf8.count) bytes")
        let document = try #require(SVGDocument.parse(svg))
        #expect(document.elements(named: "text").count < 30)  // labels left out beyond the limit
        #expect(document.texts.contains("10000 labels of points not drawn (more than 100)."))
        #expect(document.texts.contains("10000 titles of points not written (more than 2000)."))
        #expect(document.elements(named: "title").count == 1)  // the document's own
    }

    @Test func nothingToDrawIsAnError() {
        #expect(throws: MapError.self) { try MapRendererTests.renderer.svg(MapPicture(marks: [])) }
        do {
            _ = try MapRendererTests.renderer.svg(MapPicture(marks: []))
        } catch {
            #expect("\(error)" == "nothing to draw: the map has no points and no lines")
        }
    }

    @Test func aPositionOffTheGlobeIsAnErrorNamingTheField() {
        let good = MapPicture.Mark(MapExamples.merchant, kind: .terminal)
        let bad = MapPicture.Mark(Coordinate(latitude: 91, longitude: 114), kind: .terminal)
        do {
            _ = try MapRendererTests.renderer.svg(MapPicture(marks: [good, bad]))
            Issue.record("no error")
        } catch {
            #expect("\(error)" == "marks[1].position.latitude: 91.0 is not a latitude (-90 to 90)")
        }
        let line = MapPicture.Line(from: MapExamples.merchant, to: Coordinate(latitude: 22, longitude: .nan))
        do {
            _ = try MapRendererTests.renderer.svg(MapPicture(marks: [good], lines: [line]))
            Issue.record("no error")
        } catch {
            #expect("\(error)" == "lines[0].to.longitude: nan is not a longitude (-180 to 180)")
        }
    }

    @Test(arguments: [(0.4, "0 m"), (67.2, "67 m"), (999.4, "999 m"), (999.6, "1 km"), (3000, "3 km"),
                      (3049, "3 km"), (3050, "3.1 km"), (12_345, "12.3 km"), (250_400, "250 km")])
    func distanceText(metres: Double, text: String) {
        #expect(MapRenderer.distanceText(metres) == text)
    }
}

@Suite struct MapExamplesTests {
    /// Writes the examples as SVG files into the directory named by GEOLEDGER_MAP_EXAMPLES, when it is set.
    @Test func writeExamples() throws {
        let renderer = try MapRenderer.bundled()
        let directory = ProcessInfo.processInfo.environment["GEOLEDGER_MAP_EXAMPLES"]
        for (name, picture) in MapExamples.all {
            let svg = try renderer.svg(picture)
            #expect(SVGDocument.parse(svg) != nil, "\(name)")
            if let directory {
                try svg.write(toFile: directory + "/" + name + ".svg", atomically: true, encoding: .utf8)
            }
        }
    }
}

@Suite struct OutlinePathsTests {
    typealias Point = OutlinePaths.Point
    let box = OutlinePaths.Box(minX: 0, minY: 0, maxX: 10, maxY: 10)

    @Test func aRingAroundTheBoxBecomesTheBox() {
        let ring = [Point(x: -5, y: -5), Point(x: 15, y: -5), Point(x: 15, y: 15), Point(x: -5, y: 15)]
        let clipped = OutlinePaths.clipped(ring, to: box)
        #expect(Set(clipped.map { "\($0.x),\($0.y)" }) == ["0.0,0.0", "10.0,0.0", "10.0,10.0", "0.0,10.0"])
    }

    @Test func aRingOutsideTheBoxIsGone() {
        let ring = [Point(x: 20, y: 20), Point(x: 30, y: 20), Point(x: 30, y: 30)]
        #expect(OutlinePaths.clipped(ring, to: box).isEmpty)
    }

    @Test func aRingAcrossAnEdgeIsCutAtIt() {
        let ring = [Point(x: 5, y: 2), Point(x: 15, y: 2), Point(x: 15, y: 8), Point(x: 5, y: 8)]
        let clipped = OutlinePaths.clipped(ring, to: box)
        #expect(clipped.allSatisfy { $0.x <= 10 })
        #expect(clipped.contains(Point(x: 10, y: 2)) && clipped.contains(Point(x: 10, y: 8)))
        #expect(clipped.count == 4)
    }

    @Test func verticesCloserThanTheToleranceAreDropped() {
        let ring = [Point(x: 0, y: 0), Point(x: 0.1, y: 0), Point(x: 0.5, y: 0.5), Point(x: 5, y: 0), Point(x: 5, y: 5)]
        #expect(OutlinePaths.simplified(ring) == [Point(x: 0, y: 0), Point(x: 5, y: 0), Point(x: 5, y: 5)])
    }
}
