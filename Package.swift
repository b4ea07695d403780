// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "geoledger",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "geoledger", targets: ["geoledger"]),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // jemalloc's options, compiled into the executables.
        .target(name: "AllocatorSettings"),

        // Pure domain: no I/O.
        .target(name: "Geo", resources: [.copy("Resources/boundaries.bin")]),
        .target(name: "LocationEvents", dependencies: ["Geo"]),

        // Infrastructure: knows nothing of locations.
        .target(name: "Postgres", dependencies: ["CLibPQ"]),
        // HTTP/1.1 on libmicrohttpd: requests, responses, a router, worker threads, gzip.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CZlib"]),
        // Options and usage errors, for both executables.
        .target(name: "CommandLineArguments"),
        // What people and programs read: tables, JSON, NDJSON, CSV, GeoJSON; checked writes, progress.
        .target(name: "Output"),
        // CSV points read from standard input, in bounded memory.
        .target(name: "CSVInput"),

        // Application.
        .target(name: "EventStore", dependencies: ["Postgres", "CCrypto"], resources: [.copy("Migrations")]),
        .target(name: "Projections", dependencies: ["EventStore", "LocationEvents", "Postgres", "Geo", "Output"]),
        .target(name: "Ingestion", dependencies: ["EventStore", "Projections", "LocationEvents", "Postgres", "Geo"]),
        .executableTarget(name: "geoledger", dependencies: ["CJemalloc", "AllocatorSettings", "CommandLineArguments", "Geo", "LocationEvents", "Postgres", "EventStore", "Projections", "Ingestion", "Output", "CSVInput"]),

        // Deterministic submission workloads, for the benchmark and for tests.
        .target(name: "Workload", dependencies: ["LocationEvents", "Geo"]),

        .executableTarget(name: "geoledger-bench", dependencies: ["CJemalloc", "AllocatorSettings", "CommandLineArguments", "Geo", "LocationEvents", "Postgres", "EventStore", "Projections", "Ingestion", "Workload"]),

        .testTarget(name: "GeoTests", dependencies: ["Geo"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LocationEventsTests", dependencies: ["LocationEvents", "Geo"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"]),
        .testTarget(name: "OutputTests", dependencies: ["Output", "CSVInput"]),
        .testTarget(name: "WorkloadTests", dependencies: ["Workload", "LocationEvents", "Geo"]),
        .target(name: "DatabaseTestSupport", dependencies: ["EventStore", "Postgres"], path: "Tests/DatabaseTestSupport"),
        .testTarget(name: "CommandLineTests", dependencies: ["DatabaseTestSupport", "Postgres"]),
        .testTarget(name: "EventStoreTests", dependencies: ["EventStore", "Postgres", "DatabaseTestSupport"]),
        .testTarget(
            name: "IngestionTests",
            dependencies: ["Ingestion", "Projections", "EventStore", "LocationEvents", "Geo", "Postgres", "DatabaseTestSupport", "Workload"],
            resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)
