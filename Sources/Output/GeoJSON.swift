/// GeoJSON (RFC 7946): a FeatureCollection with one feature per row, a line each.
enum GeoJSON {
    static func featureCollection(_ table: Table, _ values: ValueText) throws -> String {
        guard let features = features(table, values) else {
            throw OutputError.noPositions
        }
        return collection(features)
    }

    /// The features of the rows of every section that has positions, their properties the document's fields, the
    /// section's name and the section's own columns.
    static func featureCollection(_ document: Document, _ values: ValueText) throws -> String {
        let located = document.sections.compactMap { features(document.rows(of: $0), values) }
        guard !located.isEmpty else {
            throw OutputError.noPositions
        }
        return collection(located.flatMap { $0 })
    }

    private static func collection(_ features: [String]) -> String {
        #"{"type":"FeatureCollection","features":["# + (features.isEmpty ? "" : "\n")
            + features.joined(separator: ",\n") + "\n]}\n"
    }

    /// Each row's point is `[longitude, latitude]` from the table's first latitude and longitude columns, in WGS-84
    /// as RFC 7946 requires; a row missing either has a `null` geometry. The other columns are the properties.
    /// - Returns: nil when the table has no latitude or no longitude column.
    private static func features(_ table: Table, _ values: ValueText) -> [String]? {
        guard let latitude = table.columns.firstIndex(where: { $0.kind == .latitude }),
              let longitude = table.columns.firstIndex(where: { $0.kind == .longitude }) else { return nil }
        return table.rows.map { row in
            var geometry = "null"
            if let lat = row[latitude].number, let lon = row[longitude].number,
               let latText = ValueText.exact(lat), let lonText = ValueText.exact(lon) {
                geometry = #"{"type":"Point","coordinates":["# + lonText + "," + latText + "]}"
            }
            let properties = JSONText.object(table.columns, row, values, skipping: [latitude, longitude])
            return #"{"type":"Feature","geometry":"# + geometry + #","properties":"# + properties + "}"
        }
    }
}
