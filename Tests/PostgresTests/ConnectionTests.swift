import CivilCalendar
import Foundation
import Postgres
import PostgresTestSupport
import Testing

@Suite(.serialized) struct ConnectionTests {
    @Test func sessionSettingsAreFixed() throws {
        let connection = try TestDatabase.connectToServer()
        let row = try #require(try connection.query(
            "SELECT current_setting('client_encoding'), current_setting('TimeZone'), current_setting('DateStyle')"
        ).first)
        #expect(try row.decode(0, as: String.self) == "UTF8")
        #expect(try row.decode(1, as: String.self) == "UTC")
        #expect(try row.decode(2, as: String.self).hasPrefix("ISO"))
    }

    @Test("the notices sent while a body runs are collected, in order; before and after it they are dropped")
    func noticesAreCollected() throws {
        let connection = try TestDatabase.connectToServer()
        defer { connection.close() }
        try connection.execute("DO $$ BEGIN RAISE NOTICE 'before'; END $$")
        let (count, notices) = try connection.collectingNotices {
            try connection.execute("DO $$ BEGIN RAISE NOTICE 'first'; RAISE NOTICE 'second'; END $$")
            return try connection.query("SELECT 1").count
        }
        #expect(count == 1)
        #expect(notices == ["NOTICE:  first\n", "NOTICE:  second\n"])
        let (_, later) = try connection.collectingNotices { try connection.execute("SELECT 1") }
        #expect(later.isEmpty)
    }

    @Test("arrays sent in binary read back as the same values as sent in text, NULLs included, mixed with text parameters")
    func binaryArraysRoundTrip() throws {
        let connection = try TestDatabase.connectToServer()
        let uuids = [UUID(), UUID()]
        let dates = [Date(timeIntervalSince1970: 1_795_946_400.123456), Date(timeIntervalSince1970: -1.5)]
        let texts = ["上海市 \"q\" \\ {a,b}", "", "NULL"]
        let doubles = [0.1, -0.0, 1e300, -Double.infinity]
        let sql = """
            SELECT $1::text[] = $2::text[], $3::float8[] = $4::float8[], $5::int8[] = $6::int8[], $7::boolean[] = $8::boolean[],
                   $9::uuid[] = $10::uuid[], $11::timestamptz[] = $12::timestamptz[], $13::date[], cardinality($14::text[]),
                   $15::date[] = $16::date[], $15::date[]::text, $17::timestamptz[] = $18::timestamptz[],
                   array_position($17::timestamptz[], NULL)
            """
        let days = ["2026-11-29", "1970-01-01", "1999-12-31", "2000-01-01", "0001-01-01", "9999-12-31"]
        let row = try #require(try connection.query(sql, parameters: [
            .binary(try BinaryArray(texts)), .text(texts), .binary(BinaryArray(doubles)), .text(doubles),
            .binary(BinaryArray([Int64.min, 0, Int64.max])), .text([Int64.min, 0, Int64.max]),
            .binary(BinaryArray([true, false])), .text([true, false]), .binary(BinaryArray(uuids)), .text(uuids),
            .binary(BinaryArray(timestamps: dates)), .text(dates), .text(["2026-11-29"]), .binary(try BinaryArray([String]())),
            .binary(BinaryArray(days: days.map { CivilDate($0)!.daysSince1970 })), .text(days),
            .binary(BinaryArray(timestamps: [dates[0], nil, dates[1]])), .text([dates[0], nil, dates[1]]),
        ]).first)
        for column in 0..<6 { #expect(try row.decode(column, as: Bool.self), "column \(column)") }
        #expect(try row.decode(6, as: String.self) == "{2026-11-29}")
        #expect(try row.decode(7, as: Int.self) == 0)
        #expect(try row.decode(8, as: Bool.self))
        #expect(try row.decode(9, as: String.self) == "{\(days.joined(separator: ","))}")
        #expect(try row.decode(10, as: Bool.self))
        #expect(try row.decode(11, as: Int.self) == 2)
    }

    @Test("a text array with nil values arrives in binary as in text, NULLs included")
    func binaryOptionalTextArrayHasNulls() throws {
        let connection = try TestDatabase.connectToServer()
        let texts: [String?] = ["a", nil, "", "上海 \"x\"", nil]
        let row = try #require(try connection.query(
            "SELECT $1::text[] = $2::text[], $1::text[]::text, cardinality($3::text[]), $4::text[]::text",
            parameters: [
                .binary(try BinaryArray(texts)), .text(texts), .binary(try BinaryArray([String?]())),
                .binary(try BinaryArray(["b"] as [String?])),
            ]).first)
        #expect(try row.decode(0, as: Bool.self))
        #expect(try row.decode(1, as: String.self) == #"{a,NULL,"","上海 \"x\"",NULL}"#)
        #expect(try row.decode(2, as: Int.self) == 0)
        #expect(try row.decode(3, as: String.self) == "{b}")
        #expect(throws: PostgresError.self) { try BinaryArray(["a", nil, "b\u{0}c"] as [String?]) }
    }

    @Test("a NUL in a text array to be sent in binary is refused before anything is sent")
    func binaryTextArrayRefusesNUL() {
        #expect(throws: PostgresError.self) { try BinaryArray(["a", "b\u{0}c"]) }
    }

    @Test func scalarsRoundTrip() throws {
        let connection = try TestDatabase.connectToServer()
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 1_795_946_400.123456)
        let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF]
        let row = try #require(try connection.query(
            "SELECT $1::text, $2::int8, $3::int4, $4::int8, $5::float8, $6::bool, $7::uuid, $8::timestamptz, $9::bytea, $10::bytea, $11::json, $12::float8, $13::bool",
            ["上海市黄浦区 'quoted' \\ \"x\" ✓", Int.min, Int32.max, Int64(-42), 0.1, true, uuid, date, Data(bytes), bytes,
             PostgresJSON(Data(#"{"a": [1, "二"]}"#.utf8)), -Double.infinity, false]
        ).first)
        #expect(try row.decode(0, as: String.self) == "上海市黄浦区 'quoted' \\ \"x\" ✓")
        #expect(try row.decode(1, as: Int.self) == Int.min)
        #expect(try row.decode(2, as: Int32.self) == Int32.max)
        #expect(try row.decode(3, as: Int64.self) == -42)
        #expect(try row.decode(4, as: Double.self) == 0.1)
        #expect(try row.decode(5, as: Bool.self) == true)
        #expect(try row.decode(6, as: UUID.self) == uuid)
        #expect(abs(try row.decode(7, as: Date.self).timeIntervalSince(date)) < 0.000_001)
        #expect(try row.decode(8, as: Data.self) == Data(bytes))
        #expect(try row.decode(9, as: [UInt8].self) == bytes)
        #expect(try row.decode(10, as: PostgresJSON.self).data == Data(#"{"a": [1, "二"]}"#.utf8))
        #expect(try row.decode(11, as: Double.self) == -.infinity)
        #expect(try row.decode(12, as: Bool.self) == false)
    }

    @Test func timestampTextIsWhatTheServerSends() throws {
        let connection = try TestDatabase.connectToServer()
        let row = try #require(try connection.query("SELECT '2026-11-29 18:00:00.123456+08'::timestamptz, '2026-11-29 10:00:00+00'::timestamptz::text").first)
        #expect(try row.decode(1, as: String.self) == "2026-11-29 10:00:00+00")
        #expect(abs(try row.decode(0, as: Date.self).timeIntervalSince1970 - 1_795_946_400.123456) < 0.000_001)
    }

    @Test func arraysRoundTrip() throws {
        let connection = try TestDatabase.connectToServer()
        let texts: [String?] = ["plain", "", "NULL", nil, "with \"quotes\"", "back\\slash", "comma,brace}{", " spaced ", "中文 ✓ 🙂", "tab\tnewline\n"]
        let uuids = [UUID(), UUID()]
        let blobs: [[UInt8]] = [[1, 2, 3], [], [0xFF]]
        let row = try #require(try connection.query(
            "SELECT $1::text[], $2::bigint[], $3::uuid[], $4::bytea[], $5::float8[], $6::bool[], $7::int[][], cardinality($1::text[]), array_position($1::text[], NULL), $1::text[] @> ARRAY['']",
            [texts, [Int64.min, 0, Int64.max], uuids, blobs, [1.5, -0.25], [true, false], [[1, 2], [3, 4]]]
        ).first)
        #expect(try row.decode(0, as: [String?].self) == texts)
        #expect(try row.decode(1, as: [Int64].self) == [Int64.min, 0, Int64.max])
        #expect(try row.decode(2, as: [UUID].self) == uuids)
        #expect(try row.decode(3, as: [[UInt8]].self) == blobs)
        #expect(try row.decode(4, as: [Double].self) == [1.5, -0.25])
        #expect(try row.decode(5, as: [Bool].self) == [true, false])
        #expect(try row.decode(6, as: [[Int]].self) == [[1, 2], [3, 4]])
        #expect(try row.decode(7, as: Int.self) == texts.count)
        #expect(try row.decode(8, as: Int.self) == 4)
        #expect(try row.decode(9, as: Bool.self))
    }

    @Test func nullHandling() throws {
        let connection = try TestDatabase.connectToServer()
        let absent: String? = nil
        let row = try #require(try connection.query("SELECT $1::text, $2::int, NULL::uuid AS missing", [absent, nil]).first)
        #expect(try row.isNull(0))
        #expect(try row.decode(0, as: String?.self) == nil)
        #expect(try row.decode(1, as: Int?.self) == nil)
        #expect(try row.decode("missing", as: UUID?.self) == nil)
        let error = try #require(throws: PostgresError.self) { try row.decode("missing", as: UUID.self) }
        #expect(error.kind == .decoding)
        #expect(error.message.contains("missing"))
        #expect(error.message.contains("NULL"))
    }

    @Test func typeMismatchNamesColumnAndType() throws {
        let connection = try TestDatabase.connectToServer()
        let row = try #require(try connection.query("SELECT 'abc'::text AS label").first)
        let error = try #require(throws: PostgresError.self) { try row.decode("label", as: Int.self) }
        #expect(error.kind == .decoding)
        #expect(error.message.contains("\"label\""))
        #expect(error.message.contains("Int"))
        #expect(error.message.contains("text"))
        #expect(throws: PostgresError.self) { try row.decode("nope", as: String.self) }
    }

    @Test func injectionAttemptStaysAValue() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("inject")
        try connection.execute("CREATE TEMP TABLE \(table) (name text)")
        let hostile = "x'); DROP TABLE \(table); --"
        try connection.query("INSERT INTO \(table) (name) VALUES ($1)", [hostile])
        let rows = try connection.query("SELECT name FROM \(table) WHERE name = $1", [hostile])
        #expect(rows.count == 1)
        #expect(try rows.first?.decode(0, as: String.self) == hostile)
    }

    @Test func rowsIterateInOrder() throws {
        let connection = try TestDatabase.connectToServer()
        let result = try connection.query("SELECT g AS n, g * 2 AS twice FROM generate_series(1, 5) g")
        #expect(result.count == 5)
        #expect(result.columns == ["n", "twice"])
        #expect(try result.map { try $0.decode("twice", as: Int.self) } == [2, 4, 6, 8, 10])
    }

    @Test func transactionCommitsAndRollsBackOnThrow() throws {
        struct Abort: Error {}
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("tx")
        try connection.execute("CREATE TEMP TABLE \(table) (n int)")
        try connection.transaction { try $0.query("INSERT INTO \(table) VALUES (1)") }
        #expect(throws: Abort.self) {
            try connection.transaction { connection in
                try connection.query("INSERT INTO \(table) VALUES (2)")
                throw Abort()
            }
        }
        #expect(try connection.query("SELECT n FROM \(table)").map { try $0.decode(0, as: Int.self) } == [1])
        // The connection is usable after the rollback.
        #expect(try connection.query("SELECT 1").count == 1)
    }

    @Test func commitOfAFailedTransactionThrows() throws {
        let connection = try TestDatabase.connectToServer()
        let error = try #require(throws: PostgresError.self) {
            try connection.transaction { connection in
                // Caught here, so that the body returns normally and COMMIT meets the failed transaction.
                #expect(throws: PostgresError.self) { try connection.query("SELECT 1/0") }
            }
        }
        #expect(error.kind == .transaction)
    }

    @Test func uniqueViolationCarriesSQLState() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("uniq")
        try connection.execute("CREATE TEMP TABLE \(table) (id int CONSTRAINT \(table)_id_key UNIQUE)")
        try connection.query("INSERT INTO \(table) VALUES ($1)", [7])
        let error = try #require(throws: PostgresError.self) {
            try connection.query("INSERT INTO \(table) VALUES ($1)", [7])
        }
        #expect(error.isUniqueViolation)
        #expect(error.sqlState == "23505")
        #expect(error.kind == .query)
        #expect(error.constraint == "\(table)_id_key")
        #expect(error.detail?.contains("(id)=(7)") == true)
        #expect(String(reflecting: error).contains("INSERT INTO"))
    }

    @Test func syntaxErrorIsAQueryError() throws {
        let connection = try TestDatabase.connectToServer()
        let error = try #require(throws: PostgresError.self) { try connection.query("SELEC 1") }
        #expect(error.sqlState == "42601")
        #expect(connection.isOpen)
    }

    @Test func executeRunsSeveralStatements() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("multi")
        try connection.execute("CREATE TEMP TABLE \(table) (n int); INSERT INTO \(table) VALUES (1), (2);")
        let result = try connection.query("UPDATE \(table) SET n = n + 1")
        #expect(result.affectedRows == 2)
    }

    @Test func copyRoundTripsAwkwardText() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("copy")
        try connection.execute("CREATE TEMP TABLE \(table) (id int, body text, note text)")
        let bodies: [String?] = ["tab\there", "new\nline", "cr\rlf\r\n", "back\\slash \\N", "\\.", "", nil, "中文 ✓", "end\\"]
        let copied = try connection.copyFrom("COPY \(table) (id, body, note) FROM STDIN") { writer in
            for (index, body) in bodies.enumerated() {
                try writer.row([String(index), body, index.isMultiple(of: 2) ? nil : "n"])
            }
        }
        #expect(copied == bodies.count)
        let rows = try connection.query("SELECT body, note FROM \(table) ORDER BY id")
        #expect(try rows.map { try $0.decode(0, as: String?.self) } == bodies)
        #expect(try rows.map { try $0.decode(1, as: String?.self) } == bodies.indices.map { $0.isMultiple(of: 2) ? nil : "n" })
    }

    @Test func copyOfManyRowsAndEncodedValues() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("copybig")
        try connection.execute("CREATE TEMP TABLE \(table) (id bigint, at timestamptz, blob bytea, tags text[])")
        let count = 20_000
        let copied = try connection.copyFrom("COPY \(table) FROM STDIN") { writer in
            for id in 0..<count {
                try writer.row(encoding: [id, Date(timeIntervalSince1970: Double(id)), Data([UInt8(id & 0xFF)]), ["a\tb", "c\"d"]])
            }
        }
        #expect(copied == count)
        let row = try #require(try connection.query("SELECT count(*), max(at), (SELECT tags FROM \(table) LIMIT 1) FROM \(table)").first)
        #expect(try row.decode(0, as: Int.self) == count)
        #expect(try row.decode(1, as: Date.self) == Date(timeIntervalSince1970: Double(count - 1)))
        #expect(try row.decode(2, as: [String].self) == ["a\tb", "c\"d"])
    }

    @Test func copyRowsKeepEveryKindOfField() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("copyahead")
        try connection.execute("CREATE TEMP TABLE \(table) (body text, blob bytea, ratio float8, flag bool, note text, id bigint)")
        let copied = try connection.copyFrom("COPY \(table) FROM STDIN") { writer in
            try writer.row { row in
                row.text("tab\there \\N")
                [UInt8]([0, 0xAB, 0xFF]).withUnsafeBytes { row.bytea($0) }
                row.double(-0.1)
                row.bool(true)
                row.null()
                row.integer(-42)
            }
        }
        #expect(copied == 1)
        let row = try #require(try connection.query("SELECT body, blob, ratio, flag, note, id FROM \(table)").first)
        #expect(try row.decode(0, as: String.self) == "tab\there \\N")
        #expect(try row.decode(1, as: [UInt8].self) == [0, 0xAB, 0xFF])
        #expect(try row.decode(2, as: Double.self) == -0.1)
        #expect(try row.decode(3, as: Bool.self) == true)
        #expect(try row.decode(4, as: String?.self) == nil)
        #expect(try row.decode(5, as: Int64.self) == -42)

        let refused = try #require(throws: PostgresError.self) {
            try connection.copyFrom("COPY \(table) (body, note) FROM STDIN") { writer in
                try writer.row { row in
                    row.text("ok")
                    row.bytes(Array("a\u{0}b".utf8))
                }
            }
        }
        #expect(refused.message.contains("field 2") && refused.message.contains("NUL"))
        #expect(try connection.query("SELECT count(*) FROM \(table)").first?.decode(0, as: Int.self) == 1)
    }

    @Test func binaryCopyRowsRenderedAheadKeepEveryKindOfField() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("copybinary")
        try connection.execute(
            "CREATE TEMP TABLE \(table) (id uuid, body text, blob bytea, ratio float8, flag bool, at timestamptz, note text, n bigint)")
        let id = UUID(uuidString: "0B9C2A4E-3F1D-4A51-9A8E-5F7C1D2E3A40")!
        let bodies = ["tab\there \\N 中文", ""]
        var ahead = CopyRow(format: .binary)
        for (index, body) in bodies.enumerated() {
            let problem = ahead.renderRow { row in
                row.uuid(id)
                row.text(body)
                [UInt8]([0, 0xAB, 0xFF]).withUnsafeBytes { row.bytea($0) }
                row.double(-0.1)
                row.bool(true)
                row.timestamp(microsecondsSince1970: 1_764_381_600_123_456)  // 2025-11-29T02:00:00.123456Z
                row.timestamp(microsecondsSince1970: nil)
                row.integer(Int64(index) - 42)
            }
            #expect(problem == nil)
        }
        let count = ahead.byteCount
        let rendered = ahead.shared()
        let copied = try connection.copyFrom(
            "COPY \(table) (id, body, blob, ratio, flag, at, note, n) FROM STDIN WITH (FORMAT binary)", format: .binary
        ) { writer in
            try writer.send(rendered, in: 0..<count, rows: bodies.count)
        }
        #expect(copied == 2)
        let rows = try connection.query("SELECT id, body, blob, ratio, flag, at::text, note, n FROM \(table) ORDER BY n")
        #expect(try rows.map { try $0.decode(1, as: String.self) } == bodies)
        let row = try #require(rows.first)
        #expect(try row.decode(0, as: UUID.self) == id)
        #expect(try row.decode(2, as: [UInt8].self) == [0, 0xAB, 0xFF])
        #expect(try row.decode(3, as: Double.self) == -0.1)
        #expect(try row.decode(4, as: Bool.self) == true)
        #expect(try row.decode(5, as: String.self) == "2025-11-29 02:00:00.123456+00")
        #expect(try row.decode(6, as: String?.self) == nil)
        #expect(try row.decode(7, as: Int64.self) == -42)
    }

    @Test func binaryCopyRefusesNULInTextAndAFormatUnlikeTheStatements() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("copybinaryno")
        try connection.execute("CREATE TEMP TABLE \(table) (body text)")
        let nul = try #require(throws: PostgresError.self) {
            try connection.copyFrom("COPY \(table) FROM STDIN WITH (FORMAT binary)", format: .binary) { writer in
                try writer.row { $0.bytes(Array("a\u{0}b".utf8)) }
            }
        }
        #expect(nul.message.contains("NUL"))
        let unlike = try #require(throws: PostgresError.self) {
            try connection.copyFrom("COPY \(table) FROM STDIN", format: .binary) { writer in
                try writer.row { $0.text("x") }
            }
        }
        #expect(unlike.message.contains("text format") && unlike.message.contains("binary"))
        #expect(try connection.query("SELECT count(*) FROM \(table)").first?.decode(0, as: Int.self) == 0)
    }

    @Test func copyFailureStoresNothingAndKeepsConnection() throws {
        struct Abort: Error {}
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("copyfail")
        try connection.execute("CREATE TEMP TABLE \(table) (id int PRIMARY KEY)")
        #expect(throws: Abort.self) {
            try connection.copyFrom("COPY \(table) FROM STDIN") { writer in
                try writer.row(["1"])
                throw Abort()
            }
        }
        let duplicate = try #require(throws: PostgresError.self) {
            try connection.copyFrom("COPY \(table) FROM STDIN") { writer in
                try writer.row(["1"])
                try writer.row(["1"])
            }
        }
        #expect(duplicate.isUniqueViolation)
        #expect(try connection.query("SELECT count(*) FROM \(table)").first?.decode(0, as: Int.self) == 0)
    }

    @Test func pipelinedPreparedInsertIsOneTransaction() throws {
        let connection = try TestDatabase.connectToServer()
        let table = TestDatabase.uniqueName("pipe")
        try connection.execute("CREATE TEMP TABLE \(table) (id int PRIMARY KEY, label text)")
        try connection.prepare("\(table)_insert", "INSERT INTO \(table) (id, label) VALUES ($1, $2)")
        let inserted = try connection.pipelinePrepared("\(table)_insert", (0..<500).map { (id: Int) -> [(any PostgresEncodable)?] in [id, "row \(id)"] })
        #expect(inserted == 500)
        let error = try #require(throws: PostgresError.self) {
            try connection.pipelinePrepared("\(table)_insert", [[1000, "new"], [0, "duplicate"], [1001, "after"]])
        }
        #expect(error.isUniqueViolation)
        #expect(try connection.query("SELECT count(*) FROM \(table)").first?.decode(0, as: Int.self) == 500)
        #expect(try connection.query("SELECT 1").count == 1)
    }

    @Test func decodesJSONColumns() throws {
        struct Fix: Decodable, Equatable { var lat: Double; var lon: Double }
        let connection = try TestDatabase.connectToServer()
        let fix = PostgresJSON(Data(#"{"lat": 31.2304, "lon": 121.4737}"#.utf8))
        let row = try #require(try connection.query("SELECT $1::json AS fix, $1::jsonb AS fixb", [fix]).first)
        #expect(try row.decodeJSON("fix", as: Fix.self) == Fix(lat: 31.2304, lon: 121.4737))
        #expect(try row.decodeJSON("fixb", as: Fix.self) == Fix(lat: 31.2304, lon: 121.4737))
        #expect(try row.decodeJSON("fix", as: Data.self) == fix.data)
    }

    @Test func closedConnectionThrowsConnectionError() throws {
        let connection = try TestDatabase.connectToServer()
        connection.close()
        #expect(!connection.isOpen)
        let error = try #require(throws: PostgresError.self) { try connection.query("SELECT 1") }
        #expect(error.kind == .connection)
    }
}
