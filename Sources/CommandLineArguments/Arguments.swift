/// A command line after the command words: options (`--name value`, `--name=value`), flags (`--name`)
/// and positional arguments. Unknown options are usage errors.
public struct Arguments: Sendable {
    public private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - options: names (without `--`) that take a value.
    ///   - flags: names that take none. `help` is always accepted.
    public init(_ words: [String], options: Set<String> = [], flags: Set<String> = []) throws {
        var words = words[...]
        while let word = words.popFirst() {
            guard word.hasPrefix("--"), word != "--" else {
                if word == "--" { positionals += words; break }
                if word == "-h" { self.flags.insert("help"); continue }
                positionals.append(word)
                continue
            }
            var name = String(word.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flags.contains(name) || name == "help" {
                guard value == nil else { throw UsageError("--\(name) takes no value") }
                self.flags.insert(name)
            } else if options.contains(name) {
                guard let given = value ?? words.popFirst() else { throw UsageError("--\(name) needs a value") }
                values[name] = given
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    public var wantsHelp: Bool { flags.contains("help") }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    public func value(_ name: String) -> String? { values[name] }

    public func integer(_ name: String, default fallback: Int? = nil, range: ClosedRange<Int> = 0...Int.max) throws -> Int? {
        guard let text = values[name] else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// The value of an option restricted to a few words.
    public func choice(_ name: String, from allowed: [String], default fallback: String) throws -> String {
        guard let text = values[name] else { return fallback }
        guard allowed.contains(text) else {
            throw UsageError("--\(name) must be one of \(allowed.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }
}

/// A mistake in how a command was called: exit 64 with the message and a pointer to `--help`.
public struct UsageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}
