import Foundation
import Geo
import Ingestion
import LocationEvents

/// `ingest FILE|-`: NDJSON or a JSON array of submissions, through the same path as HTTP.
enum IngestCommand {
    static let command = Command(
        words: ["ingest"], summary: "append location records from an NDJSON or JSON-array file",
        help: """
            Usage: geoledger ingest FILE|- [--batch-size N] [--rejects FILE] [--quiet]

            Reads submissions (one JSON object per line, or one JSON array of objects) from FILE, or from standard
            input with '-', and appends them in batches: validated, assessed and projected exactly as the HTTP
            API does. Memory stays constant whatever the file size. Re-running a file is safe: stored events come
            back as duplicates. It holds two database connections: one decides each batch while the other
            writes the batch before.

            On a terminal, a progress line on stderr shows the count, events/s and, for a file, the ETA.
            At the end a summary: appended, duplicate, conflict, invalid.

            Options:
              --batch-size N   events per transaction (default \(StreamIngestor.defaultBatchSize))
              --rejects FILE   write each item not stored (invalid or conflict) as an NDJSON line:
                               {"line": n, "status": ..., "errors" or "error": ..., "item": <the item>}
              --quiet          no progress line

            Environment:
              GEOLEDGER_STATEMENT_TIMEOUT   seconds to wait for the database's answer to a statement
                                            (default 60, 0 for no limit)

            An error (the database refuses a batch, or does not answer in time) stops the ingest with a message
            that says how many items before it were committed.

            Exit status: 0 when every item was appended or was a duplicate, 1 otherwise.

            Example:
              geoledger ingest fixes.ndjson --rejects rejects.ndjson
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["batch-size", "rejects"], flags: ["quiet"])
            guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
                throw UsageError("say which file to read, or - for standard input")
            }
            let batchSize = try arguments.integer("batch-size", default: StreamIngestor.defaultBatchSize, range: 1...100_000)
                ?? StreamIngestor.defaultBatchSize
            return try run(path: path, batchSize: batchSize, rejectsPath: arguments.value("rejects"), quiet: arguments.flag("quiet"))
        })

    private static func run(path: String, batchSize: Int, rejectsPath: String?, quiet: Bool) throws -> Int32 {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard descriptor >= 0 else { throw CommandError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
            throw CommandError("\(path) is a directory, not a file of submissions")
        }
        let size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil

        let rejects = try rejectsPath.map { try RejectsFile(path: $0) }
        // Reject lines of committed batches must reach the file even when a later batch fails.
        defer { try? rejects?.close() }
        let settings = Settings.fromEnvironment()
        let connection = try settings.connect()
        // Batches are decided on a second connection while the one before is written.
        let decider = try settings.connect()
        defer {
            decider.close()
            connection.close()
        }
        let service = IngestService(classifier: try BoundaryClassifier.bundled())
        let progress = ProgressLine(totalBytes: size, enabled: !quiet && isatty(STDERR_FILENO) == 1)
        let totals = try StreamIngestor(service: service, batchSize: batchSize).run(
            SubmissionReader(fileDescriptor: descriptor), on: connection, decidingOn: decider,
            rejected: { raw, result in rejects?.write(raw, result) },
            progress: { totals, bytes in
                rejects?.flush()
                progress.update(count: totals.items, bytes: bytes)
            })
        progress.finish()
        print("appended \(totals.appended), duplicate \(totals.duplicate), conflict \(totals.conflict), invalid \(totals.invalid) (\(totals.items) items in \(progress.elapsedText))")
        if !totals.allStored, let rejectsPath {
            print("items not stored are in \(rejectsPath)")
        }
        return totals.allStored ? ExitCode.ok : ExitCode.failure
    }
}

/// The `--rejects` file: one NDJSON line per item not stored.
private final class RejectsFile {
    private let handle: FileHandle
    private var buffer = Data()
    private var closed = false

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CommandError("cannot write \(path)")
        }
        self.handle = handle
    }

    func write(_ raw: SubmissionReader.RawItem, _ result: IngestItemResult) {
        guard case .object(var members) = result.json else { return }
        members["line"] = .number(Double(raw.line))
        switch raw.parsed {
        case .json(let item): members["item"] = item
        case .malformed: members["item"] = .string(String(decoding: raw.bytes, as: UTF8.self))
        }
        buffer.append(JSONValue.object(members).canonicalData())
        buffer.append(0x0A)
        if buffer.count > 1 << 20 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        guard !closed else { return }
        closed = true
        flush()
        try handle.close()
    }
}

/// A failure with a message for the user (exit 1).
struct CommandError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
