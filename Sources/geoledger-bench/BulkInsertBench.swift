import Foundation
import LocationEvents
import Workload
import Postgres

/// Inserts the same generated event-log rows three ways, each into a fresh empty table, in batches of
/// `batchSize` rows, one transaction per batch, and reports rows per second: COPY FROM STDIN, INSERT ... SELECT
/// FROM unnest(arrays), and a prepared single-row INSERT in libpq pipeline mode. Each method runs `repetitions`
/// times, the three in a rotating order so that none always comes first or last; each rate is the median.
enum BulkInsertBench {
    static let rowCount = 100_000
    static let batchSize = 1_000
    static let repetitions = 3
    static let table = "geoledger_bench_events"
    static let columns = "position, event_id, stream, version, type, data, derived, hash, recorded_at"

    struct EventRow {
        var position: Int64
        var eventID: UUID
        var stream: String
        var version: Int64
        var type: String
        var data: String
        var derived: String
        var hash: Data
        var recordedAt: Date
    }

    static func run(configuration: PostgresConfiguration) throws -> [String: Double] {
        let rows = generateRows(count: rowCount)
        let connection = try Connection.connect(configuration)
        defer {
            try? connection.execute("DROP TABLE IF EXISTS \(table)")
            connection.close()
        }
        var results: [String: Double] = [
            "bulk_rows": Double(rows.count),
            "bulk_data_bytes_avg": Double(rows.reduce(0) { $0 + $1.data.utf8.count }) / Double(rows.count),
            "bulk_derived_bytes_avg": Double(rows.reduce(0) { $0 + $1.derived.utf8.count }) / Double(rows.count),
        ]
        let methods: [(name: String, insert: (Connection, [EventRow]) throws -> Void)] = [
            ("copy", insertByCopy), ("unnest", insertByUnnest), ("pipeline", insertByPipeline),
        ]
        var rates: [String: [Double]] = [:]
        for repetition in 0..<repetitions {
            for turn in 0..<methods.count {
                let method = methods[(repetition + turn) % methods.count]
                rates[method.name, default: []].append(try measure(connection, rows, method.insert))
            }
        }
        for (name, each) in rates { results["bulk_\(name)_per_s"] = median(each) }
        results["bulk_transactions_per_method"] = Double((rows.count + batchSize - 1) / batchSize)
        results["bulk_repetitions"] = Double(repetitions)
        return results
    }

    /// Recreates the table, times `insert`, checks every row arrived.
    private static func measure(
        _ connection: Connection, _ rows: [EventRow], _ insert: (Connection, [EventRow]) throws -> Void
    ) throws -> Double {
        try connection.execute("""
            DROP TABLE IF EXISTS \(table);
            CREATE TABLE \(table) (
                position bigint PRIMARY KEY,
                event_id uuid NOT NULL UNIQUE,
                stream text NOT NULL,
                version bigint NOT NULL,
                type text NOT NULL,
                data json NOT NULL,
                derived json NOT NULL,
                hash bytea NOT NULL,
                recorded_at timestamptz NOT NULL,
                UNIQUE (stream, version)
            );
            """)
        // Start each method without the previous one's dirty pages pending (needs superuser or pg_checkpoint).
        try connection.execute("CHECKPOINT")
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try insert(connection, rows) }
        let stored = try connection.query("SELECT count(*) FROM \(table)").first?.decode(0, as: Int.self)
        guard stored == rows.count else {
            throw PostgresError(.query, "expected \(rows.count) rows in \(table), found \(stored ?? 0)")
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (Double(rows.count) / seconds).rounded()
    }

    private static func insertByCopy(_ connection: Connection, _ rows: [EventRow]) throws {
        for start in stride(from: 0, to: rows.count, by: batchSize) {
            let batch = rows[start..<min(start + batchSize, rows.count)]
            _ = try connection.copyFrom("COPY \(table) (\(columns)) FROM STDIN") { writer in
                for row in batch {
                    try writer.row([
                        row.position.postgresText, row.eventID.postgresText, row.stream, row.version.postgresText,
                        row.type, row.data, row.derived, row.hash.postgresText, row.recordedAt.postgresText,
                    ])
                }
            }
        }
    }

    private static func insertByUnnest(_ connection: Connection, _ rows: [EventRow]) throws {
        let sql = """
            INSERT INTO \(table) (\(columns))
            SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::bigint[], $5::text[],
                                 $6::json[], $7::json[], $8::bytea[], $9::timestamptz[])
            """
        for start in stride(from: 0, to: rows.count, by: batchSize) {
            let batch = rows[start..<min(start + batchSize, rows.count)]
            try connection.query(sql, [
                batch.map(\.position), batch.map(\.eventID), batch.map(\.stream), batch.map(\.version),
                batch.map(\.type), batch.map(\.data), batch.map(\.derived), batch.map(\.hash), batch.map(\.recordedAt),
            ])
        }
    }

