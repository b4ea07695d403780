import Output
import Testing

@Suite("Counts by name in every format")
struct CountsTests {
    static let table = Table(
        columns: [Column("provider"), Column("failuresByCategory", .counts)],
        rows: [[.text("amap"), .counts(["timeout": 5, "fake_location_risk": 14])], [.text("ip"), .counts([:])]])

    @Test("JSON writes an object of numbers in name order; CSV and tables name=n, ...")
    func formats() throws {
        #expect(try Self.table.rendered(as: .json)
            == "[\n  {\"provider\":\"amap\",\"failuresByCategory\":{\"fake_location_risk\":14,\"timeout\":5}},\n"
            + "  {\"provider\":\"ip\",\"failuresByCategory\":{}}\n]\n")
        #expect(try Self.table.rendered(as: .csv) == "provider,failuresByCategory\namap,\"fake_location_risk=14, timeout=5\"\nip,\n")
        #expect(try Self.table.rendered(as: .table).contains("fake_location_risk=14, timeout=5"))
    }
}
