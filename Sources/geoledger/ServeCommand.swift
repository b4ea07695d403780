import AllocatorSettings
import CommandLineArguments
import Console
import Foundation
import Geo
import GeoledgerAPI
import HTTPServer
import Logging
import Ingestion
import Output
import Postgres

/// `serve`: the HTTP API in the foreground until SIGINT or SIGTERM.
enum ServeCommand {
    static let defaultListen = "127.0.0.1:8080"
    static let defaultMaximumBody = 16 << 20
    static let defaultMaximumConnections = 1000

    static let command = Command(
        words: ["serve"], summary: "serve the HTTP API (ingest, feed, current state, history, reports, health, metrics)",
        help: """
            Usage: geoledger serve [--listen HOST:PORT] [--threads N] [--max-body SIZE] [--public-metrics]
                                   [--log-level LEVEL] [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]
                                   [--max-connections N] [--max-connections-per-client N]
                                   [--map-tiles URL-TEMPLATE [--map-tiles-attribution TEXT]
                                    [--map-tiles-datum wgs84|gcj02]]

            Serves the HTTP API (docs/http.md) in the foreground. Requests under /v1 need a token
            (geoledger token create): 'Authorization: Bearer TOKEN'; ingest for POST, read for GET, admin
            for both. Routes: POST /v1/events (a JSON array or NDJSON, ?atomic=true for all or nothing),
            GET /v1/events?after=P&limit=N (the feed), GET /v1/merchants/ID, GET /v1/terminals/ID,
            GET /v1/merchants/ID/history, /v1/terminals/ID/history, /v1/visits?merchant=ID|visitor=ID
            (since, until, limit, cursor; format=json|ndjson|csv|geojson; the next page in a Link
            header), GET /v1/reports/NAME (the filters of 'geoledger report'), GET /healthz, /readyz
            (the database answers), /metrics (Prometheus; loopback clients only unless
            --public-metrics), /openapi.json (every route). A 200 to a POST means committed.
            While the database cannot be reached, /v1 answers 503 with Retry-After and /readyz fails;
            the server recovers by itself when it is back, and starts even when it is not there yet. While
            its disk is full, POST /v1/events answers 503 database_full with Retry-After, nothing stored.
            It refuses to start on a database that is reachable but not migrated.

            The web console is served on the same port under / (sign in at /sign-in with a token of scope
            read or admin; docs/console.md): read-only pages of merchants, terminals, enterprises, visits
            and reports with a Leaflet map, from Debian's libjs-leaflet (/usr/share/javascript/leaflet, or
            GEOLEDGER_LEAFLET_DIR); without it the pages are served and say the map is off. The map's base
            layer is the region outlines, which need no network; --map-tiles adds a tile layer.

            Every request is logged on standard error as one JSON line: time, request id, method, route,
            status, duration, bytes, token name (never the token or the body). Answers carry X-Request-Id.
            A request line and headers over 64 KiB are answered 431; a client that falls silent for 30 s in
            its headers or body, or takes over 60 s to send its request line, headers or body, 408.
            A connection silent for 30 s is closed. One past --max-connections is answered 503
            too_many_connections as soon as it opens, one past --max-connections-per-client from the same
            address 429 too_many_connections_from_client (both with Retry-After: 1; over TLS the
            connection is closed without an answer), and closed; /metrics counts them.
            SIGINT or SIGTERM stops it: no new connections, requests in progress finish (up to 10 s), exit 0.
            A batch still unanswered then is answered 200 if it had begun to commit, else 503
            shutting_down with nothing of it stored.

            With --tls-cert and --tls-key it serves HTTPS only: TLS 1.3 and 1.2 (older versions and plain
            HTTP on the port are refused), every answer with Strict-Transport-Security. SIGHUP reads the
            certificate, key and client CA files again: new connections get the new certificate, those
            open finish with theirs; files that cannot be used are logged and the old ones kept. With
            --tls-client-ca every client must present a certificate signed by that CA (mutual TLS), or
            the handshake fails; the request log names its subject, and a token bound to a certificate
            (token create --client-cert) is refused (401) with any other.

            Options (each also from the environment; an option wins):
              --listen HOST:PORT   address to listen on (GEOLEDGER_LISTEN, default \(defaultListen));
                                   [::1]:8080 for IPv6, port 0 for any free port (printed at start)
              --threads N          worker threads, and database connections (GEOLEDGER_THREADS, default
                                   twice the processors, at least 4; 1 to 1024)
              --max-body SIZE      largest request body, as sent and once un-gzipped: bytes, or with
                                   K, M or G (KiB, MiB, GiB) (GEOLEDGER_MAX_BODY, default 16M); larger
                                   bodies are answered 413 before they are read
              --public-metrics     /metrics answers any client (GEOLEDGER_PUBLIC_METRICS=true)
              --log-level LEVEL    debug, info, warning or error (GEOLEDGER_LOG_LEVEL, default info): lines on
                                   standard error, JSON like the request log: the projector's (a line per
                                   batch at debug, a failed batch at warning, its recovery at info), a
                                   reconnect, an append retried after a deadlock, a slow statement
              --tls-cert FILE      the server's certificate, PEM, intermediates after it (GEOLEDGER_TLS_CERT)
              --tls-key FILE       its private key, PEM, unencrypted (GEOLEDGER_TLS_KEY); both or neither
              --max-connections N  connections open at once (GEOLEDGER_MAX_CONNECTIONS, default \(defaultMaximumConnections);
                                   1 to 100000); each holds a file descriptor
              --max-connections-per-client N
                                   connections open at once from one client address
                                   (GEOLEDGER_MAX_CONNECTIONS_PER_CLIENT, default 0: no limit but the total)
              --tls-client-ca FILE the CA certificates (PEM) clients' certificates must be signed by
                                   (GEOLEDGER_TLS_CLIENT_CA); needs --tls-cert and --tls-key
              --map-tiles URL-TEMPLATE
                                   a tile layer under the console's map, as Leaflet takes it:
                                   https://{s}.tile.example.org/{z}/{x}/{y}.png (GEOLEDGER_MAP_TILES);
                                   the Content-Security-Policy then allows images from that host
              --map-tiles-attribution TEXT
                                   the tiles' credit, shown on the map (GEOLEDGER_MAP_TILES_ATTRIBUTION)
              --map-tiles-datum wgs84|gcj02
                                   the datum the tiles are drawn in (GEOLEDGER_MAP_TILES_DATUM, default
                                   wgs84; gcj02 for AMap and Tencent tiles of China): every position is
                                   drawn in it

            The projections (positions, histories, visits, reports) are kept behind the log by a projector
            running in the server, woken by each append and looking for other processes' appends every
            0.2 s. A read answers only once they hold every event committed before it began: it waits up to
            GEOLEDGER_READ_TIMEOUT, then answers 503 projections_behind with Retry-After. While they are more
            than GEOLEDGER_MAX_PROJECTION_LAG events behind, POST /v1/events answers 503 projections_behind
            with nothing stored. /metrics shows the projector's position, lag, batches and errors; /readyz
            fails while it is behind and failing or not moving for 30 s.

            Environment: DATABASE_URL as for every command; GEOLEDGER_STATEMENT_TIMEOUT (seconds a
            statement may take, default 60); GEOLEDGER_READ_TIMEOUT (seconds, default 5);
            GEOLEDGER_MAX_PROJECTION_LAG (events, default 200000); GEOLEDGER_SLOW_STATEMENT_MS (a statement
            that takes this long is logged at warning, default 5000, 0 for none).

            Examples:
              geoledger serve
              geoledger serve --listen 0.0.0.0:8080 --threads 16 --max-body 64M
              GEOLEDGER_LISTEN=127.0.0.1:9090 geoledger serve
              geoledger serve --listen 0.0.0.0:8443 --tls-cert /etc/geoledger/cert.pem \\
                   --tls-key /etc/geoledger/key.pem --tls-client-ca /etc/geoledger/batch-ca.pem
              curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/x-ndjson' \\
                   --data-binary @fixes.ndjson http://127.0.0.1:8080/v1/events
              curl -H "Authorization: Bearer $TOKEN" 'http://127.0.0.1:8080/v1/reports/terminal-drift?format=csv'
            """,
        run: { words in
            let arguments = try Arguments(
                words,
                options: [
                    "listen", "threads", "max-body", "log-level", "tls-cert", "tls-key", "tls-client-ca", "max-connections",
                    "max-connections-per-client", "map-tiles", "map-tiles-attribution", "map-tiles-datum",
                ],
                flags: ["public-metrics"])
            guard arguments.positionals.isEmpty else { throw UsageError("unexpected argument '\(arguments.positionals[0])'") }
            let settings = try ServeSettings(arguments: arguments, environment: ProcessInfo.processInfo.environment)
            return try serve(settings, environment: try Settings.environment(logLevel: arguments.value("log-level")))
        })

