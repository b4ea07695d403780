import CivilCalendar
import Foundation
import Geo
import JSON
import Testing
@testable import LocationEvents

@Suite struct SubmissionValidatorTests {
    let validator = SubmissionValidator()
    let now = SubmissionFixtures.now

    private func errors(_ value: JSONValue) -> [FieldError] {
        switch validator.validate(value, now: now) {
        case .success: return []
        case .failure(let failure): return failure.errors
        }
    }

    private func pairs(_ value: JSONValue) -> [String] {
        errors(value).map { "\($0.field) \($0.code)" }
    }

    private func merchant(_ path: String, _ value: JSONValue?) -> JSONValue {
        SubmissionFixtures.submission(.merchantAddressFixed).setting(path, value)
    }

    @Test(arguments: EventType.allCases)
    func everyExampleTypeIsValid(type: EventType) throws {
        let submission = try validator.validate(SubmissionFixtures.submission(type), now: now).get()
        #expect(submission.typeName == type.rawValue)
        #expect(submission.eventId == UUID(uuidString: SubmissionFixtures.eventId))
        #expect(submission.actor == Actor(app: "onboarding", os: "iOS 17.2"))
    }

    @Test func theDesignExampleBecomesThisSubmission() throws {
        let submission = try validator.validate(SubmissionFixtures.submission(.merchantAddressFixed), now: now).get()
        let capturedAt = try #require(Timestamp(rfc3339: "2026-11-29T10:00:00+08:00"))
        let fix = Fix(
            lat: 31.2304, lon: 121.4737, datum: .gcj02, horizontalAccuracy: 35, accuracyAuthorization: .full,
            provider: .amap, capturedAt: capturedAt,
            address: Address(province: "上海市", adcode: "310101"),
            claimedInRegion: true)
        #expect(submission.body == .merchantAddressFixed(merchantId: "M0001", purpose: .onboarding, fix: fix))
        #expect(submission.streamName == "merchant-M0001")
        #expect(submission.expectedVersion == nil)
    }

    @Test(arguments: [
        (EventType.merchantAddressFixed, "merchant-M0001"), (.enterpriseAddressFixed, "enterprise-E01"),
        (.terminalBound, "terminal-T01"), (.terminalUnbound, "terminal-T01"), (.terminalLocated, "terminal-T01"),
        (.visitRecorded, "visit-V01"), (.locationFailed, "terminal-T01"),
    ])
    func streamNames(type: EventType, stream: String) throws {
        #expect(try validator.validate(SubmissionFixtures.submission(type), now: now).get().streamName == stream)
    }

    @Test("a stream's name is its entity's kind and id joined by a dash, whatever the id's length",
          arguments: ["M0001", "", "M0001-x", String(repeating: "m", count: 64), "上海"])
    func streamNameOfAnId(id: String) {
        for kind in EntityKind.allCases {
            #expect(EntityRef(kind: kind, id: id).streamName == kind.rawValue + "-" + id)
        }
    }

    // MARK: the envelope

    @Test(arguments: [JSONValue.array([]), .string("x"), .number(1), .null, .bool(true)])
    func notAnObject(value: JSONValue) {
        #expect(pairs(value) == [" not_an_object"])
    }

    @Test func notJSONBytesAreInvalidJSON() {
        guard case .failure(let failure) = validator.validate(Data("{oops".utf8), now: now) else {
            Issue.record("accepted bytes that are not JSON")
            return
        }
        #expect(failure.errors.map(\.code) == ["invalid_json"])
        #expect(failure.errors.map(\.field) == [""])
    }

    @Test func aMemberNamedTwiceIsADuplicateKeyNeverAValue() {
        let text = #"{"eventId": "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "type": "TerminalLocated", "terminalId": "T1", "# +
            #""fix": {"lat": 91, "lon": 121.4, "horizontalAccuracy": 35, "provider": "amap", "# +
            #""capturedAt": "2026-11-29T10:00:00+08:00", "lat": 31.2}}"#
        guard case .failure(let failure) = validator.validate(Data(text.utf8), now: now) else {
            Issue.record("accepted a member named twice")
            return
        }
        #expect(failure.errors.map { "\($0.field) \($0.code)" } == ["fix.lat duplicate_key"])
    }

