/// Rows under one set of columns: a history, a report.
public struct Table: Sendable, Equatable {
    public let columns: [Column]
    public let rows: [[Value]]

    /// - Precondition: every row has one value per column.
    public init(columns: [Column], rows: [[Value]]) {
        precondition(rows.allSatisfy { $0.count == columns.count }, "a row's values must match the columns")
        self.columns = columns
        self.rows = rows
    }
}

/// One thing and what belongs to it, as `show` reads it: fields about the thing, then tables.
///
/// JSON writes one object: the fields as members, then each section as a member holding an array of row objects,
/// or for a single section one object or `null`. CSV writes ``flattened``; GeoJSON
/// a feature for each row of the sections that have positions.
public struct Document: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public let column: Column
        public let value: Value

        public init(_ column: Column, _ value: Value) {
            self.column = column
            self.value = value
        }
    }

    public struct Section: Sendable, Equatable {
        /// The JSON member, and the `section` value of ``Document/flattened``.
        public let name: String
        /// The heading over the table.
        public let title: String
        public let table: Table
        /// At most one row, written in JSON as an object or `null` rather than an array.
        public let isSingle: Bool

        public init(_ name: String, title: String, table: Table) {
            self.name = name
            self.title = title
            self.table = table
            isSingle = false
        }

        /// A section of at most one row: `row` nil when there is none.
        public init(_ name: String, title: String, columns: [Column], row: [Value]?) {
            self.name = name
            self.title = title
            table = Table(columns: columns, rows: row.map { [$0] } ?? [])
            isSingle = true
        }
    }

    public let fields: [Field]
    public let sections: [Section]

    /// - Precondition: no two fields or sections have the same name.
    public init(fields: [Field], sections: [Section]) {
        let names = fields.map(\.column.name) + sections.map(\.name)
        precondition(Set(names).count == names.count, "a document's fields and sections need names of their own")
        self.fields = fields
        self.sections = sections
    }

    /// One table of every section's rows: the fields' columns, a `section` column naming the section, then every
    /// section's columns, those of the same name once. CSV writes it.
    public var flattened: Table {
        let tables = sections.map(rows)
        var columns: [Column] = []
        for column in tables.flatMap(\.columns) where !columns.contains(where: { $0.name == column.name }) {
            columns.append(column)
        }
        let place = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.name, $0) })
        let rows = tables.flatMap { table in
            table.rows.map { values in
                var row = Array(repeating: Value.none, count: columns.count)
                for (column, value) in zip(table.columns, values) { row[place[column.name]!] = value }
                return row
            }
        }
        return Table(columns: columns, rows: rows)
    }

    /// The rows of `section`, each after the fields and a `section` column holding the section's name. A single
    /// section without a row gives a row all the same, its own columns missing, so that the fields always appear.
    func rows(of section: Section) -> Table {
        let table = section.table
        let sectionRows = section.isSingle && table.rows.isEmpty ? [Array(repeating: Value.none, count: table.columns.count)] : table.rows
        let lead = fields.map(\.value) + [.text(section.name)]
        return Table(columns: fields.map(\.column) + [Column("section")] + table.columns, rows: sectionRows.map { lead + $0 })
    }
}