    /// Pages serve frees and leaves unused this long go back to the system: it runs for months, and a peak (a burst
    /// of large batches) should not stay resident. A `MALLOC_CONF` that sets a decay of its own decides instead.
    static let returnFreedPagesAfterMilliseconds = 10_000

    private static func serve(_ serve: ServeSettings, environment: [String: String]) throws -> Int32 {
        let settings = Settings.fromEnvironment(environment)
        if let invalid = settings.invalidSetting { throw CommandError(invalid) }
        // A connection for each worker: a handler never waits for another's connection.
        let pool = ConnectionPool(configuration: settings.database, maximumConnections: serve.threads, checkoutTimeout: 30)
        defer { pool.close() }
        let log: @Sendable (String) -> Void = { line in writeStandardError(line + "\n") }
        let projector = settings.projector()
        let classifier = try BoundaryClassifier.bundled()
        let api = GeoledgerAPI(
            pool: pool, service: IngestService(classifier: classifier, projector: projector),
            configuration: GeoledgerAPI.Configuration(publicMetrics: serve.publicMetrics, log: log))
        var consoleSettings = Console.Configuration(secureCookies: serve.tls != nil, tiles: serve.mapTiles)
        if let directory = environment["GEOLEDGER_LEAFLET_DIR"], !directory.isEmpty { consoleSettings.leafletDirectory = directory }
        let console = try Console(
            pool: pool, projector: projector, tokens: Console.Tokens(api: api), classifier: classifier,
            configuration: consoleSettings, log: { message in api.log(message) },
            projectionsBehind: { behind in api.metrics.recordProjectionsBehind(behind.kind) })
        for note in console.notes { api.log(note) }
        if !(ProcessInfo.processInfo.environment["MALLOC_CONF"] ?? "").contains("decay_ms") {
            let failed = allocator_return_freed_pages(returnFreedPagesAfterMilliseconds)
            if failed != 0 { api.log("freed memory stays with the process: jemalloc refused to hand it back (error \(failed))") }
        }
        do {
            try pool.withConnection { connection in
                let migrated = try connection.query("SELECT to_regclass('api_tokens') IS NOT NULL").first?.decode(0, as: Bool.self)
                guard migrated == true else {
                    throw CommandError("the database \(settings.database) has no API tokens table: run 'geoledger migrate' first")
                }
            }
        } catch let error as PostgresError {
            // Served all the same: requests that need the database answer 503 until it can be reached.
            api.log("the database cannot be reached yet: \(error)")
        }
        var configuration = HTTPServer.Configuration(
            host: serve.host, port: serve.port, workerThreads: serve.threads, maximumBodyBytes: serve.maximumBody)
        configuration.tls = serve.tls
        configuration.maximumConnections = serve.maximumConnections
        configuration.maximumConnectionsPerClient = serve.maximumConnectionsPerClient
        configuration.log = { message in api.log(message) }
        configuration.completed = { request in api.completed(request) }
        let server: HTTPServer
        do {
            var router = api.router
            console.add(to: &router)
            server = try HTTPServer.start(configuration, router: router)
        } catch {
            throw CommandError("cannot serve on \(configuration.address): \(error)")
        }
        api.serving(server)
        // The projections follow the log on a connection of the projector's own, whatever appends.
        projector.start()
        defer { projector.stop() }
        let signals = server.stopOnSignals()
        let reloads = server.isTLS ? server.reloadCertificatesOnSignal() : nil
        if let certificate = server.certificateSummary { api.log("serving TLS with the certificate \(certificate)") }
        let scheme = server.isTLS ? "https" : "http"
        print("geoledger serve: listening on \(scheme)://\(server.configuration.address) (database \(settings.database))")
        print("geoledger serve: web console on \(scheme)://\(server.configuration.address)/sign-in")
        try flushPrintedOutput()
        server.waitUntilStopped()
        signals.cancel()
        reloads?.cancel()
        api.log("stopped")
        return ExitCode.ok
    }
}

