import Foundation
import Queries

/// The `cursor` of a history page's next-page link, as clients see it: the capture time of the page's last row in
/// microseconds since 1970 and its event id, `1764374400000000_0b9c2a4e-…`. Any text of that form is a position to
/// list from, so the document can state the form exactly; ``HistoryCursor`` keeps it in its own, opaque, text.
enum PageCursor {
    static let pattern = "^-?[0-9]{1,18}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

    static func text(of cursor: HistoryCursor) -> String {
        let parts = opaque(cursor.description).split(separator: " ")
        return parts.count == 3 ? "\(parts[1])_\(parts[2])" : cursor.description
    }

    @Sendable static func cursor(_ text: String) -> HistoryCursor? {
        guard text.range(of: pattern, options: .regularExpression) != nil else { return nil }
        let parts = text.split(separator: "_")
        let plain = "h1 \(parts[0]) \(parts[1])"
        return HistoryCursor(
            Data(plain.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
    }

    /// The text inside ``HistoryCursor``'s unpadded base64url.
    private static func opaque(_ text: String) -> String {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).flatMap { String(data: $0, encoding: .utf8) } ?? ""
    }
}
