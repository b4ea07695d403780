import Foundation
import Geo

/// One line of a workload.
public struct WorkloadLine: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A distinct, valid submission.
        case valid
        /// A valid line sent again, after the first time.
        case duplicate
        /// A line the validator must reject.
        case invalid
    }

    /// The submission, one JSON object, without the newline.
    public let text: String
    public let kind: Kind
    /// The terminal whose bind or unbind this is: such lines keep their order through the shuffle.
    let orderedTerminal: Int?
}

/// Every event of one merchant and what hangs off it (its terminals, visits, enterprise and failed attempts),
/// in the order they really happened. Generated from the seed and the merchant's index alone.
struct MerchantGroup {
    let spec: WorkloadSpec
    let index: Int
    let terminals: Range<Int>
    let merchantCount: Int

    private var random: SplitMix64
    private var events: [(milliseconds: Int64, sequence: Int, line: WorkloadLine)] = []

    init(spec: WorkloadSpec, index: Int, terminals: Range<Int>, merchantCount: Int) {
        self.spec = spec
        self.index = index
        self.terminals = terminals
        self.merchantCount = merchantCount
        random = SplitMix64(seed: spec.seed, 1, UInt64(index))
    }

    static func merchantId(_ index: Int) -> String { "M" + pad(index + 1, 7) }
    static func terminalId(_ index: Int) -> String { "T" + pad(index + 1, 8) }

