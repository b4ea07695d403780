internal import CLibPQ
import Foundation

extension Connection {
    /// Runs `COPY ... FROM STDIN` and streams the rows `write` produces.
    ///
    /// Rows are buffered and sent in large chunks. When `write` throws, the COPY is aborted
    /// (nothing is stored) and the error rethrown.
    /// - Parameter format: must be the statement's: `.binary` for `COPY ... WITH (FORMAT binary)`.
    /// - Returns: the number of rows the server stored.
    @discardableResult
    public func copyFrom(_ copySQL: String, format: CopyFormat = .text, _ write: (CopyWriter) throws -> Void) throws -> Int {
        try exclusively { try copying(copySQL, format: format, write) }
    }

    private func copying(_ copySQL: String, format: CopyFormat, _ write: (CopyWriter) throws -> Void) throws -> Int {
        guard let start = try exec(copySQL, kind: .copy, { conn in PQsendQuery(conn, copySQL) }) else {
            throw error(from: nil, query: copySQL, kind: .copy)
        }
        let started = PQresultStatus(start)
        guard started == PGRES_COPY_IN else {
            defer { PQclear(start) }
            if started == PGRES_COMMAND_OK || started == PGRES_TUPLES_OK {
                throw PostgresError(.copy, "not a COPY ... FROM STDIN statement", query: copySQL)
            }
            throw error(from: start, query: copySQL, kind: .copy)
        }
        let statementFormat: CopyFormat = PQbinaryTuples(start) == 1 ? .binary : .text
        PQclear(start)
        guard statementFormat == format else {
            _ = endCopy(failing: "the rows are not in the COPY's format", query: copySQL)
            throw PostgresError(.copy, "the COPY statement is in \(statementFormat) format and the rows in \(format)", query: copySQL)
        }

        let writer = CopyWriter(connection: self, format: format)
        defer { writer.isFinished = true }
        do {
            try write(writer)
            try writer.finish()
        } catch {
            writer.isFinished = true
            // A connection closed on a timeout has no COPY left to abort.
            guard !isClosed else { throw error }
            let serverError = endCopy(failing: "COPY aborted by the client", query: copySQL).error
            if let sendError = error as? PostgresError, sendError.kind == .copy, let serverError {
                throw serverError
            }
            throw error
        }
        writer.isFinished = true
        let outcome = endCopy(failing: nil, query: copySQL)
        if let error = outcome.error { throw error }
        return outcome.rows
    }

    /// Ends the COPY, or with a `reason` aborts it, then reads the results that end it: the row count, or the first
    /// error (the server's, or a timeout's).
    private func endCopy(failing reason: String?, query: String) -> (rows: Int, error: PostgresError?) {
        var rows = 0
        var firstError: PostgresError?
        do {
            if try whenRoom(query: query, { conn in PQputCopyEnd(conn, reason) }) == 1 {
                try flushOutput(query: query)
            } else {
                let message = configuration.redact(Self.errorMessage(try handle()))
                firstError = PostgresError(isOpen ? .copy : .connection, "could not end COPY: \(message)", query: query)
            }
            while let result = try nextResult(query: query) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK:
                    rows = Int(String(cString: PQcmdTuples(result))) ?? 0
                case PGRES_COPY_IN:
                    // Still in COPY after an end we could not send: give up on the connection.
                    close()
                    return (rows, firstError ?? PostgresError(.connection, "COPY could not be ended", query: query))
                default:
                    if firstError == nil { firstError = error(from: result, query: query, kind: .copy) }
                }
            }
        } catch {
            return (rows, firstError ?? (error as? PostgresError) ?? PostgresError(.copy, "\(error)", query: query))
        }
        return (rows, firstError)
    }

    /// Hands `bytes` of COPY data to libpq and sends them on, waiting within the timeout while the server does not
    /// take them: in non-blocking mode libpq would otherwise buffer without bound.
    func sendCopyData(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        try exclusively {
            let queued = try whenRoom(query: nil) { conn in
                bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    PQputCopyData(conn, $0, Int32(bytes.count))
                }
            }
            guard queued == 1 else {
                let message = configuration.redact(Self.errorMessage(try handle()))
                throw PostgresError(.copy, "could not send COPY data: \(message)")
            }
            try flushOutput(query: nil)
        }
    }
}
