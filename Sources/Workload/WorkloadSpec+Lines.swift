import Foundation

extension WorkloadSpec {
    /// The submission lines (without newlines), in arrival order. Generated lazily: memory stays bounded by one
    /// merchant's events and the shuffle window, whatever `events` is.
    public func lines() -> some Sequence<String> {
        items().lazy.map(\.text)
    }

    /// The lines with what each is (valid, duplicate, invalid), in arrival order.
    public func items() -> WorkloadItems {
        WorkloadItems(spec: self)
    }

    /// Writes the lines as NDJSON (each line ends with a newline).
    /// - Returns: how many lines of each kind were written, and the bytes.
    @discardableResult
    public func write(to path: String) throws -> WorkloadCounts {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw WorkloadError(description: "cannot create \(path)")
        }
        defer { try? handle.close() }
        var counts = WorkloadCounts()
        var buffer = Data()
        buffer.reserveCapacity(1 << 21)
        for item in items() {
            counts.count(item, bytes: item.text.utf8.count + 1)
            buffer.append(contentsOf: item.text.utf8)
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
        return counts
    }
}

/// What a written workload holds.
public struct WorkloadCounts: Sendable, Hashable {
    public var valid = 0
    public var duplicate = 0
    public var invalid = 0
    public var bytes = 0

    public init() {}

    public var lines: Int { valid + duplicate + invalid }

    mutating func count(_ item: WorkloadLine, bytes: Int) {
        switch item.kind {
        case .valid: valid += 1
        case .duplicate: duplicate += 1
        case .invalid: invalid += 1
        }
        self.bytes += bytes
    }
}

public struct WorkloadError: Error, CustomStringConvertible {
    public let description: String
}

/// The lines of a workload, in arrival order.
public struct WorkloadItems: Sequence {
    let spec: WorkloadSpec

    public func makeIterator() -> Iterator {
        Iterator(spec: spec)
    }

    /// Generates merchant by merchant in true order and, when shuffling, holds lines back in a window from
    /// which it picks at random, so that events arrive late. Each terminal's bind/unbind lines are queued
    /// behind one another: picking any of them sends the terminal's oldest pending one.
    public struct Iterator: IteratorProtocol {
        private var source: Source
        private let window: Int
        private let duplicateRate: Double
        private var random: SplitMix64
        private var duplicates: SplitMix64
        private var slots: [Slot] = []
        private var chains: [Int: [WorkloadLine]] = [:]

        private enum Slot {
            case line(WorkloadLine)
            /// The next pending bind/unbind of this terminal.
            case ordered(terminal: Int)
        }

        init(spec: WorkloadSpec) {
            source = Source(spec: spec)
            window = spec.shuffle ? Swift.max(1, spec.shuffleWindow) : 1
            duplicateRate = spec.duplicateRate
            random = SplitMix64(seed: spec.seed, 4)
            duplicates = SplitMix64(seed: spec.seed, 5)
        }

        public mutating func next() -> WorkloadLine? {
            while slots.count < window, let line = source.next() {
                if let terminal = line.orderedTerminal {
                    chains[terminal, default: []].append(line)
                    slots.append(.ordered(terminal: terminal))
                } else {
                    slots.append(.line(line))
                }
            }
            guard !slots.isEmpty else { return nil }
            let index = window == 1 ? 0 : random.below(slots.count)
            slots.swapAt(index, slots.count - 1)
            let line: WorkloadLine
            switch slots.removeLast() {
            case .line(let taken):
                line = taken
            case .ordered(let terminal):
                line = chains[terminal]!.removeFirst()
                if chains[terminal]!.isEmpty { chains[terminal] = nil }
            }
            if line.kind == .valid, duplicateRate > 0, duplicates.chance(duplicateRate) {
                // Sent again later, as a retried upload; never before the original.
                slots.append(.line(WorkloadLine(text: line.text, kind: .duplicate, orderedTerminal: nil)))
            }
            return line
        }
    }
}

/// Merchant groups in order, with the event budget and the terminals shared out between them.
///
/// Budgets follow running totals of per-merchant weights (more terminals, more events), so the whole adds up
/// to `events` exactly unless a merchant's first events alone exceed its share.
struct Source {
    let spec: WorkloadSpec
    let merchants: Int
    let terminals: Int
    private let terminalWeightTotal: Double
    private let eventWeightTotal: Double
    private var merchant = 0
    private var terminalWeightSoFar = 0.0
    private var eventWeightSoFar = 0.0
    private var terminalsAssigned = 0
    private var eventsProduced = 0
    private var pending: [WorkloadLine] = []
    private var pendingIndex = 0

    init(spec: WorkloadSpec) {
        self.spec = spec
        (merchants, terminals) = spec.entityCounts
        var terminalTotal = 0.0
        for index in 0..<merchants { terminalTotal += Self.terminalWeight(index, seed: spec.seed) }
        terminalWeightTotal = terminalTotal
        var eventTotal = 0.0
        var cumulative = 0.0
        var assigned = 0
        for index in 0..<merchants {
            cumulative += Self.terminalWeight(index, seed: spec.seed)
            let upTo = Self.share(terminals, cumulative, of: terminalTotal)
            eventTotal += Self.eventWeight(index, terminals: upTo - assigned, seed: spec.seed)
            assigned = upTo
        }
        eventWeightTotal = eventTotal
    }

    mutating func next() -> WorkloadLine? {
        while pendingIndex == pending.count {
            guard merchant < merchants else { return nil }
            pending = nextGroup()
            pendingIndex = 0
        }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    private mutating func nextGroup() -> [WorkloadLine] {
        let index = merchant
        merchant += 1
        terminalWeightSoFar += Self.terminalWeight(index, seed: spec.seed)
        let terminalsUpTo = index == merchants - 1 ? terminals : Self.share(terminals, terminalWeightSoFar, of: terminalWeightTotal)
        let range = terminalsAssigned..<max(terminalsAssigned, terminalsUpTo)
        terminalsAssigned = range.upperBound
        eventWeightSoFar += Self.eventWeight(index, terminals: range.count, seed: spec.seed)
        let eventsUpTo = index == merchants - 1 ? spec.events : Self.share(spec.events, eventWeightSoFar, of: eventWeightTotal)
        let budget = max(1 + range.count, eventsUpTo - eventsProduced)
        eventsProduced += budget
        var group = MerchantGroup(spec: spec, index: index, terminals: range, merchantCount: merchants)
        return group.lines(budget: budget)
    }

    private static func share(_ total: Int, _ part: Double, of whole: Double) -> Int {
        whole > 0 ? Int((Double(total) * part / whole).rounded()) : 0
    }

    /// Most merchants have one to three terminals; a few chains have many.
    private static func terminalWeight(_ index: Int, seed: UInt64) -> Double {
        var random = SplitMix64(seed: seed, 6, UInt64(index))
        return random.weighted([(0.0, 0.12), (1, 0.38), (2, 0.25), (3, 0.13), (4, 0.07), (8, 0.04), (20, 0.01)])
    }

    /// Busier merchants have more terminals, more visits and more fixes.
    private static func eventWeight(_ index: Int, terminals: Int, seed: UInt64) -> Double {
        var random = SplitMix64(seed: seed, 7, UInt64(index))
        return 1 + 1.6 * Double(terminals) + 3 * random.unit()
    }
}