    @Test("a member the format does not have is refused at every level, each one named by its path", arguments: [
        ("foo", "foo"), ("fix.foo", "fix.foo"), ("fix.address.floor", "fix.address.floor"), ("actor.token", "actor.token"),
        ("terminalId", "terminalId"), ("fix.Lat", "fix.Lat"), ("fix.address.adcode2", "fix.address.adcode2"),
    ])
    func unknownMembersAreRefused(path: String, field: String) {
        #expect(pairs(merchant(path, .string("x"))) == ["\(field) unknown_field"])
        // Even null: what is stored must be what the format defines.
        #expect(pairs(merchant(path, .null)) == ["\(field) unknown_field"])
    }

    @Test func everyUnknownMemberIsNamed() {
        let value = merchant("x1", .number(1)).setting("x2", .number(2)).setting("fix.y", .bool(true)).setting("actor.z", .null)
        #expect(Set(pairs(value)) == ["x1 unknown_field", "x2 unknown_field", "fix.y unknown_field", "actor.z unknown_field"])
        #expect(errors(merchant("fix.y", .number(1))).first?.message == "a fix has no member y")
    }

    @Test("each type knows its own members: another type's id is unknown", arguments: EventType.allCases)
    func anotherTypesMembersAreUnknown(type: EventType) {
        let foreign = type == .visitRecorded ? "reason" : "visitorId"
        let value = SubmissionFixtures.submission(type).setting(foreign, .string("S1"))
        #expect(pairs(value) == ["\(foreign) unknown_field"])
    }

    @Test func thousandsOfUnknownMembersGiveAShortAnswer() {
        var value = merchant("fix.address", .object([:]))
        for n in 0..<5000 { value = value.setting("fix.address.m\(n)", .number(1)) }
        let found = errors(value)
        #expect(found.count == 21)
        #expect(found.prefix(20).allSatisfy { $0.code == "unknown_field" && $0.field.hasPrefix("fix.address.m") })
        #expect(found.last?.field == "fix.address" && found.last?.message == "an address has 4980 more unknown members")
    }

    @Test func missingType() {
        #expect(pairs(merchant("type", nil)) == ["type required"])
    }

    @Test func unknownType() {
        #expect(pairs(merchant("type", .string("MerchantMoved"))) == ["type unknown_type"])
    }

    @Test func typeOfWrongJSONType() {
        #expect(pairs(merchant("type", .number(3))) == ["type wrong_type"])
    }

    @Test func missingEventId() {
        #expect(pairs(merchant("eventId", nil)) == ["eventId required"])
    }

    @Test(arguments: ["not-a-uuid", "", "0b9c2a4e3f1d4a519a8e5f7c1d2e3a40"])
    func invalidEventId(text: String) {
        #expect(pairs(merchant("eventId", .string(text))) == ["eventId invalid_uuid"])
    }

    @Test(arguments: [
        (JSONValue.number(3), ExpectedVersion.exact(3)), (.number(0), .exact(0)),
        (.string("any"), .any), (.string("no_stream"), .noStream),
    ])
    func expectedVersions(value: JSONValue, expected: ExpectedVersion) throws {
        #expect(try validator.validate(merchant("expectedVersion", value), now: now).get().expectedVersion == expected)
    }

    @Test(arguments: [
        (JSONValue.number(-1), "out_of_range"), (.number(1e19), "out_of_range"), (.number(1.5), "wrong_type"),
        (.bool(true), "wrong_type"), (.string("latest"), "unknown_value"), (.string("3"), "unknown_value"),
    ])
    func badExpectedVersion(value: JSONValue, code: String) {
        #expect(pairs(merchant("expectedVersion", value)) == ["expectedVersion \(code)"])
    }

    @Test func actorMayBeAbsent() throws {
        #expect(try validator.validate(merchant("actor", nil), now: now).get().actor == Actor())
    }

