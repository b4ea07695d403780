import Foundation
import Synchronization
import Testing
@testable import Logging

@Suite("Logger")
struct LoggerTests {
    @Test("a line is one JSON object: time, level, message and the metadata, which cannot overwrite them")
    func line() throws {
        let line = Logger.line(
            .warning, "a batch \"failed\"\nagain", ["error": "tab\there", "level": "not this", "checkpoint": "12"],
            at: Date(timeIntervalSince1970: 1_764_000_000.25))
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object == [
            "time": "2025-11-24T16:00:00.250Z", "level": "warning", "message": "a batch \"failed\"\nagain",
            "error": "tab\there", "checkpoint": "12",
        ])
    }

    @Test("lines below the minimum level are not written, nor their message built")
    func levels() {
        let lines = Mutex<[String]>([])
        let logger = Logger(minimum: .info) { line in lines.withLock { $0.append(line) } }
        var built = 0
        func message(_ text: String) -> String {
            built += 1
            return text
        }
        logger.debug(message("hidden"))
        logger.info(message("shown"))
        logger.error(message("shown too"))
        #expect(built == 2)
        #expect(lines.withLock { $0.count } == 2)
        #expect(lines.withLock { $0 }.allSatisfy { $0.contains(#""level":"info""#) || $0.contains(#""level":"error""#) })
        #expect(Logger.Level(name: "warning") == .warning && Logger.Level(name: "verbose") == nil)
    }
}
