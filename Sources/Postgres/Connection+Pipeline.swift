internal import CLibPQ

extension Connection {
    /// Runs the prepared statement `name` once per parameter set in libpq pipeline mode:
    /// every execution is sent, then one Sync, then the results are read, so the whole batch
    /// costs one round trip. Without an explicit transaction the batch is one implicit
    /// transaction: when one execution fails, none is kept.
    ///
    /// Keep a batch to a few thousand sets: results are read only after everything is sent.
    /// - Returns: the rows affected, summed over the executions.
    public func pipelinePrepared(_ name: String, _ parameterSets: [[(any PostgresEncodable)?]]) throws -> Int {
        try exclusively { try inPipeline(name, parameterSets) }
    }

    private func inPipeline(_ name: String, _ parameterSets: [[(any PostgresEncodable)?]]) throws -> Int {
        let conn = try handle()
        guard PQenterPipelineMode(conn) == 1 else {
            throw PostgresError(.query, "could not enter pipeline mode: \(configuration.redact(Self.errorMessage(conn)))")
        }
        // A connection closed on a timeout has no pipeline left.
        defer { if !isClosed { _ = PQexitPipelineMode(conn) } }

        var sent = 0
        var sendError: Error?
        do {
            for parameters in parameterSets {
                let texts = try Self.parameterTexts(parameters)
                let queued = Self.withCStrings(texts) { values in
                    PQsendQueryPrepared(conn, name, Int32(values.count), values, nil, nil, 0)
                }
                guard queued == 1 else {
                    throw error(from: nil, query: "EXECUTE \(name)", kind: .query)
                }
                sent += 1
            }
        } catch {
            sendError = error
        }
        guard PQpipelineSync(conn) == 1 else {
            throw error(from: nil, query: "EXECUTE \(name)", kind: .query)
        }
        try flushOutput(query: "EXECUTE \(name)")

        var affected = 0
        var firstError: PostgresError?
        for _ in 0..<sent {
            while let result = try nextResult(query: "EXECUTE \(name)") {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                    affected += Int(String(cString: PQcmdTuples(result))) ?? 0
                case PGRES_PIPELINE_ABORTED:
                    break
                default:
                    if firstError == nil { firstError = error(from: result, query: "EXECUTE \(name)", kind: .query) }
                }
            }
            guard isOpen else { throw firstError ?? error(from: nil, query: "EXECUTE \(name)", kind: .query) }
        }
        // The Sync's own result, then the end of the pipeline's results.
        while let result = try nextResult(query: "EXECUTE \(name)") {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let sendError { throw sendError }
        if let firstError { throw firstError }
        return affected
    }
}
