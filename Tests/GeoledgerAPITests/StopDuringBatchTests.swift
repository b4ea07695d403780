import EventStore
import Foundation
import HTTPTestSupport
import Postgres
import RawHTTPClient
import Testing

@Suite("A batch in progress when the server stops")
struct StopDuringBatchTests {
    /// In the process, so that the handler lives on after `stop()` returns, as it may in `serve` under load: it must
    /// not commit what was answered 503.
    @Test("a batch still waiting for the append lock when the grace period ends is answered 503 shutting_down, and rolled back when the lock comes")
    func aBatchCutOffByStopIsNotStored() async throws {
        try await onThread {
            let server = try APITestServer()
            defer {
                server.pool.close()
                server.database?.drop()
            }
            let url = server.database!.url(as: server.database!.roles!.application)
            let ids = (0..<5).map { _ in UUID() }
            let body = Array(("[" + ids.map { Submissions.merchantFix("M1", id: $0) }.joined(separator: ",") + "]").utf8)
            // Another writer holds the append lock, so the batch is still in its transaction when the grace period
            // ends; the lock goes once the 503 is in, and the handler could then commit at once.
            let locker = try Connection.connect(PostgresConfiguration(connectionString: url))
            defer { locker.close() }
            let client = try RawClient(port: server.port, timeout: .seconds(30))
            let response = try locker.transaction { transaction in
                try EventLog().lockAppends(on: transaction)
                try client.send(Array((
                    "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                        + "Authorization: Bearer \(server.tokens["ingest"]!)\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.count)\r\n\r\n").utf8) + body)
                usleep(300_000)
                server.server.stop(gracePeriod: .milliseconds(200))
                return try client.readResponse()
            }
            // The handler asked for the lock first: once this writer has it again, the handler's transaction is over.
            try locker.transaction { try EventLog().lockAppends(on: $0) }

            #expect(response.status == 503, "\(response.text.prefix(500))")
            #expect(response.errorCode == "shutting_down", "\(response.text)")
            let stored = try ServeProcess.storedIDs(url: url)
            #expect(stored.isEmpty, "answered 503 shutting_down, yet \(stored.count) of the batch's events are stored")
        }
    }
}
