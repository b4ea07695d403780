import Foundation
import JSON
@testable import LocationEvents

/// Submissions for tests, built from the example of DESIGN.md.
enum SubmissionFixtures {
    /// The server clock in tests: 2026-11-29T12:00:00+08:00.
    static let now = Date(timeIntervalSince1970: 1_795_924_800)

    static let fix: JSONValue = .object([
        "lat": .number(31.2304), "lon": .number(121.4737), "datum": .string("gcj02"),
        "horizontalAccuracy": .number(35), "accuracyAuthorization": .string("full"), "provider": .string("amap"),
        "capturedAt": .string("2026-11-29T10:00:00+08:00"),
        "address": .object([
            "country": .string("中国"), "province": .string("上海市"), "city": .string("上海市"),
            "district": .string("黄浦区"), "street": .string("南京东路"), "streetNumber": .string("100号"),
            "poiName": .string("第一百货"), "formatted": .string("上海市黄浦区南京东路100号"), "adcode": .string("310101"),
        ]),
        "claimedInRegion": .bool(true),
    ])

    static let actor: JSONValue = .object([
        "userId": .string("sales-17"), "app": .string("onboarding"), "appVersion": .string("5.2.0"),
        "deviceId": .string("A1B2"), "os": .string("iOS 17.2"),
    ])

    static let eventId = "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40"

    static func submission(_ type: EventType) -> JSONValue {
        var members: JSONObject = ["eventId": .string(eventId), "type": .string(type.rawValue), "actor": actor]
        switch type {
        case .merchantAddressFixed:
            members["merchantId"] = .string("M0001")
            members["purpose"] = .string("onboarding")
            members["fix"] = fix
        case .enterpriseAddressFixed:
            members["enterpriseId"] = .string("E01")
            members["fix"] = fix
        case .terminalBound:
            members["terminalId"] = .string("T01")
            members["merchantId"] = .string("M0001")
            members["fix"] = fix
        case .terminalUnbound:
            members["terminalId"] = .string("T01")
            members["merchantId"] = .string("M0001")
            members["reason"] = .string("merchant closed")
        case .terminalLocated:
            members["terminalId"] = .string("T01")
            members["fix"] = fix
        case .visitRecorded:
            members["visitId"] = .string("V01")
            members["merchantId"] = .string("M0001")
            members["visitorId"] = .string("sales-17")
            members["note"] = .string("met the owner")
            members["fix"] = fix
        case .locationFailed:
            members["terminalId"] = .string("T01")
            members["purpose"] = .string("terminal_binding")
            members["provider"] = .string("amap")
            members["errorCode"] = .number(4)
            members["errorMessage"] = .string("timed out")
            members["capturedAt"] = .string("2026-11-29T10:00:00+08:00")
        }
        return .object(members)
    }
}

extension JSONValue {
    /// A copy with the member at a dotted path set (nil removes it). Intermediate objects must exist.
    func setting(_ path: String, _ value: JSONValue?) -> JSONValue {
        setting(path.split(separator: ".").map(String.init)[...], value)
    }

    private func setting(_ keys: ArraySlice<String>, _ value: JSONValue?) -> JSONValue {
        guard case .object(var members) = self, let key = keys.first else { return self }
        if keys.count == 1 {
            members[key] = value
        } else {
            members[key] = (members[key] ?? .object([:])).setting(keys.dropFirst(), value)
        }
        return .object(members)
    }
}

extension SubmissionValidator {
    /// Validates a submission given as a JSON value, through its canonical bytes: the validator reads bytes.
    func validate(_ value: JSONValue, now: Date) -> Result<Submission, ValidationFailure> {
        validate(value.canonicalData(), now: now)
    }
}
