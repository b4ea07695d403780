import Foundation

/// The formats a result can be written in.
public enum Format: String, Sendable, CaseIterable {
    /// Aligned columns for people, fitted to ``Presentation/width``.
    case table
    /// One JSON document.
    case json
    /// One JSON object per line: a row each, or the whole ``Document`` on one line.
    case ndjson
    /// RFC 4180 fields under a header row of the column names, lines ending in LF.
    case csv
    /// A FeatureCollection of Point features, `[lon, lat]` in WGS-84, the other columns as properties.
    case geojson

    /// Whether it is for programs, which get values unrounded and times in UTC unless a zone is named.
    var isForPrograms: Bool { self != .table }
}

/// How values are written: the time zone, and how wide a table may be.
public struct Presentation: Sendable {
    /// The zone of times. nil: the machine's zone in a table, UTC in the formats for programs.
    public var timeZone: TimeZone?
    /// The widest a table's line may be, in terminal columns; nil: no limit.
    public var width: Int?

    public init(timeZone: TimeZone? = nil, width: Int? = nil) {
        self.timeZone = timeZone
        self.width = width
    }
}

extension Table {
    /// The table written in `format`, ending in a newline.
    /// - Throws: ``OutputError/noPositions`` for GeoJSON when the table has no latitude and longitude columns.
    public func rendered(as format: Format, _ presentation: Presentation = Presentation()) throws -> String {
        let values = ValueText(presentation, format: format)
        switch format {
        case .table: return TextTable(self, values).lines(width: presentation.width).joined(separator: "\n") + "\n"
        case .json: return JSONText.array(self, values) + "\n"
        case .ndjson: return rows.map { JSONText.object(columns, $0, values) + "\n" }.joined()
        case .csv: return CSV.text(self, values)
        case .geojson: return try GeoJSON.featureCollection(self, values)
        }
    }
}

extension Document {
    /// The document written in `format`, ending in a newline.
    public func rendered(as format: Format, _ presentation: Presentation = Presentation()) throws -> String {
        let values = ValueText(presentation, format: format)
        switch format {
        case .table: return TextTable.document(self, values, width: presentation.width).joined(separator: "\n") + "\n"
        case .json: return JSONText.document(self, values, pretty: true) + "\n"
        case .ndjson: return JSONText.document(self, values, pretty: false) + "\n"
        case .csv: return CSV.text(flattened, values)
        case .geojson: return try GeoJSON.featureCollection(self, values)
        }
    }
}

/// A result that cannot be written in the format asked for.