    @Test("actor.platform is a member of the format: ios or android, which goes before actor.os")
    func actorPlatform() throws {
        let android = try validator.validate(merchant("actor.platform", .string("android")), now: now).get()
        #expect(android.actor.platform == .android)
        #expect(android.actor.os == "iOS 17.2")
        #expect(android.actor.resolvedPlatform == .android)
        #expect(pairs(merchant("actor.platform", .string("windows"))) == ["actor.platform unknown_value"])
        #expect(pairs(merchant("actor.platform", .number(1))) == ["actor.platform wrong_type"])
        #expect(try validator.validate(merchant("actor.platform", .null), now: now).get().actor.resolvedPlatform == .ios)
    }

    @Test func actorFields() {
        #expect(pairs(merchant("actor", .string("sales-17"))) == ["actor wrong_type"])
        #expect(pairs(merchant("actor.userId", .number(17))) == ["actor.userId wrong_type"])
        #expect(pairs(merchant("actor.os", .string(String(repeating: "x", count: 129)))) == ["actor.os too_long"])
    }

    // MARK: ids

    @Test(arguments: ["merchantId"])
    func merchantIdRequired(field: String) {
        #expect(pairs(merchant(field, nil)) == ["merchantId required"])
    }

    @Test(arguments: [
        (EventType.enterpriseAddressFixed, "enterpriseId"), (.terminalBound, "terminalId"), (.terminalBound, "merchantId"),
        (.terminalUnbound, "terminalId"), (.terminalUnbound, "merchantId"), (.terminalLocated, "terminalId"),
        (.visitRecorded, "visitId"), (.visitRecorded, "merchantId"), (.visitRecorded, "visitorId"),
    ])
    func idsRequired(type: EventType, field: String) {
        #expect(pairs(SubmissionFixtures.submission(type).setting(field, nil)) == ["\(field) required"])
    }

    @Test(arguments: ["", "has space", "M/1", "商户1", String(repeating: "a", count: 65), "M\n1", ".", ".."])
    func invalidIds(id: String) {
        #expect(pairs(merchant("merchantId", .string(id))) == ["merchantId invalid_id"])
        #expect(pairs(SubmissionFixtures.submission(.visitRecorded).setting("visitorId", .string(id))) == ["visitorId invalid_id"])
    }

    @Test(arguments: ["a", "M0001", "store_1.b:c-d", String(repeating: "Z", count: 64), "...", ".a", "a.", "-"])
    func validIds(id: String) throws {
        #expect(try validator.validate(merchant("merchantId", .string(id)), now: now).get().streamName == "merchant-\(id)")
    }

    @Test func idOfWrongJSONType() {
        #expect(pairs(merchant("merchantId", .number(1))) == ["merchantId wrong_type"])
    }

    @Test func purpose() {
        #expect(pairs(merchant("purpose", nil)) == ["purpose required"])
        #expect(pairs(merchant("purpose", .string("visit"))) == ["purpose unknown_value"])
    }

    // MARK: the fix

    @Test func fixRequired() {
        #expect(pairs(merchant("fix", nil)) == ["fix required"])
        #expect(pairs(merchant("fix", .array([]))) == ["fix wrong_type"])
    }

    @Test(arguments: ["lat", "lon"])
    func coordinateRequired(key: String) {
        #expect(pairs(merchant("fix.\(key)", nil)) == ["fix.\(key) required"])
    }

    @Test(arguments: [JSONValue.string("31.2"), .bool(true), .array([]), .object([:]), .string("north")])
    func coordinateNotANumber(value: JSONValue) {
        #expect(pairs(merchant("fix.lat", value)) == ["fix.lat not_a_number"])
        #expect(pairs(merchant("fix.lon", value)) == ["fix.lon not_a_number"])
    }

    // A number no Double holds (1e999) is not JSON to the parser; so a non-finite number arrives only as a string.
    @Test(arguments: [JSONValue.string("NaN"), .string("Infinity"), .string("-Infinity"), .string("1e999")])
    func coordinateNotFinite(value: JSONValue) {
        #expect(pairs(merchant("fix.lat", value)) == ["fix.lat not_finite"])
        #expect(pairs(merchant("fix.lon", value)) == ["fix.lon not_finite"])
    }

    @Test(arguments: [(90.0001, 0.0), (-90.5, 0.0), (0.0, 180.0001), (0.0, -181.0)])
    func coordinateOutOfRange(lat: Double, lon: Double) {
        let value = merchant("fix.lat", .number(lat == 0 ? 10 : lat)).setting("fix.lon", .number(lon == 0 ? 10 : lon))
        #expect(pairs(value) == [lat == 0 ? "fix.lon out_of_range" : "fix.lat out_of_range"])
    }

