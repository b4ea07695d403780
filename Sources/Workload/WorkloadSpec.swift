import Foundation

/// What a generated workload holds. The same spec always gives the same bytes.
///
/// `events` counts the distinct valid submissions; duplicate and invalid lines come on top of them. When
/// `merchants + terminals` is more than half of `events`, both are scaled down so that every entity still has
/// room for more than its first event.
public struct WorkloadSpec: Sendable, Hashable {
    public var merchants: Int
    public var terminals: Int
    public var events: Int
    public var seed: UInt64
    /// Mixes arrival order: events arrive late and out of order, except that each terminal's bind and unbind
    /// events keep their order relative to each other (the store's binding rules depend on it).
    public var shuffle: Bool
    /// How many lines the shuffle holds back at a time; an event moves on the order of this many lines.
    public var shuffleWindow: Int
    /// Share of valid lines sent a second time, later (a retried upload).
    public var duplicateRate: Double
    /// Lines that fail validation, as a share of the valid ones: bad coordinates, missing fields, broken JSON.
    public var invalidRate: Double
    /// Share of merchants registered under an enterprise whose address is located too.
    public var enterpriseShare: Double
    /// How the events beyond each entity's first are spread over the kinds of record.
    public var mix: EventMix

    public init(
        merchants: Int = 50_000, terminals: Int = 100_000, events: Int = 1_000_000, seed: UInt64 = 20_261_129,
        shuffle: Bool = true, shuffleWindow: Int = 20_000, duplicateRate: Double = 0, invalidRate: Double = 0,
        enterpriseShare: Double = 0.1, mix: EventMix = EventMix()
    ) {
        self.merchants = merchants
        self.terminals = terminals
        self.events = events
        self.seed = seed
        self.shuffle = shuffle
        self.shuffleWindow = shuffleWindow
        self.duplicateRate = duplicateRate
        self.invalidRate = invalidRate
        self.enterpriseShare = enterpriseShare
        self.mix = mix
    }

    /// Every capturedAt is before this instant (2026-11-01T00:00:00+08:00), so a validator whose clock is
    /// later accepts them all. The earliest is 2025-01-01T00:00:00+08:00.
    public static let latestCapture = Date(timeIntervalSince1970: Double(TimeRange.end))

    /// Merchant and terminal counts after scaling them to fit `events`.
    var entityCounts: (merchants: Int, terminals: Int) {
        let events = max(events, 2)
        let merchants = max(1, self.merchants)
        let terminals = max(0, self.terminals)
        let room = events / 2
        guard merchants + terminals > room else { return (merchants, terminals) }
        let scale = Double(room) / Double(merchants + terminals)
        return (max(1, Int(Double(merchants) * scale)), Int(Double(terminals) * scale))
    }
}

/// Relative weights of the records that follow each merchant's onboarding fix and each terminal's first
/// binding. Location fixes dominate, as they do in production.
public struct EventMix: Sendable, Hashable {
    /// A terminal's periodic device position.
    public var terminalLocated: Double = 0.55
    /// The merchant's address located again: relocation, edit or shop.
    public var merchantAddress: Double = 0.12
    public var visit: Double = 0.14
    public var enterpriseAddress: Double = 0.04
    public var locationFailed: Double = 0.06
    /// A terminal unbound and bound to another merchant (two events).
    public var rebinding: Double = 0.01
    /// A terminal unbound for good (retired).
    public var retirement: Double = 0.002

    public init() {}

    var total: Double {
        terminalLocated + merchantAddress + visit + enterpriseAddress + locationFailed + rebinding + retirement
    }
}

/// The capture-time span, in Unix seconds.
enum TimeRange {
    /// 2025-01-01T00:00:00+08:00.
    static let start: Int64 = 1_735_660_800
    /// 2026-11-01T00:00:00+08:00.
    static let end: Int64 = 1_793_462_400
}
