import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG document read back with Foundation's XMLParser: its elements with their attributes and text, in order.
public final class SVGDocument: NSObject, XMLParserDelegate {
    public struct Element {
        public var name: String
        public var attributes: [String: String]
        public var text: String
    }

    public private(set) var elements: [Element] = []
    private var open: [Int] = []
    public private(set) var parseError: Error?

    /// Parses the document; nil when it is not well-formed XML.
    public static func parse(_ svg: String) -> SVGDocument? {
        let document = SVGDocument()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = document
        guard parser.parse() else { return nil }
        return document
    }

    public func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        open.append(elements.count)
        elements.append(Element(name: elementName, attributes: attributes, text: ""))
    }

    public func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }

    public func parser(_ parser: XMLParser, foundCharacters string: String) {
        for index in open { elements[index].text += string }
    }

    public func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        self.parseError = parseError
    }

    public func elements(named name: String) -> [Element] { elements.filter { $0.name == name } }

    /// The elements whose class attribute holds `className`.
    public func elements(ofClass className: String) -> [Element] {
        elements.filter { ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(className)) }
    }

    /// The texts of the `<text>` elements.
    public var texts: [String] { elements(named: "text").map(\.text) }

    /// The marks (or lines) drawn on the map of a class: the moves in the first path of that class, which holds
    /// them all; the legend's symbols come after it.
    public func marks(_ className: String) -> Int {
        guard let path = elements(ofClass: className).first(where: { $0.name == "path" }) else { return 0 }
        return (path.attributes["d"] ?? "").filter { $0 == "M" }.count
    }
}
