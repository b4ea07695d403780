import Geo

/// What a map shows: marked points, lines between points, and a title. Positions are WGS-84.
///
/// A ``MapRenderer`` draws it as a standalone SVG document.
public struct MapPicture: Sendable {
    /// Text above the map; nil for none.
    public var title: String?
    /// Drawn in kind order (the fixes under the terminals under the merchant addresses), in their order within a kind.
    public var marks: [Mark]
    /// Drawn under the marks.
    public var lines: [Line]
    /// What the lines stand for, in the legend (such as "terminal to its merchant"); nil leaves them out of it.
    public var lineLegend: String?

    public init(title: String? = nil, marks: [Mark], lines: [Line] = [], lineLegend: String? = nil) {
        self.title = title
        self.marks = marks
        self.lines = lines
        self.lineLegend = lineLegend
    }

    /// What a mark stands for; each has its own symbol and legend entry.
    public enum Kind: String, Sendable, CaseIterable {
        /// A merchant's address position: a red diamond.
        case merchantAddress = "merchant-address"
        /// A terminal's position: a blue square.
        case terminal
        /// A precise fix: a green dot.
        case preciseFix = "precise-fix"
        /// An approximate fix: an orange dot.
        case approximateFix = "approximate-fix"
        /// An unusable fix: a grey dot.
        case unusableFix = "unusable-fix"

        /// The words of the legend.
        public var legendText: String {
            switch self {
            case .merchantAddress: return "merchant address"
            case .terminal: return "terminal"
            case .preciseFix: return "precise fix"
            case .approximateFix: return "approximate fix"
            case .unusableFix: return "unusable fix"
            }
        }
    }

    /// A marked point.
    public struct Mark: Sendable {
        public var position: Coordinate
        public var kind: Kind
        /// Written next to the mark, when the map has at most ``MapRenderer/labelLimit`` labelled marks.
        public var label: String?
        /// Shown by a browser when the pointer rests on the mark (an SVG `<title>`), when the map has at most
        /// ``MapRenderer/titleLimit`` of them: the details a label has no room for.
        public var title: String?

        public init(_ position: Coordinate, kind: Kind, label: String? = nil, title: String? = nil) {
            self.position = position
            self.kind = kind
            self.label = label
            self.title = title
        }
    }

    /// A straight line between two points, such as a terminal and its merchant.
    public struct Line: Sendable {
        public var from: Coordinate
        public var to: Coordinate
        public var label: Label

        public init(from: Coordinate, to: Coordinate, label: Label = .distance) {
            self.from = from
            self.to = to
            self.label = label
        }

        /// What is written at a line's middle.
        public enum Label: Sendable, Hashable {
            /// The great-circle distance between the ends, as ``MapRenderer/distanceText(_:)`` writes it.
            case distance
            case text(String)
            case none
        }
    }
}

/// Why a picture cannot be drawn.
public struct MapError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
