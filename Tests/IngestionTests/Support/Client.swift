import Foundation
import JSON
import LocationEvents

/// Submissions as the apps and batch jobs write them (DESIGN.md, "Submission format"): JSON text with members in
/// the client's order and spaces, not the server's canonical form.
enum Client {
    static let actor = #"{"userId": "sales-17", "app": "onboarding", "appVersion": "5.2.0", "deviceId": "A1B2", "os": "iOS 17.2"}"#

    static let shanghaiAddress = #"""
        {"country": "中国", "province": "上海市", "city": "上海市", "district": "黄浦区", "street": "南京东路", \#
        "streetNumber": "100号", "poiName": "第一百货", "formatted": "上海市黄浦区南京东路100号", "adcode": "310101"}
        """#

    /// A fix; by default DESIGN.md's example (AMap, GCJ-02, 35 m, full authorisation, Shanghai).
    static func fix(
        lat: Double = 31.2304, lon: Double = 121.4737, datum: String? = "gcj02", horizontalAccuracy: Double = 35,
        authorization: String? = "full", provider: String = "amap", capturedAt: String = "2026-11-29T10:00:00+08:00",
        address: String? = shanghaiAddress, claimedInRegion: Bool? = true
    ) -> String {
        var members = ["\"lat\": \(lat)", "\"lon\": \(lon)"]
        if let datum { members.append("\"datum\": \(quoted(datum))") }
        members.append("\"horizontalAccuracy\": \(horizontalAccuracy)")
        if let authorization { members.append("\"accuracyAuthorization\": \(quoted(authorization))") }
        members.append("\"provider\": \(quoted(provider))")
        members.append("\"capturedAt\": \(quoted(capturedAt))")
        if let address { members.append("\"address\": \(address)") }
        if let claimedInRegion { members.append("\"claimedInRegion\": \(claimedInRegion)") }
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func merchantAddressFixed(
        _ id: UUID = UUID(), merchant: String, purpose: String = "onboarding", fix: String = Client.fix(), expectedVersion: String? = nil
    ) -> String {
        submission(id, "MerchantAddressFixed", [
            ("merchantId", quoted(merchant)), ("purpose", quoted(purpose)), ("fix", fix), ("expectedVersion", expectedVersion),
        ])
    }

    static func enterpriseAddressFixed(_ id: UUID = UUID(), enterprise: String, fix: String = Client.fix()) -> String {
        submission(id, "EnterpriseAddressFixed", [("enterpriseId", quoted(enterprise)), ("fix", fix)])
    }

    static func terminalBound(_ id: UUID = UUID(), terminal: String, merchant: String, fix: String = Client.fix()) -> String {
        submission(id, "TerminalBound", [("terminalId", quoted(terminal)), ("merchantId", quoted(merchant)), ("fix", fix)])
    }

    static func terminalUnbound(_ id: UUID = UUID(), terminal: String, merchant: String, reason: String? = "merchant closed") -> String {
        submission(id, "TerminalUnbound", [
            ("terminalId", quoted(terminal)), ("merchantId", quoted(merchant)), ("reason", reason.map(quoted)),
        ])
    }

    static func terminalLocated(_ id: UUID = UUID(), terminal: String, fix: String = Client.fix()) -> String {
        submission(id, "TerminalLocated", [("terminalId", quoted(terminal)), ("fix", fix)])
    }

    static func visitRecorded(
        _ id: UUID = UUID(), visit: String, merchant: String?, visitor: String = "sales-17", fix: String = Client.fix(),
        note: String? = "quarterly check"
    ) -> String {
        submission(id, "VisitRecorded", [
            ("visitId", quoted(visit)), ("merchantId", merchant.map(quoted)), ("visitorId", quoted(visitor)),
            ("fix", fix), ("note", note.map(quoted)),
        ])
    }

    /// `entity` is the id member, e.g. `("terminalId", "T1")`.
    static func locationFailed(
        _ id: UUID = UUID(), entity: (field: String, id: String), purpose: String? = "onboarding", provider: String,
        errorCode: Int, errorMessage: String? = "failed", capturedAt: String = "2026-11-29T10:00:00+08:00", actor: String = actor
    ) -> String {
        submission(id, "LocationFailed", [
            (entity.field, quoted(entity.id)), ("purpose", purpose.map(quoted)), ("provider", quoted(provider)),
            ("errorCode", "\(errorCode)"), ("errorMessage", errorMessage.map(quoted)), ("capturedAt", quoted(capturedAt)),
        ], actor: actor)
    }

    /// `{"eventId": ..., "type": ..., <members>, "actor": ...}`; members whose value is nil are left out.
    static func submission(_ id: UUID, _ type: String, _ members: [(String, String?)], actor: String = actor) -> String {
        let all = [("eventId", quoted(id.uuidString.lowercased())), ("type", quoted(type))] + members + [("actor", actor)]
        return "{" + all.compactMap { key, value in value.map { "\(quoted(key)): \($0)" } }.joined(separator: ", ") + "}"
    }

    static func quoted(_ text: String) -> String {
        JSONValue.string(text).canonicalString()
    }
}

/// Event ids that sort in the order of `n`, the same in every run.
func eventId(_ n: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", n))!
}

