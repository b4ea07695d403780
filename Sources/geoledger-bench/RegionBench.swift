import Foundation
import Workload
import Geo

/// Region classifier benchmarks: in-process throughput, and the `geoledger region classify`
/// command end to end (process start and boundary loading included).
enum RegionBench {
    static let pointCount = 1_000_000
    static let csvLines = 100_000

    /// Runs both measurements. `geoledgerPath` defaults to `geoledger` next to this binary.
    static func run(geoledgerPath: String? = nil) -> [String: Double] {
        var results: [String: Double] = [:]

        let loadStart = DispatchTime.now()
        guard let classifier = try? BoundaryClassifier.bundled() else {
            FileHandle.standardError.write(Data("region bench: cannot load the boundary data\n".utf8))
            return results
        }
        results["region_load_s"] = seconds(since: loadStart)

        var random = SplitMix64(seed: 0x6765_6f6c_6564_6765)
        var points: [Coordinate] = []
        points.reserveCapacity(pointCount)
        for _ in 0..<pointCount {
            points.append(Coordinate(latitude: 18 + 36 * random.unit(), longitude: 73 + 62 * random.unit()))
        }
        // Warm up once, then time the best of three passes.
        var checksum = 0
        for point in points.prefix(100_000) { checksum &+= classifier.classify(point).region.hashValue & 1 }
        var best = Double.infinity
        for _ in 0..<3 {
            let start = DispatchTime.now()
            var counts = [Int](repeating: 0, count: 16)
            for point in points {
                let answer = classifier.classify(point)
                counts[Region.allCases.firstIndex(of: answer.region)! * 2 + (answer.nearBoundary ? 1 : 0)] += 1
            }
            best = min(best, seconds(since: start))
            checksum &+= counts[0]
        }
        results["region_classifications_per_s"] = Double(pointCount) / best
        if checksum == -1 { print(checksum) }

        let binary = geoledgerPath ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("geoledger").path
        if let elapsed = timeClassifyCommand(binary: binary, random: &random) {
            results["region_classify_100k_s"] = elapsed
        }
        return results
    }

    /// Writes a 100,000-line CSV and times `geoledger region classify < csv > /dev/null`.
    private static func timeClassifyCommand(binary: String, random: inout SplitMix64) -> Double? {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            FileHandle.standardError.write(Data("region bench: no geoledger binary at \(binary)\n".utf8))
            return nil
        }
        var csv = "lat,lon\n"
        csv.reserveCapacity(csvLines * 24)
        for _ in 0..<csvLines {
            let lat = 18 + 36 * random.unit()
            let lon = 73 + 62 * random.unit()
            csv += "\((lat * 1e6).rounded() / 1e6),\((lon * 1e6).rounded() / 1e6)\n"
        }
        let input = FileManager.default.temporaryDirectory
            .appendingPathComponent("region-bench-\(ProcessInfo.processInfo.processIdentifier).csv")
        defer { try? FileManager.default.removeItem(at: input) }
        do {
            try csv.write(to: input, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["region", "classify"]
            process.standardInput = try FileHandle(forReadingFrom: input)
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            let start = DispatchTime.now()
            try process.run()
            process.waitUntilExit()
            let elapsed = seconds(since: start)
            guard process.terminationStatus == 0 else {
                FileHandle.standardError.write(Data("region bench: geoledger exited \(process.terminationStatus)\n".utf8))
                return nil
            }
            return elapsed
        } catch {
            FileHandle.standardError.write(Data("region bench: \(error)\n".utf8))
            return nil
        }
    }

    private static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
