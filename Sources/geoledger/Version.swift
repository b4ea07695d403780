import EventStore

/// The version `geoledger --version` prints: the one place it is written.
enum Version {
    static let number = "0.1.0"

    /// `geoledger 0.1.0 (schema: 0008_failure_platform.sql)`: the newest migration this build applies.
    static var text: String {
        let newest = (try? Migration.bundled())?.last?.name ?? "no migrations bundled"
        return "geoledger \(number) (schema: \(newest))"
    }
}
