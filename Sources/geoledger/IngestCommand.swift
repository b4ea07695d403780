import CommandLineArguments
import Foundation
import Geo
import Ingestion
import LocationEvents

/// `ingest FILE|-`: NDJSON or a JSON array of submissions, through `IngestService`, the one way records come in.
enum IngestCommand {
    static let command = Command(
        words: ["ingest"], summary: "append location records from an NDJSON or JSON-array file",
        help: """
            Usage: geoledger ingest FILE|- [--batch-size N] [--rejects FILE] [--quiet]

            Reads submissions (one JSON object per line, or one JSON array of objects) from FILE, or from standard
            input with '-', validates each, assesses its fix and appends them in batches, each batch with its
            projections in one transaction. Memory stays constant whatever the file size. Re-running a file is
            safe: stored events come back as duplicates. It holds two database connections: one decides each
            batch while the other writes the batch before.

            On a terminal, a progress line on stderr shows the count, events/s and, for a file, the ETA.
            At the end a summary: appended, duplicate, conflict, invalid; then the log's head as the ingest left
            it, head=POSITION:HASH, for geoledger verify --head to check later (see geoledger verify --help).

            Options:
              --batch-size N   events per transaction (default \(StreamIngestor.defaultBatchSize))
              --rejects FILE   write each item not stored (invalid or conflict) as an NDJSON line:
                               {"line": n, "status": ..., "errors" or "error": ..., "item": <the item>}
                               FILE is opened once the database answered, then truncated and written in
                               place (a symlink's target, a device); it may not be the input. With '-'
                               the lines go to stdout and the summary to stderr. A failed write stops the
                               ingest with exit 1.
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

        if let rejectsPath, RejectsFile.isSameFile(rejectsPath, as: info) {
            throw UsageError("--rejects names the input file: the rejects would overwrite what is being read")
        }
        let settings = Settings.fromEnvironment()
        let connection = try settings.connect()
        // Batches are decided on a second connection while the one before is written.
        let decider = try settings.connect()
        defer {
            decider.close()
            connection.close()
        }
        let service = IngestService(classifier: try BoundaryClassifier.bundled())
        // Created or truncated only now that the database answered.
        let rejects = try rejectsPath.map { try RejectsFile(path: $0) }
        let progress = ProgressLine(totalBytes: size, enabled: !quiet && isatty(STDERR_FILENO) == 1)
        let totals = try StreamIngestor(service: service, batchSize: batchSize).run(
            SubmissionReader(fileDescriptor: descriptor), on: connection, decidingOn: decider,
            rejected: { raw, result in try rejects?.write(raw, result) },
            progress: { totals, bytes in
                // Reject lines of committed batches reach the file even when a later batch fails.
                try rejects?.flush()
                progress.update(count: totals.items, bytes: bytes)
            })
        try rejects?.finish()
        progress.finish()
        let summary = "appended \(totals.appended), duplicate \(totals.duplicate), conflict \(totals.conflict), invalid \(totals.invalid) (\(totals.items) items in \(progress.elapsedText))"
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
        return totals.allStored ? ExitCode.ok : ExitCode.failure
    }
}

/// The `--rejects` file, or standard output for `-`: one NDJSON line per item not stored. Written in place (open,
/// write, close), never replaced: a symlink's target receives the lines, a device stays a device.
private final class RejectsFile {
    private let path: String
    private let descriptor: Int32
    private var output: BufferedOutput
    /// Whether the descriptor is this file's to close: not standard output's, and not closed yet.
    private var ownsDescriptor: Bool

    init(path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            output = BufferedOutput()
            ownsDescriptor = false
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw CommandError("cannot open \(path): \(String(cString: strerror(errno)))") }
            output = BufferedOutput(descriptor: descriptor, target: path)
            ownsDescriptor = true
        }
    }

    /// Whether `path` (`-`: standard output) is the regular file `input`, by whatever name: the same device and
    /// inode.
    static func isSameFile(_ path: String, as input: stat) -> Bool {
        var target = stat()
        let found = path == "-" ? fstat(STDOUT_FILENO, &target) == 0 : stat(path, &target) == 0
        return found && (input.st_mode & S_IFMT) == S_IFREG && target.st_dev == input.st_dev && target.st_ino == input.st_ino
    }

    func write(_ raw: SubmissionReader.RawItem, _ result: IngestItemResult) throws {
        guard case .object(var members) = result.json else { return }
        members["line"] = .number(Double(raw.line))
        switch raw.parsed {
        case .json(let item): members["item"] = item
        case .malformed: members["item"] = .string(String(decoding: raw.bytes, as: UTF8.self))
        }
        try output.append(JSONValue.object(members).canonicalData())
        output.append(0x0A)
    }

    func flush() throws {
        try output.flush()
    }

    /// Writes what is left and closes the file: a failure to store the lines shows at the latest here.
    func finish() throws {
        try output.flush()
        guard ownsDescriptor else { return }
        ownsDescriptor = false
        guard close(descriptor) == 0 else { throw WriteFailed(target: path, code: errno) }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }
}

/// A failure with a message for the user (exit 1).
struct CommandError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
