import Foundation
import Geo
import JSON
import LocationEvents
import Testing
import Workload

@Suite struct WorkloadTests {
    static let spec = WorkloadSpec(
        merchants: 150, terminals: 300, events: 6000, seed: 42, shuffleWindow: 500, duplicateRate: 0.02, invalidRate: 0.01)
    /// After every capturedAt the generator writes.
    let now = WorkloadSpec.latestCapture.addingTimeInterval(86_400)

    private func parse(_ line: String) throws -> JSONValue {
        try JSONValue(parsing: Data(line.utf8))
    }

    @Test func sameSeedGivesTheSameBytes() throws {
        let first = Array(Self.spec.lines())
        let second = Array(Self.spec.lines())
        #expect(first == second)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("workload-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.spec.write(to: path)
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written == Data(first.map { $0 + "\n" }.joined().utf8))
    }

    @Test func anotherSeedGivesOtherLines() {
        var other = Self.spec
        other.seed = 43
        let first = Set(Self.spec.lines())
        let second = Set(other.lines())
        #expect(first.isDisjoint(with: second))
    }

    @Test func validLinesPassTheValidatorAndInvalidOnesDoNot() throws {
        let validator = SubmissionValidator()
        var valid = 0
        var invalid = 0
        var seen = Set<String>()
        for item in Self.spec.items() {
            let outcome = validator.validate(Data(item.text.utf8), now: now)
            switch item.kind {
            case .valid:
                if case .failure(let failure) = outcome {
                    Issue.record("rejected: \(failure.errors) in \(item.text)")
                }
                #expect(seen.insert(item.text).inserted)
                valid += 1
            case .duplicate:
                #expect(seen.contains(item.text), "a duplicate comes after its original")
            case .invalid:
                if case .success = outcome { Issue.record("accepted an invalid line: \(item.text)") }
                invalid += 1
            }
        }
        #expect(valid == Self.spec.events)
        #expect(invalid > 0)
    }

    @Test func eventIdsAreUnique() throws {
        var ids = Set<String>()
        for item in Self.spec.items() where item.kind == .valid {
            let id = try #require(try parse(item.text)["eventId"]?.stringValue)
            #expect(ids.insert(id).inserted)
        }
    }

    /// The bind/unbind lines of each terminal, in arrival order, first sending only.
    private func bindings(_ spec: WorkloadSpec) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for item in spec.items() where item.kind == .valid {
            let value = try parse(item.text)
            guard let type = value["type"]?.stringValue, type == "TerminalBound" || type == "TerminalUnbound",
                  let terminal = value["terminalId"]?.stringValue, let id = value["eventId"]?.stringValue else { continue }
            result[terminal, default: []].append(id)
        }
        return result
    }

    @Test func shuffleKeepsEachTerminalsBindingOrder() throws {
        var ordered = Self.spec
        ordered.shuffle = false
        let shuffled = Self.spec
        #expect(Array(ordered.lines()) != Array(shuffled.lines()))
        let expected = try bindings(ordered)
        #expect(try bindings(shuffled) == expected)
        #expect(expected.values.contains { $0.count >= 3 }, "some terminals are unbound and bound again")
    }

    @Test func captureTimesIncreasePerStreamInTrueOrder() throws {
        var ordered = Self.spec
        ordered.shuffle = false
        ordered.duplicateRate = 0
        let validator = SubmissionValidator()
        var last: [String: Date] = [:]
        for item in ordered.items() where item.kind == .valid {
            let submission = try validator.validate(Data(item.text.utf8), now: now).get()
            let captured: Date
            switch submission.body {
            case .locationFailed(let failure): captured = failure.capturedAt.date
            case .terminalUnbound: continue
            default: captured = try #require(submission.body.fix).capturedAt.date
            }
            #expect(captured >= Date(timeIntervalSince1970: 1_735_660_800))
            #expect(captured < WorkloadSpec.latestCapture)
            #expect(captured >= last[submission.streamName] ?? .distantPast, "\(submission.streamName)")
            last[submission.streamName] = captured
        }
    }

    @Test func theMixLooksLikeProduction() throws {
        let validator = SubmissionValidator()
        var types: [String: Int] = [:]
        var purposes = Set<String>()
        var datums: [String: Int] = [:]
        var provinces = Set<String>()
        var authorizations = Set<String>()
        for item in Self.spec.items() where item.kind == .valid {
            let submission = try validator.validate(Data(item.text.utf8), now: now).get()
            types[submission.typeName, default: 0] += 1
            switch submission.body {
            case .merchantAddressFixed(_, let purpose, _): purposes.insert(purpose.rawValue)
            case .locationFailed(let failure):
                let allowed: [Provider: ClosedRange<Int>] = [.tencent: 0...4, .amap: 1...12, .apple: 0...2]
                #expect(allowed[failure.provider]?.contains(failure.errorCode) == true, "\(failure.provider) \(failure.errorCode)")
                #expect(ProviderErrorCatalogue.entry(provider: failure.provider, platform: .ios, code: failure.errorCode) != nil)
            default: break
            }
            if let fix = submission.body.fix {
                datums[fix.datum?.rawValue ?? "omitted", default: 0] += 1
                if let province = fix.address?.province { provinces.insert(province) }
                authorizations.insert(fix.accuracyAuthorization?.rawValue ?? "omitted")
                if fix.provider == .apple { #expect(fix.datum != .gcj02) }
            }
        }
        #expect(Set(types.keys) == Set(EventType.allCases.map(\.rawValue)))
        #expect(purposes == Set(MerchantAddressPurpose.allCases.map(\.rawValue)))
        #expect(types["MerchantAddressFixed"]! >= Self.spec.merchants)
        #expect(types["TerminalBound"]! >= Self.spec.terminals)
        #expect(types["TerminalLocated"]! > types["VisitRecorded"]!)
        #expect(types["LocationFailed"]! < Self.spec.events / 10)
        #expect(datums["gcj02"]! > datums["wgs84"]!)
        #expect(datums["omitted"]! > 0)
        #expect(provinces.contains("上海市"))
        #expect(!provinces.isDisjoint(with: ["香港特别行政区", "澳门特别行政区", "台湾省"]))
        #expect(authorizations.isSuperset(of: ["full", "reduced", "unknown", "omitted"]))
    }

    @Test func mainlandFixesAreShiftedToGCJ02() throws {
        let classifier = try BoundaryClassifier.bundled()
        let validator = SubmissionValidator()
        var mainland = 0
        var total = 0
        for item in Self.spec.items() where item.kind == .valid {
            let submission = try validator.validate(Data(item.text.utf8), now: now).get()
            guard case .merchantAddressFixed(_, .onboarding, let fix) = submission.body, fix.datum == .gcj02 else { continue }
            total += 1
            let wgs84 = GCJ02.toWGS84(Coordinate(latitude: fix.lat, longitude: fix.lon))
            if classifier.classify(wgs84).region == .mainland { mainland += 1 }
        }
        #expect(total > 50)
        #expect(Double(mainland) / Double(total) > 0.9)
    }

    @Test func smallSpecsScaleTheEntitiesDown() {
        let spec = WorkloadSpec(events: 1000, seed: 7)
        let items = Array(spec.items())
        #expect(items.filter { $0.kind == .valid }.count == 1000)
    }
}
