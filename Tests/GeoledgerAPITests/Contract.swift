import Foundation
import HTTPTestSupport
import JSON
import RawHTTPClient

/// The API's OpenAPI document as a client reads it: every answer a test gets through ``APITestServer/call`` is
/// checked against it (its status is documented for the operation, its media type is one of that status's, its
/// X-Request-Id is there, its JSON body is valid against the documented schema), so that the document cannot
/// drift from what the server does without a test failing.
struct Contract {
    let document: JSONValue

    /// What is wrong with `response` as the answer to `method target`; empty when it is as documented. Answers to
    /// paths and methods the document does not have (the server's 404 and 405) are not checked.
    func problems(_ method: String, _ target: String, _ response: RawClient.Response) -> [String] {
        let path = String(target.prefix { $0 != "?" })
        guard method != "HEAD", let (pattern, operation) = self.operation(method, path) else { return [] }
        let name = "\(method) \(pattern) answered \(response.status)"
        guard let answer = operation["responses"]?[String(response.status)] else {
            return ["\(name), which the document does not list: \(response.text.prefix(300))"]
        }
        var problems: [String] = []
        if response.headers["X-Request-Id"] == nil { problems.append("\(name) without X-Request-Id") }
        let type = (response.headers["Content-Type"] ?? "").split(separator: ";").first.map(String.init) ?? ""
        guard let schema = answer["content"]?[type]?["schema"] else {
            return problems + ["\(name) as \(type), not one of \(answer["content"]?.objectValue?.keys ?? [])"]
        }
        guard type == "application/json" || type.hasSuffix("+json"), response.headers["Content-Encoding"] == nil else { return problems }
        do {
            let body = try JSONValue(parsing: Data(response.body))
            problems += validate(body, schema, at: "body").map { "\(name): \($0)" }
        } catch {
            problems.append("\(name): the body is not JSON: \(error)")
        }
        return problems
    }

    /// The operation whose pattern matches `path`, literal segments before parameters.
    private func operation(_ method: String, _ path: String) -> (String, JSONValue)? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var best: (String, JSONValue, Int)?
        for (pattern, operations) in document["paths"]?.objectValue ?? JSONObject() {
            let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == segments.count, let operation = operations[method.lowercased()] else { continue }
            var literals = 0
            let matches = zip(parts, segments).allSatisfy { part, segment in
                if part.hasPrefix("{") { return !segment.isEmpty }
                literals += 1
                return part == segment
            }
            if matches, literals > best?.2 ?? -1 { best = (pattern, operation, literals) }
        }
        return best.map { ($0.0, $0.1) }
    }

    /// Where `value` breaks `schema`, of the keywords the document uses.
    func validate(_ value: JSONValue, _ schema: JSONValue, at path: String) -> [String] {
        guard case .object(let keywords) = schema else { return [] }
        if let reference = keywords["$ref"]?.stringValue {
            let name = String(reference.dropFirst("#/components/schemas/".count))
            guard let target = document["components"]?["schemas"]?[name] else { return ["\(path): no schema \(name)"] }
            return validate(value, target, at: path)
        }
        var problems: [String] = []
        func fail(_ text: String) { problems.append("\(path): \(text), in \(String(decoding: value.canonicalData(), as: UTF8.self).prefix(200))") }
        if let types = keywords["type"] {
            let allowed = types.arrayValue?.compactMap(\.stringValue) ?? [types.stringValue ?? ""]
            guard allowed.contains(where: { Self.has(value, type: $0) }) else {
                fail("not \(allowed.joined(separator: " or "))")
                return problems
            }
        }
        if let values = keywords["enum"]?.arrayValue, !values.contains(value) { fail("not one of \(values)") }
        if let constant = keywords["const"], constant != value { fail("not \(constant)") }
        if case .string(let text) = value {
            let count = text.unicodeScalars.count
            if let minimum = keywords["minLength"]?.numberValue, Double(count) < minimum { fail("shorter than \(minimum)") }
            if let maximum = keywords["maxLength"]?.numberValue, Double(count) > maximum { fail("longer than \(maximum)") }
            if let pattern = keywords["pattern"]?.stringValue, text.range(of: pattern, options: .regularExpression) == nil {
                fail("does not match \(pattern)")
            }
            if keywords["format"]?.stringValue == "date-time", Self.rfc3339(text) == nil { fail("not RFC 3339") }
        }
        if case .number(let number) = value {
            if let minimum = keywords["minimum"]?.numberValue, number < minimum { fail("under \(minimum)") }
            if let maximum = keywords["maximum"]?.numberValue, number > maximum { fail("over \(maximum)") }
            if let minimum = keywords["exclusiveMinimum"]?.numberValue, number <= minimum { fail("not over \(minimum)") }
        }
        if case .array(let items) = value {
            if let minimum = keywords["minItems"]?.numberValue, Double(items.count) < minimum { fail("fewer than \(minimum) items") }
            if let maximum = keywords["maxItems"]?.numberValue, Double(items.count) > maximum { fail("more than \(maximum) items") }
            if let schema = keywords["items"] {
                for (index, item) in items.enumerated() { problems += validate(item, schema, at: "\(path)[\(index)]") }
            }
        }
        if case .object(let members) = value {
            let properties = keywords["properties"]?.objectValue ?? JSONObject()
            for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                fail("no member \(name)")
            }
            for (name, member) in members {
                if let schema = properties[name] {
                    problems += validate(member, schema, at: "\(path).\(name)")
                } else if let additional = keywords["additionalProperties"] {
                    if additional == .bool(false) { fail("member \(name) is not documented") }
                    problems += validate(member, additional, at: "\(path).\(name)")
                }
            }
        }
        for schema in keywords["allOf"]?.arrayValue ?? [] { problems += validate(value, schema, at: path) }
        if let choices = keywords["anyOf"]?.arrayValue, !choices.contains(where: { validate(value, $0, at: path).isEmpty }) {
            fail("matches none of anyOf")
        }
        if let choices = keywords["oneOf"]?.arrayValue {
            let matching = choices.filter { validate(value, $0, at: path).isEmpty }.count
            if matching != 1 { fail("matches \(matching) of oneOf") }
        }
        return problems
    }

    private static func has(_ value: JSONValue, type: String) -> Bool {
        switch (value, type) {
        case (.null, "null"), (.bool, "boolean"), (.string, "string"), (.array, "array"), (.object, "object"), (.number, "number"):
            true
        case (.number(let number), "integer"): number == number.rounded()
        default: false
        }
    }

    private static func rfc3339(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains(".")))
    }
}