/// `serve`'s options, each from its flag or else its GEOLEDGER_* variable.
struct ServeSettings: Equatable {
    var host: String
    var port: Int
    var threads: Int
    var maximumBody: Int
    var publicMetrics: Bool
    var tls: HTTPServer.TLS?
    var maximumConnections: Int
    var maximumConnectionsPerClient: Int
    var mapTiles: MapTiles?

    init(arguments: Arguments, environment: [String: String]) throws {
        func setting(_ option: String, _ variable: String) -> (text: String, source: String)? {
            if let value = arguments.value(option) { return (value, "--\(option)") }
            if let value = environment[variable], !value.isEmpty { return (value, variable) }
            return nil
        }
        let listen = setting("listen", "GEOLEDGER_LISTEN") ?? (ServeCommand.defaultListen, "--listen")
        (host, port) = try Self.address(listen.text, source: listen.source)
        if let threads = setting("threads", "GEOLEDGER_THREADS") {
            guard let number = Int(threads.text), (1...1024).contains(number) else {
                throw UsageError("\(threads.source) must be a whole number from 1 to 1024, not '\(threads.text)'")
            }
            self.threads = number
        } else {
            threads = HTTPServer.Configuration.defaultWorkerThreads
        }
        if let size = setting("max-body", "GEOLEDGER_MAX_BODY") {
            guard let bytes = Self.size(size.text), (1...(1 << 30)).contains(bytes) else {
                throw UsageError("\(size.source) must be a size from 1 byte to 1G (bytes, or with K, M or G), not '\(size.text)'")
            }
            maximumBody = bytes
        } else {
            maximumBody = ServeCommand.defaultMaximumBody
        }
        let open = environment["GEOLEDGER_PUBLIC_METRICS"] ?? ""
        guard ["", "true", "false", "1", "0"].contains(open) else {
            throw UsageError("GEOLEDGER_PUBLIC_METRICS must be true or false, not '\(open)'")
        }
        publicMetrics = arguments.flag("public-metrics") || open == "true" || open == "1"
        func number(_ option: String, _ variable: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
            guard let given = setting(option, variable) else { return fallback }
            guard let number = Int(given.text), range.contains(number) else {
                throw UsageError(
                    "\(given.source) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(given.text)'")
            }
            return number
        }
        maximumConnections = try number(
            "max-connections", "GEOLEDGER_MAX_CONNECTIONS", in: 1...100_000, default: ServeCommand.defaultMaximumConnections)
        maximumConnectionsPerClient = try number(
            "max-connections-per-client", "GEOLEDGER_MAX_CONNECTIONS_PER_CLIENT", in: 0...maximumConnections, default: 0)
        let certificate = setting("tls-cert", "GEOLEDGER_TLS_CERT")
        let key = setting("tls-key", "GEOLEDGER_TLS_KEY")
        let clientCA = setting("tls-client-ca", "GEOLEDGER_TLS_CLIENT_CA")
        switch (certificate, key) {
        case (let certificate?, let key?):
            tls = HTTPServer.TLS(certificateFile: certificate.text, keyFile: key.text, clientCAFile: clientCA?.text)
        case (let certificate?, nil):
            throw UsageError("\(certificate.source) needs --tls-key FILE (or GEOLEDGER_TLS_KEY): the certificate's private key")
        case (nil, let key?):
            throw UsageError("\(key.source) needs --tls-cert FILE (or GEOLEDGER_TLS_CERT): the certificate of that key")
        case (nil, nil):
            if let clientCA {
                throw UsageError("\(clientCA.source) needs --tls-cert FILE and --tls-key FILE: mutual TLS is served over TLS")
            }
            tls = nil
        }
        let tileDatum = setting("map-tiles-datum", "GEOLEDGER_MAP_TILES_DATUM")
        let attribution = setting("map-tiles-attribution", "GEOLEDGER_MAP_TILES_ATTRIBUTION")
        if let tiles = setting("map-tiles", "GEOLEDGER_MAP_TILES") {
            var datum = Datum.wgs84
            if let tileDatum {
                guard let named = Datum(rawValue: tileDatum.text), named != .bd09 else {
                    throw UsageError("\(tileDatum.source) must be wgs84 or gcj02, not '\(tileDatum.text)'")
                }
                datum = named
            }
            do {
                mapTiles = try MapTiles(urlTemplate: tiles.text, attribution: attribution?.text ?? "", datum: datum)
            } catch {
                throw UsageError("\(tiles.source): \(error)")
            }
        } else {
            if let given = tileDatum ?? attribution { throw UsageError("\(given.source) needs --map-tiles URL-TEMPLATE") }
            mapTiles = nil
        }
    }

    /// `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:0`.
    static func address(_ text: String, source: String) throws -> (host: String, port: Int) {
        var host: Substring
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") {
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            throw UsageError("\(source) must be HOST:PORT (127.0.0.1:8080, [::1]:8080), not '\(text)'")
        }
        if host.isEmpty { host = "0.0.0.0" }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw UsageError("\(source) must end in a port from 0 to 65535, not '\(text)'")
        }
        return (String(host), port)
    }

    /// `16777216`, `16M`, `16MiB`, `512k`: bytes.
    static func size(_ text: String) -> Int? {
        let units: [(String, Int)] = [("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("b", 1)]
        let lower = text.lowercased()
        for (suffix, factor) in units where lower.hasSuffix(suffix) {
            guard let number = Int(lower.dropLast(suffix.count)), number >= 0 else { return nil }
            return number.multipliedReportingOverflow(by: factor).overflow ? nil : number * factor
        }
        return Int(lower)
    }
}
