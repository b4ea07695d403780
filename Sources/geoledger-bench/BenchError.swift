/// A benchmark that could not run or whose result does not add up (exit 1).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
