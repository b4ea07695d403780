import Foundation
import Workload

/// A fixed set of submissions about several merchants, enterprises, terminals and visits, with precise,
/// approximate, reduced and unusable fixes captured at scattered times; for ingesting in different orders.
struct OrderWorkload {
    struct Item {
        let text: String
        let id: UUID
        let capturedAt: Date
    }

    enum Quality: CaseIterable {
        case precise, approximate, reducedFive, unusable, unknownAuthorization

        var horizontalAccuracy: Double {
            switch self {
            case .precise: 30
            case .approximate: 800
            case .reducedFive: 5
            case .unusable: 8000
            case .unknownAuthorization: 20
            }
        }

        var authorization: String? {
            switch self {
            case .precise, .approximate, .unusable: "full"
            case .reducedFive: "reduced"
            case .unknownAuthorization: nil
            }
        }
    }

    private(set) var items: [Item] = []
    /// Per merchant, the address fixes as (capture time, event id, quality).
    private(set) var merchantFixes: [String: [(Date, UUID, Quality)]] = [:]
    private var next = 1
    static let base = instant("2026-11-20T00:00:00Z")

    /// - Parameter withUnbinds: add terminals that are unbound and bound elsewhere, and a second merchant bind
    ///   that conflicts in some orders (the outcome then depends on arrival order).
    init(withUnbinds: Bool = false) {
        for m in 1...4 {
            let merchant = "M\(m)"
            for k in 0..<7 {
                let quality = Quality.allCases[(k + m) % Quality.allCases.count]
                address(merchant, minute: (m * 37 + k * 53) % 400, quality: quality, k: k, m: m)
            }
        }
        // Two precise fixes captured at the same instant: the larger event id wins, whatever the order.
        address("M1", minute: 500, quality: .precise, k: 8, m: 1)
        address("M1", minute: 500, quality: .precise, k: 9, m: 1)
        // The newest fix of M1 claims 5 m but under reduced authorisation: never the address position.
        address("M1", minute: 1000, quality: .reducedFive, k: 10, m: 1)

        for e in 1...2 {
            for k in 0..<3 {
                add(minute: 60 * k + 7 * e) { id, fix in
                    Client.enterpriseAddressFixed(id, enterprise: "E\(e)", fix: fix(31.10 + 0.01 * Double(e), 121.30 + 0.002 * Double(k), k == 1 ? .approximate : .precise))
                }
            }
        }
        for t in 1...3 {
            for k in 0..<3 {
                add(minute: 90 * k + 11 * t) { id, fix in
                    Client.terminalBound(id, terminal: "T\(t)", merchant: "M\(t)", fix: fix(31.20 + 0.003 * Double(k), 121.47, .precise))
                }
                add(minute: 90 * k + 45 + 3 * t) { id, fix in
                    Client.terminalLocated(id, terminal: "T\(t)", fix: fix(31.21, 121.46 + 0.004 * Double(k), k == 2 ? .unusable : .precise))
                }
            }
        }
        for v in 1...3 {
            add(minute: 120 + 13 * v) { id, fix in
                Client.visitRecorded(id, visit: "V\(v)", merchant: "M\(v)", fix: fix(31.22, 121.45, .precise))
            }
        }
        add(minute: 20) { id, fix in
            Client.visitRecorded(
                id, visit: "V1", merchant: "M1", fix: fix(31.23, 121.44, .approximate), note: "earlier record of the same visit")
        }
        add(minute: 300) { id, _ in
            Client.locationFailed(id, entity: ("merchantId", "M1"), provider: "amap", errorCode: 4, capturedAt: Self.text(minute: 300))
        }
        add(minute: 310) { id, _ in
            Client.locationFailed(id, entity: ("terminalId", "T2"), provider: "apple", errorCode: 1, capturedAt: Self.text(minute: 310))
        }
        add(minute: 320) { id, _ in
            Client.locationFailed(id, entity: ("visitId", "V2"), purpose: nil, provider: "tencent", errorCode: 2, capturedAt: Self.text(minute: 320))
        }
        if withUnbinds {
            add(minute: 10) { id, fix in Client.terminalBound(id, terminal: "T4", merchant: "M1", fix: fix(31.20, 121.47, .precise)) }
            add(minute: 20) { id, _ in Client.terminalUnbound(id, terminal: "T4", merchant: "M1") }
            add(minute: 30) { id, fix in Client.terminalBound(id, terminal: "T4", merchant: "M2", fix: fix(31.25, 121.48, .approximate)) }
            add(minute: 40) { id, fix in Client.terminalLocated(id, terminal: "T4", fix: fix(31.26, 121.49, .precise)) }
            add(minute: 50) { id, fix in Client.terminalBound(id, terminal: "T5", merchant: "M1", fix: fix(31.20, 121.47, .precise)) }
            add(minute: 60) { id, fix in Client.terminalBound(id, terminal: "T5", merchant: "M3", fix: fix(31.20, 121.47, .precise)) }
            add(minute: 70) { id, _ in Client.terminalUnbound(id, terminal: "T5", merchant: "M3") }
        }
    }

    private mutating func address(_ merchant: String, minute: Int, quality: Quality, k: Int, m: Int) {
        let id = eventId(next)
        merchantFixes[merchant, default: []].append((Self.date(minute: minute), id, quality))
        add(minute: minute) { id, fix in
            Client.merchantAddressFixed(
                id, merchant: merchant, purpose: ["onboarding", "relocation", "edit", "shop"][k % 4],
                fix: fix(31.20 + 0.01 * Double(m) + 0.001 * Double(k), 121.47 + 0.001 * Double(k), quality))
        }
    }

    private mutating func add(minute: Int, _ make: (UUID, (Double, Double, Quality) -> String) -> String) {
        let id = eventId(next)
        let captured = Self.text(minute: minute)
        let text = make(id) { lat, lon, quality in
            Client.fix(
                lat: lat, lon: lon, datum: minute % 3 == 0 ? nil : "gcj02", horizontalAccuracy: quality.horizontalAccuracy,
                authorization: quality.authorization, provider: minute % 2 == 0 ? "amap" : "tencent", capturedAt: captured)
        }
        items.append(Item(text: text, id: id, capturedAt: Self.date(minute: minute)))
        next += 1
    }

    static func date(minute: Int) -> Date { base.addingTimeInterval(Double(minute) * 60) }

    /// Device times, half of them with the +08:00 offset the apps in China send.
    static func text(minute: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = minute % 2 == 0 ? TimeZone(identifier: "UTC") : TimeZone(secondsFromGMT: 8 * 3600)
        return formatter.string(from: date(minute: minute))
    }

    /// The items sorted by capture time (then event id).
    var inCaptureOrder: [String] {
        items.sorted { ($0.capturedAt, $0.id.uuidString) < ($1.capturedAt, $1.id.uuidString) }.map(\.text)
    }

    func shuffled(seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        return items.map(\.text).shuffled(using: &generator)
    }

    /// The newest fix of `merchant` by (capture time, event id), among those of `quality` if given.
    func newest(_ merchant: String, _ quality: Quality? = nil) -> UUID? {
        merchantFixes[merchant]?
            .filter { quality == nil || $0.2 == quality }
            .max { ($0.0, $0.1.uuidString) < ($1.0, $1.1.uuidString) }?.1
    }
}
