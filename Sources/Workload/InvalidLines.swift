import Foundation
import LocationEvents

/// Lines a validator must reject, of the kinds clients really send: a latitude out of range, the (0, 0)
/// default of an unset coordinate, a negative accuracy (iOS's "no valid fix"), a time without its offset,
/// a missing field, an unknown type, a malformed id, a line cut short.
enum InvalidLines {
    static func make(site: Site, merchantId: String, random: inout SplitMix64) -> String {
        let time = (TimeRange.start + Int64(random.unit() * Double(TimeRange.end - TimeRange.start))) * 1000
        var fix = FixMaker.fix(of: site.position, site: site, device: .phone, iOS: false, milliseconds: time, random: &random)
        let actor = ActorText(userId: "sales-\(1 + random.below(800))", app: "onboarding", appVersion: "5.2.0",
                              deviceId: String(random.next() >> 16, radix: 16, uppercase: true), os: "Android 13")
        let eventId = random.uuidText()
        var purpose = "relocation"
        var id = merchantId
        switch random.below(9) {
        case 0: fix.lat = "\(91 + random.below(90)).\(random.below(1_000_000))"
        case 1: fix.lat = "0"; fix.lon = "0"
        case 2: fix.horizontalAccuracy = "-1"
        case 3: fix.capturedAt = String(fix.capturedAt.dropLast(6))
        case 4:
            return SubmissionText.terminalLocated(eventId, terminalId: "T" + pad(1 + random.below(99_999_999), 8), fix: nil, actor: actor)
        case 5: purpose = "onbaording"
        case 6: id = "M \(merchantId)/1"
        case 7:
            let line = SubmissionText.merchantAddressFixed(eventId, merchantId: merchantId, purpose: purpose, fix: fix, actor: actor)
            return line.replacingOccurrences(of: "\"MerchantAddressFixed\"", with: "\"MerchantAddressFix\"")
        default:
            let line = Array(SubmissionText.merchantAddressFixed(eventId, merchantId: merchantId, purpose: purpose, fix: fix, actor: actor).utf8)
            return String(decoding: line.prefix(40 + random.below(line.count / 2)), as: UTF8.self)
        }
        return SubmissionText.merchantAddressFixed(eventId, merchantId: id, purpose: purpose, fix: fix, actor: actor)
    }
}

/// The SDK's name for an error code, which is what the apps pass on as the message; the workload draws its codes from
/// the iOS SDKs' tables.
enum ProviderErrors {
    static func message(provider: String, code: Int) -> String {
        guard let provider = Provider(rawValue: provider), let entry = ProviderErrorCatalogue.entry(provider: provider, platform: .ios, code: code) else {
            return "error \(code)"
        }
        return entry.name
    }
}
