import CivilCalendar
import Foundation
import JSON

/// The members of one kind of object of the submission format, each case spelt as its member's name and numbered in
/// the order of ``names``, which is the order of its values in a ``JSONRecord`` of ``SubmissionFormat``.
protocol KnownMember: CaseIterable, RawRepresentable<Int> {
    /// The cases' names, made once: `Self.allCases.map { String(describing: $0) }`.
    static var names: [String] { get }
}

extension KnownMember {
    /// The member's name, in messages.
    var name: String { Self.names[rawValue] }
}

/// One object of a submission as read (``SubmissionFormat``): its members' values by member; JSON null as absent.
struct Members<Member: KnownMember> {
    let record: JSONRecord
    /// The object's kind in the format.
    let object: Int

    subscript(member: Member) -> JSONRecord.Value? {
        let value = record[object, member.rawValue]
        return value.isAbsent ? nil : value
    }
}

/// Reads typed fields out of the objects of a submission as read, and collects every problem on the way. A member's
/// name (`key`) is made only when a message needs it.
struct FieldChecker {
    let record: JSONRecord
    private(set) var errors: [FieldError] = []

    init(_ record: JSONRecord) {
        self.record = record
    }

    mutating func fail(_ field: String, _ code: ValidationCode, _ message: String) {
        errors.append(FieldError(field: field, code: code, message: message))
    }

