import Foundation
import JSON
import LocationEvents
import Workload

/// The JSON reading of an ingest, two ways on the same lines in the same run: the project's own parser into
/// `JSONValue`, and the validator straight from the bytes into a `Submission` (which is what the ingest does); and
/// Foundation's `JSONSerialization`. Each of the three passes is timed as the best of `rounds`, the three taking
/// turns in a rotating order, by the CPU time of the thread running them: on a shared
/// machine that counts the work, not the waits for a core.
enum JSONBench {
    static let lineCount = 100_000
    static let rounds = 3

    static func run(lines count: Int = lineCount) -> [String: Double] {
        let spec = WorkloadSpec(
            merchants: max(1, count / 20), terminals: count / 10, events: count, seed: 20_261_129, shuffle: false,
            duplicateRate: 0, invalidRate: 0)
        let lines = spec.lines().map { Data($0.utf8) }
        let bytes = lines.reduce(0) { $0 + $1.count }
        let now = Date()
        let validator = SubmissionValidator()

        var results: [String: Double] = ["json_lines": Double(lines.count), "json_bytes_per_line": Double(bytes / max(1, lines.count))]
        let passes: [(name: String, pass: () -> Int)] = [
            ("parser", { lines.reduce(0) { count, line in count + ((try? JSONValue(parsing: line)) == nil ? 0 : 1) } }),
            ("parser_validated", {
                lines.reduce(0) { count, line in
                    if case .success = validator.validate(line, now: now) { return count + 1 }
                    return count
                }
            }),
            ("jsonserialization", {
                lines.reduce(0) { count, line in count + ((try? JSONSerialization.jsonObject(with: line)) == nil ? 0 : 1) }
            }),
        ]
        var fastest = [Double](repeating: .infinity, count: passes.count)
        var parsed = [Int](repeating: 0, count: passes.count)
        for round in 0..<rounds {
            for turn in passes.indices {
                let index = (round + turn) % passes.count
                let start = threadCPU()
                parsed[index] = passes[index].pass()
                fastest[index] = min(fastest[index], threadCPU() - start)
            }
        }
        var seconds: [String: Double] = [:]
        for (index, pass) in passes.enumerated() {
            seconds[pass.name] = fastest[index]
            results["json_\(pass.name)_us_per_line"] = (fastest[index] / Double(lines.count) * 1e7).rounded() / 10
            results["json_\(pass.name)_parsed"] = Double(parsed[index])
        }
        results["json_jsonserialization_vs_parser"] = ratio(seconds["jsonserialization"]!, seconds["parser"]!)
        return results
    }

    /// CPU seconds of the calling thread.
    private static func threadCPU() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func ratio(_ slower: Double, _ faster: Double) -> Double {
        (slower / faster * 100).rounded() / 100
    }
}
