// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "geoledger",
    platforms: [.macOS(.v15)],  // Mutex and Atomic (Synchronization)
    products: [
        .executable(name: "geoledger", targets: ["geoledger"]),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CGnuTLS", pkgConfig: "gnutls", providers: [.apt(["libgnutls28-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // jemalloc's options, compiled into the executables.
        .target(name: "AllocatorSettings"),

        // Dates of the Gregorian calendar as day counts, and the one time type (Timestamp: microseconds, its text and RFC 3339).
        .target(name: "CivilCalendar"),

        // Pure domain: no I/O.
        .target(name: "Geo", resources: [.copy("Resources/boundaries.bin")]),
        .target(name: "LocationEvents", dependencies: ["Geo", "JSON", "CivilCalendar"]),

        // Infrastructure: knows nothing of locations.
        // JSON read strictly (RFC 8259, I-JSON), written canonically, read in part by paths.
        .target(name: "JSON"),
        .target(name: "Postgres", dependencies: ["CLibPQ", "CivilCalendar", "Logging"]),
        // The private cluster for `make run` and the tests: initdb, pg_ctl, the owner and application roles.
        .target(name: "LocalPostgres", dependencies: ["Postgres"]),
        // HTTP/1.1 on libmicrohttpd: requests, responses, a router, worker threads, gzip; TLS through GnuTLS.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CGnuTLS", "CZlib", "JSON"]),
        // A blocking HTTP/1.1 client on a plain loopback socket: exact bytes and timings, for the bench and the tests.
        .target(name: "RawHTTPClient", dependencies: ["HTTPServer"]),
        // Log lines with levels and key-value metadata, as JSON, for the modules that have something to say.
        .target(name: "Logging", dependencies: ["JSON"]),
        // Options and usage errors, for both executables.
        .target(name: "CommandLineArguments"),
        // What people and programs read: tables, JSON, NDJSON, CSV, GeoJSON; checked writes, progress.
        .target(name: "Output", dependencies: ["JSON", "CivilCalendar"]),
        // CSV points read from standard input, in bounded memory.
        .target(name: "CSVInput"),
        // Pictures: points and lines over the region outlines, as standalone SVG.
        .target(name: "Maps", dependencies: ["Geo"]),

        // Application.
        // The SQL files the migrator applies, in name order; each new file is also listed here, as a resource.
        .target(
            name: "Migrations", path: "Migrations",
            resources: [
                .copy("0001_event_store.sql"), .copy("0002_projections.sql"), .copy("0003_drop_binding_recompute_index.sql"),
                .copy("0004_log_head.sql"), .copy("0005_fixes_entity_merchants_terminals.sql"),
                .copy("0006_api_tokens.sql"),
                .copy("0007_history_indexes.sql"),
                .copy("0008_failure_platform.sql"),
                .copy("0009_reports.sql"),
                .copy("0010_citus.sql"),
                .copy("0011_fix_platform.sql"),
                .copy("0014_report_visits.sql"),
                .copy("0015_accuracy_index.sql"),
                .copy("0016_accuracy_buckets_one_digit.sql"),
                .copy("0018_accuracy_bucket_in_projector.sql"),
                .copy("0019_projector_checkpoint.sql"),
                .copy("0020_current_state_by_key.sql"),
                .copy("0021_token_client_cert.sql"),
                .copy("0022_latest_fixes_by_quality.sql"),
                .copy("0023_visit_fix_columns.sql"),
            ]),
        .target(name: "EventStore", dependencies: ["Postgres", "CCrypto", "JSON", "Migrations", "CivilCalendar"]),
        // The write side of the read models: the projector behind the log, its checkpoint, replay.
        .target(name: "Projections", dependencies: ["CivilCalendar", "EventStore", "Geo", "JSON", "LocationEvents", "Logging", "Postgres"]),
        // The read side: current state, histories, visits and the reports (one SQL function each), read from the
        // projections into typed rows and the tables and documents that Output writes.
        .target(name: "Queries", dependencies: ["Postgres", "Output", "CivilCalendar", "LocationEvents"]),
        .target(name: "Ingestion", dependencies: ["EventStore", "Projections", "JSON", "LocationEvents", "Postgres", "Geo"]),
        // The HTTP routes: ingest, the feed, current state, histories, visits, reports, tokens, metrics, the OpenAPI document.
        .target(
            name: "GeoledgerAPI",
            dependencies: ["HTTPServer", "Ingestion", "EventStore", "Projections", "Queries", "JSON", "LocationEvents", "Postgres", "Output", "CivilCalendar"]),
        // The read-only web console served beside the API: sign-in and sessions, pages, the Leaflet map.
        .target(
            name: "Console",
            dependencies: ["HTTPServer", "Queries", "Projections", "EventStore", "Output", "Postgres", "Geo", "LocationEvents", "JSON"]),
        .executableTarget(name: "geoledger", dependencies: ["CJemalloc", "AllocatorSettings", "CommandLineArguments", "CivilCalendar", "Geo", "LocationEvents", "Postgres", "LocalPostgres", "EventStore", "Projections", "Ingestion", "Output", "CSVInput", "HTTPServer", "GeoledgerAPI", "Console", "Queries", "Maps", "Logging"]),

        // Deterministic submission workloads, for the benchmark and for tests.
        .target(name: "Workload", dependencies: ["LocationEvents", "Geo", "CivilCalendar"]),

        .executableTarget(name: "geoledger-bench", dependencies: ["CJemalloc", "AllocatorSettings", "CommandLineArguments", "Geo", "JSON", "LocationEvents", "Postgres", "EventStore", "Projections", "Ingestion", "Workload", "Queries", "GeoledgerAPI", "Console", "LocalPostgres", "RawHTTPClient"]),

        .testTarget(name: "CivilCalendarTests", dependencies: ["CivilCalendar"]),
        .testTarget(name: "GeoTests", dependencies: ["Geo"], resources: [.copy("Fixtures")]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "LoggingTests", dependencies: ["Logging"]),
        .testTarget(name: "LocationEventsTests", dependencies: ["LocationEvents", "JSON", "Geo", "CivilCalendar"]),
        .target(name: "PostgresTestSupport", dependencies: ["Postgres"], path: "Tests/PostgresTestSupport"),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "PostgresTestSupport", "Logging", "CivilCalendar"]),
        // The threads the tests' blocking HTTP clients run on, for the tests of both HTTP layers.
        .target(name: "HTTPTestSupport", dependencies: ["HTTPServer"], path: "Tests/HTTPTestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPTestSupport", "RawHTTPClient"]),
        .testTarget(name: "OutputTests", dependencies: ["Output", "CSVInput"]),
        // An SVG document read back as XML, for the tests of the maps and of the commands that draw them.
        .target(name: "SVGTestSupport", path: "Tests/SVGTestSupport"),
        .testTarget(name: "MapsTests", dependencies: ["Maps", "Geo", "SVGTestSupport"]),
        .testTarget(name: "MigrationsTests", dependencies: ["Migrations"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "HTTPServer", "Geo"]),
        .testTarget(name: "LocalPostgresTests", dependencies: ["LocalPostgres"]),
        .testTarget(name: "WorkloadTests", dependencies: ["Workload", "JSON", "LocationEvents", "Geo"]),
        .target(name: "DatabaseTestSupport", dependencies: ["PostgresTestSupport", "EventStore", "Postgres"], path: "Tests/DatabaseTestSupport"),
        .testTarget(name: "CommandLineTests", dependencies: ["DatabaseTestSupport", "Postgres", "LocalPostgres"]),
        .testTarget(
            name: "EventStoreTests", dependencies: ["EventStore", "Postgres", "DatabaseTestSupport", "CivilCalendar"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "GeoledgerAPITests",
            dependencies: [
                "GeoledgerAPI", "HTTPServer", "HTTPTestSupport", "RawHTTPClient", "Ingestion", "EventStore", "Postgres", "LocalPostgres", "Geo",
                "DatabaseTestSupport", "JSON", "LocationEvents",
            ]),
        .testTarget(
            name: "IngestionTests",
            dependencies: ["Ingestion", "Projections", "EventStore", "JSON", "LocationEvents", "Geo", "Postgres", "DatabaseTestSupport", "Workload", "Queries", "Output", "SVGTestSupport", "CivilCalendar"],
            resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds optimise across modules: an event passes through a dozen of them on its way in (JSON, LocationEvents,
// Ingestion, EventStore, Postgres…), and their generic and small functions are then specialised and inlined where
// they are called, not called through the module's boundary.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
}
