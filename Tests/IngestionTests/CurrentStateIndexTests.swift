import Foundation
@testable import Queries
import Testing

/// Current positions are read by key from latest_fixes, which the projector keeps, never by searching the history.
@Suite("The current state reads latest_fixes by key")
struct CurrentStateIndexTests {
    @Test("a merchant's and a terminal's newest and newest precise fix: one index scan of latest_fixes' key",
          arguments: ["merchant", "terminal"])
    func byKey(kind: String) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        // With any other way to the rows priced out, the plan shows whether the key can serve the query at all.
        try db.connection.execute("SET enable_seqscan = off; SET enable_bitmapscan = off")
        let plan = try db.connection.query(
            "EXPLAIN SELECT l.quality, \(CurrentState.fixColumns) FROM projections.latest_fixes l "
                + "WHERE l.entity_kind = '\(kind)' AND l.entity_id = 'X1'"
        ).map { try $0.decode(0, as: String.self) }
        // On Citus the plan is the shard's: latest_fixes_pkey_102040 on latest_fixes_102040.
        #expect(plan.contains { $0.contains("Index Scan using latest_fixes_pkey") && $0.contains(" on latest_fixes") },
                "\(plan.joined(separator: "\n"))")
    }
}
