import Foundation
import Postgres

switch CommandLine.arguments.dropFirst().first {
case "bulk":
    do {
        let results = try BulkInsertBench.run(configuration: .fromEnvironment())
        for (name, value) in results.sorted(by: { $0.key < $1.key }) {
            print("\(name)=\(value)")
        }
    } catch {
        FileHandle.standardError.write(Data("bulk: \(error)\n".utf8))
        exit(1)
    }
default:
    print("bench")
}