    @Test func rangeBoundsAreIncluded() throws {
        _ = try validator.validate(merchant("fix.lat", .number(-90)).setting("fix.lon", .number(180)), now: now).get()
    }

    @Test func nullIsland() {
        #expect(pairs(merchant("fix.lat", .number(0)).setting("fix.lon", .number(0))) == ["fix null_island"])
    }

    @Test func horizontalAccuracy() {
        #expect(pairs(merchant("fix.horizontalAccuracy", nil)) == ["fix.horizontalAccuracy required"])
        #expect(pairs(merchant("fix.horizontalAccuracy", .number(-1))) == ["fix.horizontalAccuracy negative_accuracy"])
        #expect(pairs(merchant("fix.horizontalAccuracy", .number(0))) == ["fix.horizontalAccuracy zero_accuracy"])
        #expect(pairs(merchant("fix.horizontalAccuracy", .number(100_001))) == ["fix.horizontalAccuracy out_of_range"])
        #expect(pairs(merchant("fix.horizontalAccuracy", .string("35"))) == ["fix.horizontalAccuracy not_a_number"])
        #expect(pairs(merchant("fix.horizontalAccuracy", .string("Infinity"))) == ["fix.horizontalAccuracy not_finite"])
    }

    @Test func accuracyLimitIsConfigurable() {
        let strict = SubmissionValidator(limits: ValidationLimits(maximumAccuracyMetres: 5000))
        guard case .failure(let failure) = strict.validate(merchant("fix.horizontalAccuracy", .number(5001)), now: now) else {
            Issue.record("accepted 5001 m")
            return
        }
        #expect(failure.errors.map(\.code) == ["out_of_range"])
    }

    @Test(arguments: [
        ("datum", "WGS84"), ("datum", "baidu"), ("provider", "google"), ("provider", "AMap"),
        ("accuracyAuthorization", "precise"), ("accuracyAuthorization", "temporary"),
    ])
    func unknownValues(key: String, value: String) {
        #expect(pairs(merchant("fix.\(key)", .string(value))) == ["fix.\(key) unknown_value"])
    }