    private static func insertByPipeline(_ connection: Connection, _ rows: [EventRow]) throws {
        let statement = "geoledger_bench_insert"
        try connection.prepare(statement, "INSERT INTO \(table) (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
        defer { try? connection.execute("DEALLOCATE \(statement)") }
        for start in stride(from: 0, to: rows.count, by: batchSize) {
            let batch = rows[start..<min(start + batchSize, rows.count)]
            _ = try connection.pipelinePrepared(statement, batch.map { row -> [(any PostgresEncodable)?] in
                [row.position, row.eventID, row.stream, row.version, row.type, row.data, row.derived, row.hash, row.recordedAt]
            })
        }
    }

    // MARK: - Rows shaped like the event log


    private static let places: [(province: String, city: String, district: String, street: String, adcode: String, lat: Double, lon: Double)] = [
        ("上海市", "上海市", "黄浦区", "南京东路", "310101", 31.2304, 121.4737),
        ("北京市", "北京市", "朝阳区", "建国路", "110105", 39.9087, 116.4605),
        ("广东省", "深圳市", "南山区", "深南大道", "440305", 22.5405, 113.9345),
        ("浙江省", "杭州市", "西湖区", "文三路", "330106", 30.2741, 120.1292),
        ("四川省", "成都市", "锦江区", "春熙路", "510104", 30.6570, 104.0817),
    ]

    static func generateRows(count: Int) -> [EventRow] {
        var random = SplitMix64(seed: 20261129)
        let streams = max(1, count / 10)
        let start = Date(timeIntervalSince1970: 1_795_946_400)
        var rows: [EventRow] = []
        rows.reserveCapacity(count)
        for index in 0..<count {
            let place = places[index % places.count]
            let merchant = String(format: "M%07d", index % streams)
            let eventID = random.uuid()
            let lat = place.lat + (random.unit() - 0.5) * 0.05
            let lon = place.lon + (random.unit() - 0.5) * 0.05
            let accuracy = (random.unit() * 150).rounded()
            let capturedAt = start.addingTimeInterval(Double(index) * 0.75)
            let number = 1 + Int(random.next() % 800)
            let data = """
                {"eventId":"\(eventID.uuidString.lowercased())","type":"\(EventType.merchantAddressFixed.rawValue)","merchantId":"\(merchant)",\
                "purpose":"onboarding","fix":{"lat":\(lat),"lon":\(lon),"datum":"gcj02","horizontalAccuracy":\(accuracy),\
                "accuracyAuthorization":"full","provider":"amap","capturedAt":"\(capturedAt.postgresText)",\
                "address":{"country":"中国","province":"\(place.province)","city":"\(place.city)","district":"\(place.district)",\
                "street":"\(place.street)","streetNumber":"\(number)号","poiName":"第\(number)号商铺",\
                "formatted":"\(place.province)\(place.city)\(place.district)\(place.street)\(number)号","adcode":"\(place.adcode)"},\
                "claimedInRegion":true},"actor":{"userId":"sales-\(index % 97)","app":"onboarding","appVersion":"5.2.0",\
                "deviceId":"\(random.uuid().uuidString)","os":"iOS 17.2"},"expectedVersion":\(index / streams - 1)}
                """
            let derived = """
                {"wgs84":{"lat":\(lat - 0.002),"lon":\(lon - 0.0045)},"gcj02":{"lat":\(lat),"lon":\(lon)},\
                "region":{"region":"mainland","nearBoundary":false,"inRegion":true,"claimMismatch":false,"boundaryVersion":"2026.1"},\
                "accuracy":"\(accuracy <= 100 ? "precise" : "approximate")","receivedAt":"\(capturedAt.addingTimeInterval(1.5).postgresText)"}
                """
            var hash = Data(count: 32)
            for byte in 0..<32 { hash[byte] = UInt8(truncatingIfNeeded: random.next()) }
            rows.append(EventRow(
                position: Int64(index + 1), eventID: eventID, stream: "merchant-\(merchant)",
                version: Int64(index / streams), type: EventType.merchantAddressFixed.rawValue, data: data, derived: derived,
                hash: hash, recordedAt: capturedAt.addingTimeInterval(1.5)
            ))
        }
        return rows
    }
}
