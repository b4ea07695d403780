import Foundation
@testable import Queries
import Testing

/// The fix history's entity index holds only merchants' and terminals' fixes, the ones current positions read: every
/// read of a current position must still be able to go through it.
@Suite("The current state reads fixes through the entity index")
struct CurrentStateIndexTests {
    @Test("a merchant's latest and precise address fix and a terminal's position: each an index scan of fixes_entity",
          arguments: [
              ("'merchant'", "'MerchantAddressFixed'", false), ("'merchant'", "'MerchantAddressFixed'", true),
              ("'terminal'", "'TerminalBound', 'TerminalLocated'", false),
          ])
    func entityIndex(kind: String, types: String, preciseOnly: Bool) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let definition = try db.connection.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'fixes_entity'")
            .map { try $0.decode(0, as: String.self) }
        #expect(definition.count == 1 && definition[0].hasSuffix("WHERE (entity_kind = ANY (ARRAY['merchant'::text, 'terminal'::text]))"),
                "\(definition)")
        // With any other way to the rows priced out, the plan shows whether the index can serve the query at all.
        try db.connection.execute("SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off")
        let query = CurrentState.newestFix(kind: kind, id: "'X1'", types: types, preciseOnly: preciseOnly)
        let plan = try db.connection.query("EXPLAIN \(query)").map { try $0.decode(0, as: String.self) }
        // On Citus the plan is the shard's: fixes_entity_102008 on fixes_102008.
        #expect(plan.contains { $0.contains("Index Scan using fixes_entity") && $0.contains(" on fixes") }, "\(plan.joined(separator: "\n"))")
    }
}