    /// - Parameter budget: how many valid events to produce (at least one per merchant and terminal).
    /// - Returns: the lines in true order, with invalid ones among them at `spec.invalidRate`.
    mutating func lines(budget: Int) -> [WorkloadLine] {
        let site = Site.merchant(index, seed: spec.seed)
        let merchantId = Self.merchantId(index)
        let span = TimeRange.end - TimeRange.start
        let onboarded = (TimeRange.start + Int64(random.unit() * Double(span) * 0.75)) * 1000
        let hasEnterprise = random.chance(spec.enterpriseShare)
        let salesUser = "sales-\(1 + random.below(800))"
        let salesPhone = Phone(random: &random)
        let merchantPhone = Phone(random: &random)

        // How the budget beyond the first events is spent.
        var counts = Counts(terminals: terminals.count)
        var remaining = budget - 1 - terminals.count
        while remaining > 0 {
            let mix = spec.mix
            var kind = random.weighted([
                (Kind.terminalLocated, mix.terminalLocated), (.merchantAddress, mix.merchantAddress), (.visit, mix.visit),
                (.enterpriseAddress, mix.enterpriseAddress), (.locationFailed, mix.locationFailed),
                (.rebinding, mix.rebinding), (.retirement, mix.retirement),
            ])
            if terminals.isEmpty, kind == .terminalLocated || kind == .rebinding || kind == .retirement { kind = .visit }
            if kind == .enterpriseAddress, !hasEnterprise { kind = .merchantAddress }
            if kind == .rebinding, remaining < 2 { kind = .terminalLocated }
            let terminal = terminals.isEmpty ? 0 : random.below(terminals.count)
            switch kind {
            case .terminalLocated: counts.located[terminal] += 1
            case .rebinding: counts.rebindings[terminal] += 1
            case .retirement:
                if counts.retired[terminal] { counts.located[terminal] += 1 } else { counts.retired[terminal] = true }
            case .merchantAddress: counts.merchantFixes += 1
            case .visit: counts.visits += 1
            case .enterpriseAddress: counts.enterpriseFixes += 1
            case .locationFailed: counts.failures += 1
            }
            remaining -= kind == .rebinding ? 2 : 1
        }

        // The merchant's address: onboarding first, then relocations, edits and the shop from the merchant app.
        let onboardingFix = FixMaker.fix(of: site.position, site: site, device: .phone, iOS: salesPhone.iOS, milliseconds: onboarded, random: &random)
        add(onboarded, SubmissionText.merchantAddressFixed(
            random.uuidText(), merchantId: merchantId, purpose: "onboarding", fix: onboardingFix,
            actor: salesPhone.actor(userId: salesUser, app: "onboarding")))
        var current = site
        for time in times(counts.merchantFixes, after: onboarded) {
            let purpose = random.weighted([("relocation", 0.4), ("edit", 0.25), ("shop", 0.35)])
            if purpose == "relocation", random.chance(0.05) { current = current.moved(metres: random.logUniform(1000...10_000), random: &random) }
            let truth = current.position.moved(north: random.gaussian() * 15, east: random.gaussian() * 15)
            let shop = purpose == "shop"
            let phone = shop ? merchantPhone : salesPhone
            add(time, SubmissionText.merchantAddressFixed(
                random.uuidText(), merchantId: merchantId, purpose: purpose,
                fix: FixMaker.fix(of: truth, site: current, device: .phone, iOS: phone.iOS, milliseconds: time, random: &random),
                actor: shop ? phone.actor(userId: "owner-\(merchantId)", app: "merchant") : phone.actor(userId: salesUser, app: "onboarding")))
        }

        for offset in 0..<terminals.count {
            addTerminal(offset, counts: counts, site: site, onboarded: onboarded, salesUser: salesUser, salesPhone: salesPhone)
        }

        for (number, time) in times(counts.visits, after: onboarded).enumerated() {
            let truth = site.position.moved(north: random.gaussian() * 40, east: random.gaussian() * 40)
            let visitor = random.chance(0.7) ? salesUser : "sales-\(1 + random.below(800))"
            add(time, SubmissionText.visitRecorded(
                random.uuidText(), visitId: "V\(pad(index + 1, 7))-\(number + 1)", merchantId: merchantId, visitorId: visitor,
                fix: FixMaker.fix(of: truth, site: site, device: .phone, iOS: salesPhone.iOS, milliseconds: time, random: &random),
                note: random.chance(0.6) ? Places.visitNotes[random.below(Places.visitNotes.count)] : nil,
                actor: salesPhone.actor(userId: visitor, app: "onboarding")))
        }

        if hasEnterprise, counts.enterpriseFixes > 0 {
            let office = site.moved(metres: random.logUniform(500...5000), random: &random)
            let first = (TimeRange.start + Int64(random.unit() * Double(span) * 0.5)) * 1000
            for time in [first] + times(counts.enterpriseFixes - 1, after: first) {
                let truth = office.position.moved(north: random.gaussian() * 20, east: random.gaussian() * 20)
                add(time, SubmissionText.enterpriseAddressFixed(
                    random.uuidText(), enterpriseId: "E\(pad(index + 1, 7))",
                    fix: FixMaker.fix(of: truth, site: office, device: .phone, iOS: salesPhone.iOS, milliseconds: time, random: &random),
                    actor: salesPhone.actor(userId: salesUser, app: "onboarding")))
            }
        }

        for time in times(counts.failures, after: onboarded) {
            addFailure(time, merchantId: merchantId, hasEnterprise: hasEnterprise, salesUser: salesUser, salesPhone: salesPhone)
        }

        events.sort { ($0.milliseconds, $0.sequence) < ($1.milliseconds, $1.sequence) }
        return withInvalidLines(events.map(\.line), site: site)
    }

