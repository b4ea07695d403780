#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file a command writes its output to, or standard output for `-`. Written in place (open, write, close),
/// never replaced: a symlink's target receives the lines, a device stays a device.
public final class OutputFile {
    private let path: String
    private let descriptor: Int32
    private var output: BufferedOutput
    /// Whether the descriptor is this file's to close: not standard output's, and not closed yet.
    private var ownsDescriptor: Bool

    /// Opens `path` for writing, created with mode 0644 (less the umask) or truncated; `-` is standard output.
    /// - Throws: ``OutputError/openFailed(path:code:)`` naming the path and the reason.
    public init(path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            output = BufferedOutput()
            ownsDescriptor = false
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw OutputError.openFailed(path: path, code: errno) }
            output = BufferedOutput(descriptor: descriptor, target: path)
            ownsDescriptor = true
        }
    }

    /// Whether `path` (`-`: standard output) is the regular file `input`, by whatever name: the same device and
    /// inode. A command checks it before opening its output, so that it never truncates what it reads.
    public static func isSameFile(_ path: String, as input: stat) -> Bool {
        var target = stat()
        let found = path == "-" ? fstat(STDOUT_FILENO, &target) == 0 : stat(path, &target) == 0
        return found && (input.st_mode & S_IFMT) == S_IFREG && target.st_dev == input.st_dev && target.st_ino == input.st_ino
    }

    /// Writes `bytes` and a newline, once the buffer is full or at the next ``flush()``.
    public func appendLine(_ bytes: some Collection<UInt8>) throws {
        try output.append(bytes)
        output.append(0x0A)
    }

    public func flush() throws {
        try output.flush()
    }

    /// Writes what is left and closes the file: a failure to store the lines shows at the latest here.
    public func finish() throws {
        try output.flush()
        guard ownsDescriptor else { return }
        ownsDescriptor = false
        guard close(descriptor) == 0 else { throw OutputError.writeFailed(target: path, code: errno) }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }
}

/// A file that could not be opened for writing.
