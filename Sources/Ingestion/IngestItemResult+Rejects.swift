import Foundation
import JSON
import LocationEvents

extension IngestItemResult {
    /// The `--rejects` line of an item not stored: the object of the batch answer, with the item's line number and
    /// the item itself, as parsed, or as text when it was not JSON. Canonical JSON, without the newline.
    public func rejectLine(for raw: SubmissionReader.RawItem) -> Data {
        var members = json.objectValue ?? [:]
        members["line"] = .number(Double(raw.line))
        if raw.problem == nil, let item = try? JSONValue(parsing: raw.bytes) {
            members["item"] = item
        } else {
            members["item"] = .string(String(decoding: raw.bytes, as: UTF8.self))
        }
        return JSONValue.object(members).canonicalData()
    }
}
