import CivilCalendar
import Foundation

/// A fix as it will be written, each value already in its JSON text so that invalid variants can replace one.
struct FixText {
    var lat: String
    var lon: String
    var datum: String?
    var horizontalAccuracy: String
    var accuracyAuthorization: String?
    var provider: String
    var capturedAt: String
    var address: AddressText?
    var claimedInRegion: Bool?

    var json: String {
        var text = "{\"lat\":\(lat),\"lon\":\(lon)"
        if let datum { text += ",\"datum\":\"\(datum)\"" }
        text += ",\"horizontalAccuracy\":\(horizontalAccuracy)"
        if let accuracyAuthorization { text += ",\"accuracyAuthorization\":\"\(accuracyAuthorization)\"" }
        text += ",\"provider\":\"\(provider)\",\"capturedAt\":\"\(capturedAt)\""
        if let address { text += ",\"address\":\(address.json)" }
        if let claimedInRegion { text += ",\"claimedInRegion\":\(claimedInRegion)" }
        return text + "}"
    }
}

/// A reverse-geocoded address; which parts are present depends on the provider.
struct AddressText {
    var country: String?
    var province: String?
    var city: String?
    var district: String?
    var street: String?
    var streetNumber: String?
    var poiName: String?
    var formatted: String?
    var adcode: String?

    var json: String {
        let members: [(String, String?)] = [
            ("country", country), ("province", province), ("city", city), ("district", district), ("street", street),
            ("streetNumber", streetNumber), ("poiName", poiName), ("formatted", formatted), ("adcode", adcode),
        ]
        return "{" + members.compactMap { key, value in value.map { "\"\(key)\":\"\($0)\"" } }.joined(separator: ",") + "}"
    }
}

/// Who sends: the onboarding app of sales staff, the merchant's own app, or the agent on a payment terminal.
struct ActorText {
    var userId: String?
    var app: String
    var appVersion: String
    var deviceId: String
    var os: String

    var json: String {
        var text = "{"
        if let userId { text += "\"userId\":\"\(userId)\"," }
        return text + "\"app\":\"\(app)\",\"appVersion\":\"\(appVersion)\",\"deviceId\":\"\(deviceId)\",\"os\":\"\(os)\"}"
    }
}

/// Submission lines in the DESIGN.md format. Every string written is generated here and holds no character
/// that JSON needs escaped.
enum SubmissionText {
    static func merchantAddressFixed(_ eventId: String, merchantId: String, purpose: String, fix: FixText, actor: ActorText) -> String {
        "{\"eventId\":\"\(eventId)\",\"type\":\"MerchantAddressFixed\",\"merchantId\":\"\(merchantId)\",\"purpose\":\"\(purpose)\",\"fix\":\(fix.json),\"actor\":\(actor.json)}"
    }

    static func enterpriseAddressFixed(_ eventId: String, enterpriseId: String, fix: FixText, actor: ActorText) -> String {
        "{\"eventId\":\"\(eventId)\",\"type\":\"EnterpriseAddressFixed\",\"enterpriseId\":\"\(enterpriseId)\",\"fix\":\(fix.json),\"actor\":\(actor.json)}"
    }

    static func terminalBound(_ eventId: String, terminalId: String, merchantId: String, fix: FixText, actor: ActorText) -> String {
        "{\"eventId\":\"\(eventId)\",\"type\":\"TerminalBound\",\"terminalId\":\"\(terminalId)\",\"merchantId\":\"\(merchantId)\",\"fix\":\(fix.json),\"actor\":\(actor.json)}"
    }

    static func terminalUnbound(_ eventId: String, terminalId: String, merchantId: String, reason: String, actor: ActorText) -> String {
        "{\"eventId\":\"\(eventId)\",\"type\":\"TerminalUnbound\",\"terminalId\":\"\(terminalId)\",\"merchantId\":\"\(merchantId)\",\"reason\":\"\(reason)\",\"actor\":\(actor.json)}"
    }

    static func terminalLocated(_ eventId: String, terminalId: String, fix: FixText?, actor: ActorText) -> String {
        let fixMember = fix.map { ",\"fix\":\($0.json)" } ?? ""
        return "{\"eventId\":\"\(eventId)\",\"type\":\"TerminalLocated\",\"terminalId\":\"\(terminalId)\"\(fixMember),\"actor\":\(actor.json)}"
    }

    static func visitRecorded(
        _ eventId: String, visitId: String, merchantId: String, visitorId: String, fix: FixText, note: String?, actor: ActorText
    ) -> String {
        let noteMember = note.map { ",\"note\":\"\($0)\"" } ?? ""
        return "{\"eventId\":\"\(eventId)\",\"type\":\"VisitRecorded\",\"visitId\":\"\(visitId)\",\"merchantId\":\"\(merchantId)\",\"visitorId\":\"\(visitorId)\",\"fix\":\(fix.json)\(noteMember),\"actor\":\(actor.json)}"
    }

    static func locationFailed(
        _ eventId: String, entityField: String, entityId: String, purpose: String, provider: String, errorCode: Int,
        errorMessage: String, capturedAt: String, actor: ActorText
    ) -> String {
        "{\"eventId\":\"\(eventId)\",\"type\":\"LocationFailed\",\"\(entityField)\":\"\(entityId)\",\"purpose\":\"\(purpose)\",\"provider\":\"\(provider)\",\"errorCode\":\(errorCode),\"errorMessage\":\"\(errorMessage)\",\"capturedAt\":\"\(capturedAt)\",\"actor\":\(actor.json)}"
    }
}

/// Device times as the apps send them: RFC 3339 in China Standard Time (+08:00).
enum CaptureTime {
    /// - Parameters:
    ///   - milliseconds: Unix time in milliseconds.
    ///   - fraction: write the milliseconds (CoreLocation timestamps carry them).
    static func text(milliseconds: Int64, fraction: Bool) -> String {
        let local = milliseconds / 1000 + 8 * 3600
        let date = CivilDate(daysSince1970: Int(local / 86_400))
        let seconds = Int(local % 86_400)
        var text = "\(date.year)-\(pad(date.month, 2))-\(pad(date.day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
        if fraction { text += ".\(pad(Int(milliseconds % 1000), 3))" }
        return text + "+08:00"
    }
}

/// `n` in decimal, zero-padded to `width` digits.
func pad(_ n: Int, _ width: Int) -> String {
    let digits = String(n)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
