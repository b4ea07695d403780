import Foundation
@testable import Projections
import Testing

/// Every writer of the summary tables sends its upserts in one order of their keys, so that they wait for each other
/// rather than deadlock: the order of the keys' bytes, each field after its length.
@Suite("The shared order of summary keys")
struct SharedOrderTests {
    @Test("rows in runs of equal keys, the runs in the order of the keys' bytes, the rows of a run in the order given")
    func runs() {
        var order = Projector.SharedOrder(capacity: 8)
        let keys: [(row: Int, fields: [String])] = [
            (0, ["b", "x"]), (1, ["a"]), (2, ["b", "x"]), (3, ["a", ""]), (4, ["ab"]), (5, ["a"]), (7, ["b", "x"]),
            (9, ["é"]),
        ]
        for key in keys {
            order.key(row: key.row)
            for field in key.fields { order.field(field) }
        }
        // ["a"] is a prefix of ["a", ""]; ["b", "x"] has a shorter first field than ["ab"]; "é" is two bytes.
        #expect(order.runs().map(Array.init) == [[1, 5], [3], [0, 2, 7], [4], [9]])
    }

    @Test("an integer field is its eight bytes: keys apart by their integers, in their order")
    func integerFields() {
        var order = Projector.SharedOrder(capacity: 4)
        for (row, value) in [(0, Int64(300)), (1, 7), (2, 300), (3, 4000)] {
            order.key(row: row)
            order.field("p")
            order.field(value)
        }
        #expect(order.runs().map(Array.init) == [[1], [0, 2], [3]])
    }

    @Test("no keys, no runs")
    func empty() {
        #expect(Projector.SharedOrder(capacity: 0).runs().isEmpty)
    }
}
