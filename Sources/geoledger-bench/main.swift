import Foundation
import Postgres

/// `geoledger-bench region|bulk|all`: prints `name=value` lines; `all` ends with the RESULT line.
let arguments = Array(CommandLine.arguments.dropFirst())
let suite = arguments.first ?? "all"

func report(_ results: [String: Double]) {
    for (name, value) in results.sorted(by: { $0.key < $1.key }) { print("\(name)=\(value)") }
}

do {
    switch suite {
    case "region":
        report(RegionBench.run(geoledgerPath: arguments.dropFirst().first))
    case "bulk":
        report(try BulkInsertBench.run(configuration: .fromEnvironment()))
    case "all":
        report(RegionBench.run(geoledgerPath: nil))
        report(try BulkInsertBench.run(configuration: .fromEnvironment()))
    default:
        FileHandle.standardError.write(Data("usage: geoledger-bench [region|bulk|all]\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("geoledger-bench \(suite): \(error)\n".utf8))
    exit(1)
}
