import Foundation

/// Many valid submissions, the same in every run: address fixes of 5,000 merchants, device fixes of 3,000
/// terminals, visits, failures and enterprise fixes, captured over a week across China.
enum BulkWorkload {
    /// Submission `i`, on one line.
    static func submission(_ i: Int) -> String {
        let id = String(format: "00000000-0000-4000-8000-%012x", i + 1)
        let seconds = (i &* 7919) % (7 * 86_400)
        let capturedAt = String(
            format: "2026-11-%02dT%02d:%02d:%02d+08:00", 20 + seconds / 86_400, seconds / 3600 % 24, seconds / 60 % 60, seconds % 60)
        let lat = 22.5 + Double(i % 1000) * 0.017
        let lon = 102.0 + Double(i % 997) * 0.02
        let accuracy = [8.0, 35, 65, 450, 2500, 9000][i % 6]
        let authorization = i % 7 == 0 ? "reduced" : "full"
        let fix = """
            {"lat": \(lat), "lon": \(lon), "datum": "gcj02", "horizontalAccuracy": \(accuracy), \
            "accuracyAuthorization": "\(authorization)", "provider": "\(i % 2 == 0 ? "amap" : "tencent")", \
            "capturedAt": "\(capturedAt)", "claimedInRegion": true}
            """
        let head = #"{"eventId": "\#(id)", "type": "#
        let actor = #""actor": {"userId": "u\#(i % 40)", "app": "merchant", "appVersion": "5.2.\#(i % 3)"}}"#
        switch i % 20 {
        case 0..<10:
            return head + #""MerchantAddressFixed", "merchantId": "M\#(i % 5000)", "purpose": "shop", "fix": \#(fix), \#(actor)"#
        case 10..<15:
            return head + #""TerminalLocated", "terminalId": "T\#(i % 3000)", "fix": \#(fix), \#(actor)"#
        case 15..<18:
            return head + #""VisitRecorded", "visitId": "V\#(i)", "merchantId": "M\#(i % 5000)", "visitorId": "s\#(i % 50)", "fix": \#(fix), \#(actor)"#
        case 18:
            return head + #""LocationFailed", "merchantId": "M\#(i % 5000)", "provider": "amap", "errorCode": \#(i % 13), "capturedAt": "\#(capturedAt)", \#(actor)"#
        default:
            return head + #""EnterpriseAddressFixed", "enterpriseId": "E\#(i % 700)", "fix": \#(fix), \#(actor)"#
        }
    }

    /// `count` submissions as NDJSON, in a temporary file.
    static func ndjsonFile(count: Int) throws -> String {
        try write((0..<count).map { submission($0) + "\n" }.joined())
    }

    /// `count` submissions as one JSON array, in a temporary file.
    static func arrayFile(count: Int) throws -> String {
        try write("[\n" + (0..<count).map(submission).joined(separator: ",\n") + "\n]\n")
    }

    private static func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-\(UUID()).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