    /// The field's path in messages; made only when a check fails.
    static func path(_ prefix: String, _ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix).\(key)"
    }

    /// Refuses every member of the object of kind `object` that `known` does not allow (bit `n` for member `n`; JSON
    /// null counts as given), and every member the format does not name, one `unknown_field` error each in the order
    /// of their names (code point order), naming its path; past ``maximumUnknownMembers`` in one object, one more
    /// error counts the rest.
    /// - Parameter what: what the object is, for messages: `a fix`.
    mutating func refuseUnknownMembers(
        of object: Int, at prefix: String, known: UInt64 = .max, in what: @autoclosure () -> String
    ) {
        let refused = record.givenMembers(of: object) & ~known
        guard refused != 0 || record.unknownMembers.contains(where: { $0.object == object }) else { return }
        var unknown: [String] = []
        let names = record.names(of: object)
        for member in names.indices where refused & (1 << member) != 0 { unknown.append(names[member]) }
        for entry in record.unknownMembers where entry.object == object { unknown.append(entry.name) }
        unknown.sort(by: JSONObject.precedes)
        let description = what()
        for name in unknown.prefix(Self.maximumUnknownMembers) {
            fail(Self.path(prefix, name), .unknownField, "\(description) has no member \(name)")
        }
        if unknown.count > Self.maximumUnknownMembers {
            fail(prefix, .unknownField, "\(description) has \(unknown.count - Self.maximumUnknownMembers) more unknown members")
        }
    }

    /// Unknown members named one by one in a single object; enough to see the mistake, few enough that a hostile
    /// object of thousands of members gives a short answer.
    static let maximumUnknownMembers = 20

    mutating func string<Member: KnownMember>(
        _ members: Members<Member>, _ member: Member, at prefix: String, required: Bool, maximumLength: Int? = nil
    ) -> String? {
        string(members[member], member.name, at: prefix, required: required, maximumLength: maximumLength)
    }

    /// A string member's value, nil when absent (JSON null counts as absent).
    private mutating func string(
        _ value: JSONRecord.Value?, _ name: @autoclosure () -> String, at prefix: String, required: Bool, maximumLength: Int?
    ) -> String? {
        guard let value = stringValue(value, name(), at: prefix, required: required) else { return nil }
        if let maximumLength, isTooLong(value, maximumLength) {
            failTooLong(name(), at: prefix, maximumLength)
            return nil
        }
        return record.string(value)
    }

    /// An optional string member checked as ``string(_:_:at:required:maximumLength:)`` checks it, with the same
    /// errors, without making the string: for a member the server does not read, which the event's data keeps as sent.
    mutating func checkString<Member: KnownMember>(_ members: Members<Member>, _ member: Member, at prefix: String, maximumLength: Int) {
        guard let value = stringValue(members[member], member.name, at: prefix, required: false) else { return }
        if isTooLong(value, maximumLength) { failTooLong(member.name, at: prefix, maximumLength) }
    }

    /// Whether a string value holds more than `maximumLength` characters (Unicode scalars). Counted on its bytes in
    /// place, each character starting with a byte that does not continue another, and only past the limit: no more
    /// UTF-8 bytes than the limit means no more characters. A string with an escape, which is not its bytes in the
    /// input, is counted on its text.
    private func isTooLong(_ value: JSONRecord.Value, _ maximumLength: Int) -> Bool {
        record.withUnescapedBytes(of: value) { bytes in
            bytes.count > maximumLength && bytes.count(where: { $0 & 0xC0 != 0x80 }) > maximumLength
        } ?? (record.string(value).unicodeScalars.count > maximumLength)
    }

    /// A member's value when it is a string; nil when absent (an error when `required`) or of another kind (an error).
    private mutating func stringValue(
        _ value: JSONRecord.Value?, _ name: @autoclosure () -> String, at prefix: String, required: Bool
    ) -> JSONRecord.Value? {
        var key: String { name() }
        guard let value else {
            if required { fail(Self.path(prefix, key), .required, "\(key) is required") }
            return nil
        }
        guard value.kind == .string else {
            fail(Self.path(prefix, key), .wrongType, "\(key) must be a string, not \(value.kind.typeName)")
            return nil
        }
        return value
    }

    private mutating func failTooLong(_ key: String, at prefix: String, _ maximumLength: Int) {
        fail(Self.path(prefix, key), .tooLong, "\(key) must be at most \(maximumLength) characters")
    }

    mutating func id<Member: KnownMember>(_ members: Members<Member>, _ member: Member, at prefix: String) -> String? {
        var key: String { member.name }
        guard let string = string(members, member, at: prefix, required: true) else { return nil }
        guard Self.isValidId(string) else {
            fail(
                Self.path(prefix, key), .invalidId,
                string == "." || string == ".."
                    ? "\(key) must not be \(string): a URL cannot name it"
                    : "\(key) must be 1–64 characters of A–Z, a–z, 0–9, _ . : -")
            return nil
        }
        return string
    }

    /// 1–64 characters of `[A-Za-z0-9_.:-]`, other than `.` and `..`, which a URL's path cannot hold as a segment.
    static func isValidId(_ string: String) -> Bool {
        // The bytes read in place when the string is contiguous, as a native one is, not through the UTF-8 view.
        if let valid = string.utf8.withContiguousStorageIfAvailable(isValidId) { return valid }
        var string = string
        return string.withUTF8(isValidId)
    }

    private static func isValidId(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (1...64).contains(bytes.count), bytes.count > 2 || bytes.contains(where: { $0 != UInt8(ascii: ".") }) else {
            return false
        }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    mutating func enumeration<E: RawRepresentable & CaseIterable, Member: KnownMember>(
        _ type: E.Type, _ members: Members<Member>, _ member: Member, at prefix: String, required: Bool
    ) -> E? where E.RawValue == String {
        var key: String { member.name }
        if let known = inPlace(members[member], { Self.matchingCase(of: E.self, $0) }) { return known }
        guard let string = string(members[member], key, at: prefix, required: required, maximumLength: nil) else { return nil }
        guard let value = E(rawValue: string) else {
            let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
            fail(Self.path(prefix, key), .unknownValue, "\(key) must be one of \(allowed)")
            return nil
        }
        return value
    }

    /// What `body` reads from a string member's UTF-8 in place, without making the string; nil when the value is
    /// absent, not a string, or holds an escape (and so is not its bytes in the input), or when `body` finds nothing.
    /// The caller then reads the value as a string, which also says what is wrong with it.
    func inPlace<R>(_ value: JSONRecord.Value?, _ body: (UnsafeBufferPointer<UInt8>) -> R?) -> R? {
        guard let value, value.kind == .string else { return nil }
        return record.withUnescapedBytes(of: value, body) ?? nil
    }

    /// The case whose raw value is exactly `bytes`. A miss is read again as a string, which also finds a case whose
    /// raw value is the same text in other code points.
    static func matchingCase<E: RawRepresentable & CaseIterable>(of _: E.Type, _ bytes: UnsafeBufferPointer<UInt8>) -> E?
        where E.RawValue == String
    {
        E.allCases.first { known in
            var raw = known.rawValue
            return raw.withUTF8 { raw in
                raw.count == bytes.count && (bytes.isEmpty || memcmp(raw.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
            }
        }
    }

    /// A finite number. Strings that spell NaN or an infinity (`"NaN"`, `"Infinity"`, `"1e999"`) are `not_finite`,
    /// other strings and types `not_a_number`.
    mutating func finiteNumber<Member: KnownMember>(_ members: Members<Member>, _ member: Member, at prefix: String, what: String)
        -> Double?
    {
        var key: String { member.name }
        guard let value = members[member] else {
            fail(Self.path(prefix, key), .required, "\(what) is required")
            return nil
        }
        switch value.kind {
        case .number where value.number.isFinite:
            return value.number
        case .number:
            fail(Self.path(prefix, key), .notFinite, "\(what) must be a finite number")
        case .string:
            let text = record.string(value)
            if Double(text.trimmingCharacters(in: .whitespaces)).map({ !$0.isFinite }) ?? false {
                fail(Self.path(prefix, key), .notFinite, "\(what) must be a finite number, not \"\(text.prefix(20))\"")
            } else {
                fail(Self.path(prefix, key), .notANumber, "\(what) must be a number, not \(value.kind.typeName)")
            }
        default:
            fail(Self.path(prefix, key), .notANumber, "\(what) must be a number, not \(value.kind.typeName)")
        }
        return nil
    }

    mutating func bool<Member: KnownMember>(_ members: Members<Member>, _ member: Member, at prefix: String) -> Bool? {
        var key: String { member.name }
        guard let value = members[member] else { return nil }
        guard value.kind == .bool else {
            fail(Self.path(prefix, key), .wrongType, "\(key) must be true or false, not \(value.kind.typeName)")
            return nil
        }
        return value.bool
    }

    /// An integer that fits in `Int`.
    mutating func integer<Member: KnownMember>(_ members: Members<Member>, _ member: Member, at prefix: String, required: Bool) -> Int? {
        var key: String { member.name }
        guard let value = members[member] else {
            if required { fail(Self.path(prefix, key), .required, "\(key) is required") }
            return nil
        }
        let number = value.number
        guard value.kind == .number, number.isFinite, number == number.rounded(), abs(number) < 9.0e15 else {
            fail(Self.path(prefix, key), .wrongType, "\(key) must be an integer")
            return nil
        }
        return Int(number)
    }

    /// An optional object of the format, as the members of its kind; absent and null give nil without error.
    mutating func object<Member: KnownMember, Inner: KnownMember>(
        _ members: Members<Member>, _ member: Member, at prefix: String, holding object: Int, as _: Inner.Type
    ) -> Members<Inner>? {
        var key: String { member.name }
        guard let value = members[member] else { return nil }
        guard value.kind == .object else {
            fail(Self.path(prefix, key), .wrongType, "\(key) must be an object, not \(value.kind.typeName)")
            return nil
        }
        return Members(record: record, object: object)
    }

    mutating func timestamp<Member: KnownMember>(
        _ members: Members<Member>, _ member: Member, at prefix: String, now: Date, limits: ValidationLimits
    ) -> Timestamp? {
        var key: String { member.name }
        let parsed: Result<Date, Timestamp.RFC3339Failure>
        if let inPlace = inPlace(members[member], { Timestamp.parseRFC3339($0) }) {
            parsed = inPlace
        } else {
            guard let text = string(members[member], key, at: prefix, required: true, maximumLength: nil) else { return nil }
            parsed = Timestamp.parseRFC3339(text)
        }
        switch parsed {
        case .failure(.missingOffset):
            fail(Self.path(prefix, key), .missingOffset, "\(key) must end with Z or an offset such as +08:00")
            return nil
        case .failure:
            fail(Self.path(prefix, key), .invalidTimestamp, "\(key) must be an RFC 3339 timestamp such as 2026-11-29T10:00:00+08:00")
            return nil
        case .success(let date):
            if date > now.addingTimeInterval(limits.futureTolerance) {
                fail(Self.path(prefix, key), .inFuture, "\(key) is more than \(Int(limits.futureTolerance)) seconds after the server's clock")
                return nil
            }
            if date < limits.earliestCapture {
                fail(Self.path(prefix, key), .tooOld, "\(key) is before \(ISO8601DateFormatter().string(from: limits.earliestCapture))")
                return nil
            }
            return Timestamp(date)
        }
    }
}