    private mutating func addTerminal(_ offset: Int, counts: Counts, site: Site, onboarded: Int64, salesUser: String, salesPhone: Phone) {
        let terminal = terminals.lowerBound + offset
        let terminalId = Self.terminalId(terminal)
        let agent = ActorText(userId: nil, app: "terminal-agent", appVersion: random.chance(0.7) ? "3.8.2" : "3.7.0",
                              deviceId: "POS-\(terminalId)", os: "Android \(random.chance(0.6) ? 10 : 7).0")
        // The device reports and the re-bindings, in a random order; a retirement, if any, comes last.
        var steps = [Bool](repeating: false, count: counts.located[offset]) + [Bool](repeating: true, count: counts.rebindings[offset])
        for i in steps.indices.reversed() where i > 0 { steps.swapAt(i, random.below(i + 1)) }
        let eventCount = 1 + steps.count + counts.rebindings[offset] + (counts.retired[offset] ? 1 : 0)
        let bound = min(onboarded + Int64(random.logUniform(60...30 * 86_400) * 1000), TimeRange.end * 1000 - 1)
        var clock = [bound] + times(eventCount - 1, after: bound)
        clock.reverse()

        var merchant = index
        var merchantSite = site
        add(clock.removeLast(), SubmissionText.terminalBound(
            random.uuidText(), terminalId: terminalId, merchantId: Self.merchantId(merchant),
            fix: FixMaker.fix(of: site.position.moved(north: random.gaussian() * 10, east: random.gaussian() * 10), site: site,
                              device: .phone, iOS: salesPhone.iOS, milliseconds: bound, random: &random),
            actor: salesPhone.actor(userId: salesUser, app: "onboarding")), orderedTerminal: terminal)
        for rebinding in steps {
            if rebinding {
                let time = clock.removeLast()
                add(time, SubmissionText.terminalUnbound(
                    random.uuidText(), terminalId: terminalId, merchantId: Self.merchantId(merchant),
                    reason: Places.unbindReasons[random.below(Places.unbindReasons.count)],
                    actor: salesPhone.actor(userId: salesUser, app: "onboarding")), orderedTerminal: terminal)
                if merchantCount > 1 {
                    merchant = (merchant + 1 + random.below(merchantCount - 1)) % merchantCount
                    merchantSite = Site.merchant(merchant, seed: spec.seed)
                }
                let boundAgain = clock.removeLast()
                add(boundAgain, SubmissionText.terminalBound(
                    random.uuidText(), terminalId: terminalId, merchantId: Self.merchantId(merchant),
                    fix: FixMaker.fix(of: merchantSite.position.moved(north: random.gaussian() * 10, east: random.gaussian() * 10),
                                      site: merchantSite, device: .phone, iOS: salesPhone.iOS, milliseconds: boundAgain, random: &random),
                    actor: salesPhone.actor(userId: "sales-\(1 + random.below(800))", app: "onboarding")), orderedTerminal: terminal)
            } else {
                let time = clock.removeLast()
                // Mostly at the counter; some devices taken elsewhere, which is the drift the reports look for.
                let distance = random.weighted([(0, 0.96), (1, 0.035), (2, 0.005)])
                let truth = distance == 0
                    ? merchantSite.position.moved(north: random.gaussian() * 150, east: random.gaussian() * 150)
                    : distance == 1
                        ? merchantSite.move(by: random.logUniform(2000...60_000), random: &random)
                        : Site.merchant(random.below(max(1, merchantCount)), seed: spec.seed ^ 0x5EED).position
                add(time, SubmissionText.terminalLocated(
                    random.uuidText(), terminalId: terminalId,
                    fix: FixMaker.fix(of: truth, site: merchantSite, device: .terminal, iOS: false, milliseconds: time, random: &random),
                    actor: agent))
            }
        }
        if counts.retired[offset] {
            add(clock.removeLast(), SubmissionText.terminalUnbound(
                random.uuidText(), terminalId: terminalId, merchantId: Self.merchantId(merchant),
                reason: Places.unbindReasons[random.below(Places.unbindReasons.count)],
                actor: salesPhone.actor(userId: salesUser, app: "onboarding")), orderedTerminal: terminal)
        }
    }

