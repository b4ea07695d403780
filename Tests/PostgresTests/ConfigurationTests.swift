import Foundation
import Postgres
import PostgresTestSupport
import Testing

@Suite struct ConfigurationTests {
    static let secret = "s3cr3t-Pa55"

    @Test(arguments: [
        "postgresql://alice:\(secret)@db.example:5432/ledger?sslmode=disable",
        "postgres://alice:\(secret)@db.example/ledger",
        "host=db.example user=alice password=\(secret) dbname=ledger",
        "host=db.example user=alice password='\(secret)' dbname=ledger",
        "postgresql://alice@db.example/ledger?password=\(secret)",
    ])
    func descriptionNeverShowsThePassword(connectionString: String) {
        let configuration = PostgresConfiguration(connectionString: connectionString)
        #expect(!configuration.description.contains(Self.secret))
        #expect(configuration.description.contains("db.example"))
        #expect(!configuration.withDatabase("other").description.contains(Self.secret))
    }

    @Test func unparsableStringIsNotEchoed() {
        let configuration = PostgresConfiguration(connectionString: "postgresql://alice:\(Self.secret)@host:notaport/x")
        #expect(!configuration.description.contains(Self.secret))
    }

    @Test func connectionErrorsAreRedacted() throws {
        // Port 1 on localhost: nothing listens, so libpq fails and reports where it tried.
        for url in [
            "postgresql://alice:\(Self.secret)@127.0.0.1:1/ledger?connect_timeout=2",
            "postgresql://alice:\(Self.secret)@host.invalid:5432/ledger?connect_timeout=2",
            "postgresql://alice:\(Self.secret)@127.0.0.1:notaport/ledger",
            "host=127.0.0.1 port=1 password=\(Self.secret) connect_timeout=2",
        ] {
            let configuration = PostgresConfiguration(connectionString: url)
            do {
                _ = try Connection.connect(configuration)
                Issue.record("connecting to \(configuration) should fail")
            } catch let error as PostgresError {
                #expect(error.kind == .connection)
                #expect(!"\(error)".contains(Self.secret))
                #expect(!String(reflecting: error).contains(Self.secret))
                #expect(!error.message.contains(Self.secret))
            }
        }
    }

    @Test func environmentPrefersDatabaseURL() {
        let fromURL = PostgresConfiguration.fromEnvironment(["DATABASE_URL": "postgresql://u@h1/d1", "PGHOST": "h2"])
        #expect(fromURL.description.contains("h1"))
        let fromPG = PostgresConfiguration.fromEnvironment(["PGHOST": "h2", "PGPORT": "6543", "PGPASSWORD": Self.secret])
        #expect(fromPG.description.contains("h2"))
        #expect(fromPG.description.contains("6543"))
        #expect(!fromPG.description.contains(Self.secret))
    }

    @Test("user: the role a URL or conninfo names, wherever it names it", arguments: [
        ("postgresql://alice:\(secret)@db.example/ledger", "alice"),
        ("postgresql:///ledger?host=/tmp/socket&user=geoledger_app", "geoledger_app"),
        ("host=db.example user=bob dbname=ledger", "bob"),
    ])
    func user(connectionString: String, user: String) {
        #expect(PostgresConfiguration(connectionString: connectionString).user == user)
    }

    @Test func withDatabaseConnectsToTheOtherDatabase() throws {
        let configuration = try TestDatabase.serverConfiguration()
        let name = TestDatabase.uniqueName("geoledger_pgtest")
        let admin = try Connection.connect(configuration)
        try admin.execute("CREATE DATABASE \(name)")
        defer { try? admin.execute("DROP DATABASE IF EXISTS \(name)") }
        do {
            let other = try Connection.connect(configuration.withDatabase(name))
            defer { other.close() }
            #expect(try other.query("SELECT current_database()").first?.decode(0) == name)
        }
    }
}