    /// A value an enumeration names is matched from its bytes in place when it holds no escape, and read as a string
    /// when it does: the same case either way; a value one byte short or long, in other case or in other code points
    /// that look alike names none.
    @Test(arguments: [
        (#""datum":"gcj02""#, Datum.gcj02), (#""datum":"bd09""#, .bd09), (#""datum":"wgs84""#, .wgs84),
        (#""datum":"gcj\u0030\u0032""#, .gcj02), (#""datum":"gcj\u00302""#, .gcj02), (#""datum":"\u0062d09""#, .bd09),
        (#""datum":"gcj0""#, nil), (#""datum":"gcj022""#, nil), (#""datum":"GCJ02""#, nil), (#""datum":"gcj０２""#, nil),
        (#""datum":"""#, nil),
    ])
    func enumerationsMatchedInPlaceOrAsText(member: String, datum: Datum?) throws {
        let sent = String(decoding: SubmissionFixtures.submission(.merchantAddressFixed).canonicalData(), as: UTF8.self)
        #expect(sent.contains(#""datum":"gcj02""#))
        let changed = Data(sent.replacingOccurrences(of: #""datum":"gcj02""#, with: member).utf8)
        switch validator.validate(changed, now: now) {
        case .success(let submission):
            guard case .merchantAddressFixed(_, _, let fix) = submission.body else { Issue.record("not a merchant fix"); return }
            #expect(datum != nil && fix.datum == datum)
        case .failure(let failure):
            #expect(datum == nil && failure.errors.map { "\($0.field) \($0.code)" } == ["fix.datum unknown_value"])
        }
    }

    /// The type and a time are read in place when they hold no escape, and as strings when they do: the same
    /// submission either way.
    @Test func escapedTypeAndTimeReadAsTheirText() throws {
        let sent = String(decoding: SubmissionFixtures.submission(.merchantAddressFixed).canonicalData(), as: UTF8.self)
        let plain = try validator.validate(Data(sent.utf8), now: now).get()
        let escaped = sent.replacingOccurrences(of: #""type":"MerchantAddressFixed""#, with: #""type":"Merchant\u0041ddressFixed""#)
            .replacingOccurrences(of: #""capturedAt":"2026-11-29T10:00:00+08:00""#, with: #""capturedAt":"2026-11-29\u005410:00:00+08:00""#)
        #expect(escaped.count == sent.count + 10)
        #expect(try validator.validate(Data(escaped.utf8), now: now).get() == plain)
    }

    /// The actor's, the fix's and the address's members are read by their place in one walk over each object's
    /// names: every member of each, all wrong at once, is still reported in the order the format lists them, after
    /// the object's unknown members, with its path.
    @Test func everyWrongMemberOfAnObjectIsReportedInTheFormatsOrder() {
        var value = merchant("actor.zz", .number(1)).setting("fix.aa", .number(1)).setting("fix.address", .object([
            "zz": .number(1), "adcode": .number(1), "country": .bool(true), "formatted": .array([]), "poiName": .number(2),
        ]))
        for key in Actor.fieldNames { value = value.setting("actor.\(key)", .number(1)) }
        for key in Fix.fieldNames where key != "address" { value = value.setting("fix.\(key)", .object([:])) }
        #expect(pairs(value) == [
            "actor.zz unknown_field", "actor.platform wrong_type", "actor.userId wrong_type", "actor.app wrong_type",
            "actor.appVersion wrong_type", "actor.deviceId wrong_type", "actor.os wrong_type",
            "fix.aa unknown_field", "fix.lat not_a_number", "fix.lon not_a_number", "fix.datum wrong_type",
            "fix.horizontalAccuracy not_a_number", "fix.accuracyAuthorization wrong_type", "fix.provider wrong_type",
            "fix.capturedAt wrong_type", "fix.address.zz unknown_field", "fix.address.country wrong_type",
            "fix.address.poiName wrong_type", "fix.address.formatted wrong_type", "fix.address.adcode wrong_type",
            "fix.claimedInRegion wrong_type",
        ])
        #expect(Actor.fieldNames == ["userId", "app", "appVersion", "deviceId", "os", "platform"])
        #expect(Fix.fieldNames == [
            "lat", "lon", "datum", "horizontalAccuracy", "accuracyAuthorization", "provider", "capturedAt", "address", "claimedInRegion",
        ])
        #expect(Address.fieldNames == ["country", "province", "city", "district", "street", "streetNumber", "poiName", "formatted", "adcode"])
    }

    @Test func optionalFixMembersMayBeAbsent() throws {
        let value = merchant("fix.datum", nil).setting("fix.accuracyAuthorization", nil)
            .setting("fix.address", nil).setting("fix.claimedInRegion", .null)
        let fix = try #require(try validator.validate(value, now: now).get().body.fix)
        #expect(fix.datum == nil)
        #expect(fix.accuracyAuthorization == nil)
        #expect(fix.address == nil)
        #expect(fix.claimedInRegion == nil)
    }

    @Test func providerRequired() {
        #expect(pairs(merchant("fix.provider", nil)) == ["fix.provider required"])
    }

    @Test func capturedAt() {
        #expect(pairs(merchant("fix.capturedAt", nil)) == ["fix.capturedAt required"])
        #expect(pairs(merchant("fix.capturedAt", .string("last tuesday"))) == ["fix.capturedAt invalid_timestamp"])
        #expect(pairs(merchant("fix.capturedAt", .number(1_764_381_600))) == ["fix.capturedAt wrong_type"])
        #expect(pairs(merchant("fix.capturedAt", .string("2026-11-29T10:00:00"))) == ["fix.capturedAt missing_offset"])
        #expect(pairs(merchant("fix.capturedAt", .string("2026-11-29T12:05:01+08:00"))) == ["fix.capturedAt in_future"])
        #expect(pairs(merchant("fix.capturedAt", .string("2007-12-31T23:59:59Z"))) == ["fix.capturedAt too_old"])
    }

    @Test func capturedAtWithinTheClockTolerance() throws {
        _ = try validator.validate(merchant("fix.capturedAt", .string("2026-11-29T12:05:00+08:00")), now: now).get()
        _ = try validator.validate(merchant("fix.capturedAt", .string("2008-01-01T00:00:00Z")), now: now).get()
    }

    @Test(arguments: Address.fieldNames.filter { $0 != "adcode" })
    func addressFieldsTooLong(key: String) throws {
        let long = String(repeating: "路", count: 257)
        #expect(pairs(merchant("fix.address.\(key)", .string(long))) == ["fix.address.\(key) too_long"])
        let limit = String(repeating: "路", count: 256)
        _ = try validator.validate(merchant("fix.address.\(key)", .string(limit)), now: now).get()
    }

    @Test func addressTypes() {
        #expect(pairs(merchant("fix.address", .string("上海"))) == ["fix.address wrong_type"])
        #expect(pairs(merchant("fix.address.province", .number(31))) == ["fix.address.province wrong_type"])
        #expect(pairs(merchant("fix.address.adcode", .string("31010"))) == ["fix.address.adcode invalid_adcode"])
    }

    @Test(arguments: [JSONValue.string("true"), .number(1), .array([])])
    func claimedInRegionMustBeBoolean(value: JSONValue) {
        #expect(pairs(merchant("fix.claimedInRegion", value)) == ["fix.claimedInRegion wrong_type"])
    }

    // MARK: free text

    @Test func freeTextLimits() {
        let visit = SubmissionFixtures.submission(.visitRecorded)
        #expect(pairs(visit.setting("note", .string(String(repeating: "x", count: 2001)))) == ["note too_long"])
        let unbound = SubmissionFixtures.submission(.terminalUnbound)
        #expect(pairs(unbound.setting("reason", .string(String(repeating: "x", count: 501)))) == ["reason too_long"])
        let failed = SubmissionFixtures.submission(.locationFailed)
        #expect(pairs(failed.setting("errorMessage", .string(String(repeating: "x", count: 1001)))) == ["errorMessage too_long"])
    }

    @Test func optionalFreeText() throws {
        let visit = try validator.validate(SubmissionFixtures.submission(.visitRecorded).setting("note", nil), now: now).get()
        guard case .visitRecorded(_, _, _, _, let note) = visit.body else { Issue.record("not a visit"); return }
        #expect(note == nil)
    }

    // MARK: LocationFailed

    @Test func locationFailure() throws {
        let submission = try validator.validate(SubmissionFixtures.submission(.locationFailed), now: now).get()
        guard case .locationFailed(let failure) = submission.body else { Issue.record("not a failure"); return }
        #expect(failure.entity == EntityRef(kind: .terminal, id: "T01"))
        #expect(failure.purpose == "terminal_binding")
        #expect(failure.provider == .amap)
        #expect(failure.errorCode == 4)
        #expect(submission.actor.resolvedPlatform == .ios)
        #expect(failure.category(on: submission.actor.resolvedPlatform) == .timeout)
        #expect(failure.capturedAt == Timestamp(rfc3339: "2026-11-29T02:00:00Z"))
    }

    @Test func locationFailureEntity() {
        let failed = SubmissionFixtures.submission(.locationFailed)
        #expect(pairs(failed.setting("terminalId", nil)) == ["entity required"])
        #expect(pairs(failed.setting("merchantId", .string("M1"))) == ["entity ambiguous_entity"])
        #expect(pairs(failed.setting("terminalId", .string("bad id"))) == ["terminalId invalid_id"])
    }

    @Test func locationFailureFields() {
        let failed = SubmissionFixtures.submission(.locationFailed)
        #expect(pairs(failed.setting("provider", nil)) == ["provider required"])
        #expect(pairs(failed.setting("provider", .string("baidu"))) == ["provider unknown_value"])
        #expect(pairs(failed.setting("errorCode", nil)) == ["errorCode required"])
        #expect(pairs(failed.setting("errorCode", .string("4"))) == ["errorCode wrong_type"])
        #expect(pairs(failed.setting("errorCode", .number(4.5))) == ["errorCode wrong_type"])
        #expect(pairs(failed.setting("capturedAt", nil)) == ["capturedAt required"])
        #expect(pairs(failed.setting("capturedAt", .string("2026-11-29 10:00"))) == ["capturedAt invalid_timestamp"])
        #expect(pairs(failed.setting("purpose", .string("a b"))) == ["purpose invalid_value"])
    }

    // MARK: collecting

    @Test func everyProblemIsReported() {
        let value = SubmissionFixtures.submission(.visitRecorded)
            .setting("eventId", .string("nope"))
            .setting("merchantId", nil)
            .setting("visitorId", .string("a b"))
            .setting("fix.lat", .number(91))
            .setting("fix.lon", .string("east"))
            .setting("fix.horizontalAccuracy", .number(-1))
            .setting("fix.provider", .string("gps"))
            .setting("fix.capturedAt", .string("2026-11-29T10:00:00"))
            .setting("fix.address.province", .string(String(repeating: "省", count: 300)))
            .setting("fix.claimedInRegion", .string("yes"))
            .setting("actor.userId", .bool(false))
        #expect(Set(pairs(value)) == [
            "eventId invalid_uuid", "merchantId required", "visitorId invalid_id", "fix.lat out_of_range",
            "fix.lon not_a_number", "fix.horizontalAccuracy negative_accuracy", "fix.provider unknown_value",
            "fix.capturedAt missing_offset", "fix.address.province too_long", "fix.claimedInRegion wrong_type",
            "actor.userId wrong_type",
        ])
    }

    @Test func unknownTypeStillChecksTheEnvelope() {
        let value = merchant("type", .string("Nope")).setting("eventId", nil).setting("actor", .number(1))
        #expect(Set(pairs(value)) == ["type unknown_type", "eventId required", "actor wrong_type"])
    }

    @Test func messagesAreWritten() {
        for error in errors(merchant("fix.lat", .number(100)).setting("merchantId", nil)) {
            #expect(!error.message.isEmpty)
        }
    }

    @Test("event ids are read as UUID(uuidString:) reads them", arguments: [
        "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "0B9C2A4E-3F1D-4A51-9A8E-5F7C1D2E3A40", "0b9C2a4E-3f1d-4A51-9a8e-5f7c1D2e3a40",
        "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "0b9c2a4e3f1d4a519a8e5f7c1d2e3a40", "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a4", "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a400",
        "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a4g", "0b9c2a4e_3f1d-4a51-9a8e-5f7c1d2e3a40", "+b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40",
        " b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a4 ", "{0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40}",
        "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a4é", "", "not a uuid",
    ])
    func eventIdsReadAsFoundationReadsThem(text: String) {
        #expect(SubmissionValidator.uuid(text) == UUID(uuidString: text))
    }

    @Test(
        "an event id, read in place or with an escape, is kept as sent for the answer to a refused submission, with its type; a taken one's data has it in lower case",
        arguments: [false, true])
    func eventIdOfTheAnswer(escaped: Bool) throws {
        let upper = "0B9C2A4E-3F1D-4A51-9A8E-5F7C1D2E3A40"
        func bytes(_ value: JSONValue) -> Data {
            let text = String(decoding: value.canonicalData(), as: UTF8.self)
            return Data((escaped ? text.replacingOccurrences(of: "\"0B9C", with: "\"\\u0030B9C") : text).utf8)
        }
        let submission = merchant("eventId", .string(upper))
        #expect(escaped == String(decoding: bytes(submission), as: UTF8.self).contains("\\u0030B9C"))

        var data = CanonicalBytes()
        guard case .refused(let failure, let eventIdText, let type) = validator.decode(
            bytes(submission.setting("fix.lat", .number(100))), now: now, writingDataInto: &data)
        else {
            Issue.record("a latitude of 100 is taken")
            return
        }
        #expect(eventIdText == upper)
        #expect(failure.errors.map(\.field) == ["fix.lat"])
        #expect(type == .merchantAddressFixed)

        guard case .taken(let taken, _) = validator.decode(bytes(submission), now: now, writingDataInto: &data) else {
            Issue.record("the submission is refused")
            return
        }
        #expect(taken.eventId == UUID(uuidString: upper))
        let written = String(decoding: data.bytes, as: UTF8.self)
        #expect(written.contains("\"eventId\":\"\(upper.lowercased())\""))
    }
}
