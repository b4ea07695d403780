import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG document read back with Foundation's XMLParser: its elements with their attributes and text, in order.
final class SVGDocument: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text: String
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []
    private(set) var parseError: Error?

    /// Parses the document; nil when it is not well-formed XML.
    static func parse(_ svg: String) -> SVGDocument? {
        let document = SVGDocument()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = document
        guard parser.parse() else { return nil }
        return document
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        open.append(elements.count)
        elements.append(Element(name: elementName, attributes: attributes, text: ""))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        for index in open { elements[index].text += string }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        self.parseError = parseError
    }

    func elements(named name: String) -> [Element] { elements.filter { $0.name == name } }

    /// The elements whose class attribute holds `className`.
    func elements(ofClass className: String) -> [Element] {
        elements.filter { ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(className)) }
    }

    /// The texts of the `<text>` elements.
    var texts: [String] { elements(named: "text").map(\.text) }
}
