import CommandLineArguments
import Foundation
import Geo
import Ingestion
import Output

/// `ingest FILE|-`: NDJSON or a JSON array of submissions, through `IngestService`, the one way records come in.
enum IngestCommand {
    static let command = Command(
        words: ["ingest"], summary: "append location records from an NDJSON or JSON-array file",
        help: """
            Usage: geoledger ingest FILE|- [--batch-size N] [--max-item-bytes N] [--rejects FILE] [--quiet]
                                           [--log-level LEVEL]

            Reads submissions (one JSON object per line, or one JSON array of objects) from FILE, or from standard
            input with '-', validates each, assesses its fix and appends them in batches, each batch in one
            transaction. The projections follow the appends on a third connection, and are caught up when the
            ingest ends; while they are more than GEOLEDGER_MAX_PROJECTION_LAG events behind (default 200000),
            the appends wait. Memory stays constant whatever the file size. Re-running a file is safe: stored
            events come back as duplicates. One connection decides each batch while another writes the batch
            before.

            On a terminal, a progress line on stderr shows the count, events/s and, for a file, the ETA.
            At the end a summary: appended, duplicate, conflict, invalid; then the log's head as the ingest left
            it, head=POSITION:HASH, for geoledger verify --head to check later (see geoledger verify --help).

            Limits: an item (a line, or an element of the array) over --max-item-bytes is invalid (too_large)
            and skipped without being read into memory; a member the submission format does not have is
            invalid (unknown_field), as is an object naming a member twice (duplicate_key). A UTF-8 byte order
            mark is skipped at the start of the input only. Inside a JSON array, broken structure (a stray '}',
            a missing ',', content after the closing ']') is one invalid item naming the line and byte offset,
            and reading stops there. Whatever the input, at the default batch size, the process stays under
            \(memoryCeiling) of memory.

            Options:
              --batch-size N       events per transaction (default \(StreamIngestor.defaultBatchSize)); a batch also ends
                                   at \(StreamIngestor.maximumBatchBytes >> 20) MiB of input
              --max-item-bytes N   the largest item read, in bytes (default \(SubmissionReader.defaultMaximumItemBytes), at most \(maximumItemBytesLimit))
              --rejects FILE       write each item not stored (invalid or conflict) as an NDJSON line:
                                   {"line": n, "status": ..., "errors" or "error": ..., "item": <the item>}
                                   FILE is opened once the database answered, then truncated and written in
                                   place (a symlink's target, a device); it may not be the input. With '-'
                                   the lines go to stdout and the summary to stderr. A failed write stops the
                                   ingest with exit 1.
              --quiet              no progress line
              --log-level LEVEL    debug, info, warning or error (GEOLEDGER_LOG_LEVEL, default info): JSON
                                   lines on stderr for a projector batch (debug) or failure (warning), a
                                   reconnect, an append retried after a deadlock, a slow statement

            Environment:
              GEOLEDGER_STATEMENT_TIMEOUT   seconds to wait for the database's answer to a statement
                                            (default 60, 0 for no limit)
              GEOLEDGER_SLOW_STATEMENT_MS   a statement that takes this long is logged (default 5000,
                                            0 for none)

            An error (the database refuses a batch, or does not answer in time) stops the ingest with a message
            that says how many items before it were committed.

            Exit status: 0 when every item was appended or was a duplicate, 1 otherwise.

            Example:
              geoledger ingest fixes.ndjson --rejects rejects.ndjson
            """,
        run: { words in
            let arguments = try Arguments(
                words, options: ["batch-size", "max-item-bytes", "rejects", "log-level"], flags: ["quiet"])
            guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
                throw UsageError("say which file to read, or - for standard input")
            }
            let batchSize = try arguments.integer("batch-size", default: StreamIngestor.defaultBatchSize, range: 1...100_000)
                ?? StreamIngestor.defaultBatchSize
            let maximumItemBytes = try arguments.integer(
                "max-item-bytes", default: SubmissionReader.defaultMaximumItemBytes, range: 1024...maximumItemBytesLimit)
                ?? SubmissionReader.defaultMaximumItemBytes
            let environment = try Settings.environment(logLevel: arguments.value("log-level"))
            return try run(
                path: path, batchSize: batchSize, maximumItemBytes: maximumItemBytes, rejectsPath: arguments.value("rejects"),
                quiet: arguments.flag("quiet"), environment: environment)
        })

    /// The most resident memory an ingest takes at the default batch size, whatever the input and --max-item-bytes:
    /// docs/cli.md says what makes it up, docs/performance.md what was measured.
    static let memoryCeiling = "768 MB"
    /// The largest --max-item-bytes: a batch of items that size still keeps an ingest under ``memoryCeiling``.
    static let maximumItemBytesLimit = 1 << 20

    private static func run(
        path: String, batchSize: Int, maximumItemBytes: Int, rejectsPath: String?, quiet: Bool, environment: [String: String]
    ) throws -> Int32 {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard descriptor >= 0 else { throw CommandError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
            throw CommandError("\(path) is a directory, not a file of submissions")
        }
        let size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil

        if let rejectsPath, OutputFile.isSameFile(rejectsPath, as: info) {
            throw UsageError("--rejects names the input file: the rejects would overwrite what is being read")
        }
        let settings = Settings.fromEnvironment(environment)
        let connection = try settings.connect()
        // Batches are decided on a second connection while the one before is written.
        let decider = try settings.connect()
        defer {
            decider.close()
            connection.close()
        }
        // The projector follows the appends on a connection of its own, from the events handed over; the ingest
        // ends with the projections caught up.
        let service = IngestService(classifier: try BoundaryClassifier.bundled(), projector: settings.projector())
        // Created or truncated only now that the database answered.
        let rejects = try rejectsPath.map { try OutputFile(path: $0) }
        let progress = ProgressLine(totalBytes: size, enabled: !quiet && isatty(STDERR_FILENO) == 1)
        var notProjected: IngestError?
        let totals: IngestTotals
        do {
            totals = try StreamIngestor(service: service, batchSize: batchSize).run(
                SubmissionReader(fileDescriptor: descriptor, maximumItemBytes: maximumItemBytes), on: connection, decidingOn: decider,
                rejected: { raw, result in try rejects?.appendLine(result.rejectLine(for: raw)) },
                progress: { totals, bytes in
                    // Reject lines of committed batches reach the file even when a later batch fails.
                    try rejects?.flush()
                    progress.update(count: totals.items, bytes: bytes)
                })
        } catch let caughtUp as IngestError where caughtUp.kind == .projectionsNotCaughtUp {
            notProjected = caughtUp
            totals = caughtUp.committed
        }
        try rejects?.finish()
        progress.finish()
        let summary = "appended \(totals.appended), duplicate \(totals.duplicate), conflict \(totals.conflict), invalid \(totals.invalid) (\(totals.itemCount) in \(progress.elapsedText))"
        let head = totals.head.map { "head=\($0)" }
        if rejectsPath == "-" {
            // Standard output holds the rejects and nothing else.
            printError(summary)
            if let head { printError(head) }
        } else {
            print(summary)
            if let head { print(head) }
            if !totals.allStored, let rejectsPath { print("items not stored are in \(rejectsPath)") }
        }
        if let notProjected {
            printError("geoledger ingest: \(CommandLineInterface.explained(notProjected))")
            return ExitCode.failure
        }
        return totals.allStored ? ExitCode.ok : ExitCode.failure
    }
}

