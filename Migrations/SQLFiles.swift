import Foundation

/// The SQL files of this folder, `NNNN_description.sql`, as bundled with the build: what `migrate` applies.
public enum SQLFiles {
    /// Each file's name and text, in name order: the order they apply.
    public static func all() throws -> [(name: String, sql: String)] {
        let folder = Bundle.module.resourceURL ?? Bundle.module.bundleURL
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        return try names.map { name in
            (name, try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
    }
}
