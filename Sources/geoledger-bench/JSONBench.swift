import Foundation
import LocationEvents
import Workload

/// The JSON reading of an ingest, three ways on the same lines in the same run: the project's own parser into
/// `JSONValue` (and on to a validated `Submission`, which is what the ingest does), Foundation's
/// `JSONSerialization`, and `JSONDecoder` straight into `Submission`. Each is timed as the best of three passes.
enum JSONBench {
    static let lineCount = 100_000

    static func run(lines count: Int = lineCount) -> [String: Double] {
        let spec = WorkloadSpec(
            merchants: max(1, count / 20), terminals: count / 10, events: count, seed: 20_261_129, shuffle: false,
            duplicateRate: 0, invalidRate: 0)
        let lines = spec.lines().map { Data($0.utf8) }
        let bytes = lines.reduce(0) { $0 + $1.count }
        let now = Date()
        let validator = SubmissionValidator()
        let decoder = JSONDecoder()

        var results: [String: Double] = ["json_lines": Double(lines.count), "json_bytes_per_line": Double(bytes / max(1, lines.count))]
        let parser = best { lines.reduce(0) { count, line in count + ((try? JSONValue(parsing: line)) == nil ? 0 : 1) } }
        let validated = best {
            lines.reduce(0) { count, line in
                if case .success = validator.validate(line, now: now) { return count + 1 }
                return count
            }
        }
        let serialization = best {
            lines.reduce(0) { count, line in count + ((try? JSONSerialization.jsonObject(with: line)) == nil ? 0 : 1) }
        }
        let decodable = best {
            lines.reduce(0) { count, line in count + ((try? decoder.decode(Submission.self, from: line)) == nil ? 0 : 1) }
        }
        for (name, measured) in [
            ("parser", parser), ("parser_validated", validated), ("jsonserialization", serialization),
            ("jsondecoder", decodable),
        ] {
            results["json_\(name)_us_per_line"] = (measured.seconds / Double(lines.count) * 1e7).rounded() / 10
            results["json_\(name)_parsed"] = Double(measured.parsed)
        }
        results["json_jsonserialization_vs_parser"] = ratio(serialization.seconds, parser.seconds)
        results["json_jsondecoder_vs_parser_validated"] = ratio(decodable.seconds, validated.seconds)
        return results
    }

    private static func best(_ pass: () -> Int) -> (seconds: Double, parsed: Int) {
        var fastest = Double.infinity
        var parsed = 0
        for _ in 0..<3 {
            let start = DispatchTime.now()
            parsed = pass()
            fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
        }
        return (fastest, parsed)
    }

    private static func ratio(_ slower: Double, _ faster: Double) -> Double {
        (slower / faster * 100).rounded() / 100
    }
}
