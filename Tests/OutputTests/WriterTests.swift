import Foundation
import Output
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Checked writes: a failure is an error naming where, never lost.
@Suite("Output: checked writes")
struct WriterTests {
    @Test("a full device: the flush fails naming the target and the reason")
    func fullDevice() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var output = BufferedOutput(descriptor: descriptor, target: "/dev/full")
        try output.append("a line\n")
        #expect(throws: OutputError.self) { try output.flush() }
        do {
            try output.append("another\n")
            try output.flush()
        } catch let error as OutputError {
            #expect(error.description == "cannot write /dev/full: No space left on device")
            #expect(!error.isBrokenPipe)
        }
    }

    @Test("a pipe whose reader went away: a broken pipe, which a command ends on quietly")
    func brokenPipe() throws {
        ignoreBrokenPipes()
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        #expect { try writeAll(Array("x".utf8), to: ends[1], target: "standard output") } throws: { error in
            (error as? OutputError)?.isBrokenPipe == true
        }
    }

    @Test("an output file is written in place: a symlink stays a symlink and its target gets the lines")
    func inPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("output-file-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = folder + "/target", link = folder + "/link"
        try Data("an older line\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let file = try OutputFile(path: link)
        try file.appendLine(Array("new".utf8))
        try file.finish()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    }

    @Test("an output file that cannot be opened: the path and the reason")
    func cannotOpen() throws {
        #expect { try OutputFile(path: "/nonexistent-folder/file") } throws: { error in
            "\(error)" == "cannot open /nonexistent-folder/file: No such file or directory"
        }
    }
}