    /// A failed attempt with a real SDK error code, on the merchant, one of its terminals, a visit or its enterprise.
    private mutating func addFailure(_ time: Int64, merchantId: String, hasEnterprise: Bool, salesUser: String, salesPhone: Phone) {
        let (field, id, purpose): (String, String, String) = {
            switch random.weighted([(0, 0.5), (1, terminals.isEmpty ? 0 : 0.3), (2, 0.15), (3, hasEnterprise ? 0.05 : 0)]) {
            case 1: return ("terminalId", Self.terminalId(terminals.lowerBound + random.below(terminals.count)),
                            random.chance(0.5) ? "terminal_binding" : "device_report")
            case 2: return ("visitId", "V\(pad(index + 1, 7))-f\(time % 100_000)", "visit")
            case 3: return ("enterpriseId", "E\(pad(index + 1, 7))", "enterprise_address")
            default: return ("merchantId", merchantId, random.weighted([("onboarding", 0.5), ("relocation", 0.3), ("edit", 0.1), ("shop", 0.1)]))
            }
        }()
        let provider = salesPhone.iOS ? random.weighted([("apple", 0.4), ("amap", 0.35), ("tencent", 0.25)])
                                       : random.weighted([("amap", 0.55), ("tencent", 0.45)])
        let code: Int
        switch provider {
        case "tencent": code = random.weighted([(0, 0.2), (1, 0.35), (2, 0.3), (3, 0.05), (4, 0.1)])
        case "amap":
            code = random.weighted([(1, 0.08), (2, 0.15), (3, 0.1), (4, 0.2), (5, 0.05), (6, 0.05), (7, 0.01),
                                    (8, 0.12), (9, 0.05), (10, 0.01), (11, 0.06), (12, 0.12)])
        default: code = random.weighted([(0, 0.4), (1, 0.45), (2, 0.15)])
        }
        let message = ProviderErrors.message(provider: provider, code: code)
        add(time, SubmissionText.locationFailed(
            random.uuidText(), entityField: field, entityId: id, purpose: purpose, provider: provider, errorCode: code,
            errorMessage: message, capturedAt: CaptureTime.text(milliseconds: time, fraction: provider == "apple"),
            actor: field == "terminalId"
                ? ActorText(userId: nil, app: "terminal-agent", appVersion: "3.8.2", deviceId: "POS-\(id)", os: "Android 10.0")
                : salesPhone.actor(userId: salesUser, app: "onboarding")))
    }

    private mutating func add(_ milliseconds: Int64, _ text: String, orderedTerminal: Int? = nil) {
        events.append((milliseconds, events.count, WorkloadLine(text: text, kind: .valid, orderedTerminal: orderedTerminal)))
    }

    /// `count` sorted times after `start` and before the end of the span.
    private mutating func times(_ count: Int, after start: Int64) -> [Int64] {
        let end = TimeRange.end * 1000 - 1
        guard count > 0, start < end else { return [Int64](repeating: min(start, end), count: max(0, count)) }
        return (0..<count).map { _ in start + 1 + Int64(random.unit() * Double(end - start - 1)) }.sorted()
    }

    private func withInvalidLines(_ lines: [WorkloadLine], site: Site) -> [WorkloadLine] {
        guard spec.invalidRate > 0 else { return lines }
        var random = SplitMix64(seed: spec.seed, 3, UInt64(index))
        var result: [WorkloadLine] = []
        result.reserveCapacity(lines.count + 2)
        for line in lines {
            result.append(line)
            if random.chance(spec.invalidRate) {
                result.append(WorkloadLine(text: InvalidLines.make(site: site, merchantId: Self.merchantId(index), random: &random),
                                           kind: .invalid, orderedTerminal: nil))
            }
        }
        return result
    }

    private enum Kind { case terminalLocated, merchantAddress, visit, enterpriseAddress, locationFailed, rebinding, retirement }

    private struct Counts {
        var located: [Int]
        var rebindings: [Int]
        var retired: [Bool]
        var merchantFixes = 0
        var visits = 0
        var enterpriseFixes = 0
        var failures = 0

        init(terminals: Int) {
            located = [Int](repeating: 0, count: terminals)
            rebindings = located
            retired = [Bool](repeating: false, count: terminals)
        }
    }
}

/// A sales person's or merchant's phone.
struct Phone {
    let iOS: Bool
    let deviceId: String
    let os: String
    let appVersion: String

    init(random: inout SplitMix64) {
        iOS = random.chance(0.45)
        deviceId = String(random.next() >> 16, radix: 16, uppercase: true)
        os = iOS ? random.weighted([("iOS 17.5", 0.4), ("iOS 18.1", 0.45), ("iOS 16.7", 0.15)])
                 : random.weighted([("Android 14", 0.5), ("Android 13", 0.3), ("Android 12", 0.2)])
        appVersion = random.weighted([("5.2.0", 0.6), ("5.1.3", 0.3), ("4.9.8", 0.1)])
    }

    func actor(userId: String, app: String) -> ActorText {
        ActorText(userId: userId, app: app, appVersion: appVersion, deviceId: deviceId, os: os)
    }
}

extension Site {
    /// A point `metres` away in a random direction.
    func move(by metres: Double, random: inout SplitMix64) -> Coordinate {
        let bearing = random.unit() * 2 * .pi
        return position.moved(north: metres * cos(bearing), east: metres * sin(bearing))
    }
}
