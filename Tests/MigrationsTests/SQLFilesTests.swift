import Foundation
import Migrations
import Testing

@Suite("Migrations: the SQL files")
struct SQLFilesTests {
    /// The top-level Migrations folder of this checkout.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Migrations")

    @Test("every SQL file of Migrations/ is bundled, byte for byte, in name order (a new file must be listed in Package.swift)")
    func everyFileBundled() throws {
        let inFolder = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        let bundled = try SQLFiles.all()
        #expect(!bundled.isEmpty)
        #expect(bundled.map(\.name) == inFolder)
        for file in bundled {
            #expect(Data(file.sql.utf8) == (try Data(contentsOf: Self.folder.appendingPathComponent(file.name))), "\(file.name)")
        }
    }
}
