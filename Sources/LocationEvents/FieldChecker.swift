import Foundation
import JSON

/// Reads typed fields out of JSON objects and collects every problem on the way.
struct FieldChecker {
    private(set) var errors: [FieldError] = []

    mutating func fail(_ field: String, _ code: ValidationCode, _ message: String) {
        errors.append(FieldError(field: field, code: code, message: message))
    }

    /// The field's path in messages; made only when a check fails.
    static func path(_ prefix: String, _ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix).\(key)"
    }

    /// The member, treating JSON null as absent.
    static func member(_ object: JSONObject, _ key: String) -> JSONValue? {
        guard let value = object[key] else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// Refuses every member of `object` not named in `known` (sorted as ``JSONObject`` sorts its names), one
    /// `unknown_field` error each, naming its path; past ``maximumUnknownMembers`` in one object, one more error
    /// counts the rest.
    /// - Parameter what: what the object is, for messages: `a fix`.
    mutating func refuseUnknownMembers(of object: JSONObject, at prefix: String, known: KnownMembers, in what: @autoclosure () -> String) {
        walk(object, at: prefix, known: known, in: what()) { _, _ in }
    }

    /// The values of the members of `object` that `Member` names, read in the one walk over its names that refuses
    /// the others (as ``refuseUnknownMembers(of:at:known:in:)``), rather than looking each up by name.
    mutating func knownMembers<Member: KnownMember>(of object: JSONObject, at prefix: String, in what: @autoclosure () -> String)
        -> KnownValues<Member>
    {
        let known = Member.known
        // Where each value is in the object, rather than the values: numbers, not copies of values to retain; kept
        // in place, not in an array of their own to allocate.
        var indices = KnownValues<Member>.Indices(repeating: -1)
        precondition(known.names.count <= indices.count, "an object of more members than KnownValues holds")
        walk(object, at: prefix, known: known, in: what()) { slot, index in indices[known.given[slot]] = index }
        return KnownValues(object: object, indices: indices)
    }

    /// Walks the names of `object` and of `known` together, refusing the unknown ones and giving each known member's
    /// slot in `known.names` and its index in `object` to `found`.
    private mutating func walk(
        _ object: JSONObject, at prefix: String, known: KnownMembers, in what: @autoclosure () -> String,
        found: (Int, Int) -> Void
    ) {
        var next = 0
        var refused = 0
        for (index, member) in object.members.enumerated() {
            let key = member.key
            // Both are sorted: walk them together, comparing equal names (the common case) before ordering them.
            while next < known.names.count, known.names[next] != key, JSONObject.precedes(known.names[next], key) { next += 1 }
            if next < known.names.count, known.names[next] == key {
                found(next, index)
                next += 1
                continue
            }
            refused += 1
            if refused <= Self.maximumUnknownMembers {
                fail(Self.path(prefix, key), .unknownField, "\(what()) has no member \(key)")
            }
        }
        if refused > Self.maximumUnknownMembers {
            fail(prefix, .unknownField, "\(what()) has \(refused - Self.maximumUnknownMembers) more unknown members")
        }
    }

    /// Unknown members named one by one in a single object; enough to see the mistake, few enough that a hostile
    /// object of thousands of members gives a short answer.
    static let maximumUnknownMembers = 20

    mutating func string(_ object: JSONObject, _ key: String, at prefix: String, required: Bool, maximumLength: Int? = nil) -> String? {
        string(Self.member(object, key), key, at: prefix, required: required, maximumLength: maximumLength)
    }

    mutating func string<Member: KnownMember>(
        _ members: KnownValues<Member>, _ member: Member, at prefix: String, required: Bool, maximumLength: Int? = nil
    ) -> String? {
        string(members[member], member.name, at: prefix, required: required, maximumLength: maximumLength)
    }

    /// A string member's value, nil when absent (JSON null counts as absent).
    private mutating func string(_ value: JSONValue?, _ key: String, at prefix: String, required: Bool, maximumLength: Int?) -> String? {
        guard let value else {
            if required { fail(Self.path(prefix, key), .required, "\(key) is required") }
            return nil
        }
        guard case .string(let string) = value else {
            fail(Self.path(prefix, key), .wrongType, "\(key) must be a string, not \(value.typeName)")
            return nil
        }
        // No more UTF-8 bytes than the limit means no more characters: count them only past it.
        if let maximumLength, string.utf8.count > maximumLength, string.unicodeScalars.count > maximumLength {
            fail(Self.path(prefix, key), .tooLong, "\(key) must be at most \(maximumLength) characters")
            return nil
        }
        return string
    }

    mutating func id(_ object: JSONObject, _ key: String, at prefix: String) -> String? {
        guard let string = string(object, key, at: prefix, required: true) else { return nil }
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
        let bytes = string.utf8
        guard (1...64).contains(bytes.count), string != ".", string != ".." else { return false }
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

    mutating func enumeration<E: RawRepresentable & CaseIterable>(
        _ type: E.Type, _ object: JSONObject, _ key: String, at prefix: String, required: Bool
    ) -> E? where E.RawValue == String {
        enumeration(type, Self.member(object, key), key, at: prefix, required: required)
    }

    mutating func enumeration<E: RawRepresentable & CaseIterable, Member: KnownMember>(
        _ type: E.Type, _ members: KnownValues<Member>, _ member: Member, at prefix: String, required: Bool
    ) -> E? where E.RawValue == String {
        enumeration(type, members[member], member.name, at: prefix, required: required)
    }

    private mutating func enumeration<E: RawRepresentable & CaseIterable>(
        _ type: E.Type, _ value: JSONValue?, _ key: String, at prefix: String, required: Bool
    ) -> E? where E.RawValue == String {
        guard let string = string(value, key, at: prefix, required: required, maximumLength: nil) else { return nil }
        guard let value = E(rawValue: string) else {
            let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
            fail(Self.path(prefix, key), .unknownValue, "\(key) must be one of \(allowed)")
            return nil
        }
        return value
    }

    /// A finite number. Strings that spell NaN or an infinity (`"NaN"`, `"Infinity"`, `"1e999"`) are `not_finite`,
    /// other strings and types `not_a_number`.
    mutating func finiteNumber<Member: KnownMember>(_ members: KnownValues<Member>, _ member: Member, at prefix: String, what: String)
        -> Double?
    {
        let key = member.name
        guard let value = members[member] else {
            fail(Self.path(prefix, key), .required, "\(what) is required")
            return nil
        }
        switch value {
        case .number(let number) where number.isFinite:
            return number
        case .number:
            fail(Self.path(prefix, key), .notFinite, "\(what) must be a finite number")
        case .string(let text) where Double(text.trimmingCharacters(in: .whitespaces)).map { !$0.isFinite } ?? false:
            fail(Self.path(prefix, key), .notFinite, "\(what) must be a finite number, not \"\(text.prefix(20))\"")
        default:
            fail(Self.path(prefix, key), .notANumber, "\(what) must be a number, not \(value.typeName)")
        }
        return nil
    }

    mutating func bool<Member: KnownMember>(_ members: KnownValues<Member>, _ member: Member, at prefix: String) -> Bool? {
        let key = member.name
        guard let value = members[member] else { return nil }
        guard case .bool(let bool) = value else {
            fail(Self.path(prefix, key), .wrongType, "\(key) must be true or false, not \(value.typeName)")
            return nil
        }
        return bool
    }

    /// An integer that fits in `Int`.
    mutating func integer(_ object: JSONObject, _ key: String, at prefix: String, required: Bool) -> Int? {
        guard let value = Self.member(object, key) else {
            if required { fail(Self.path(prefix, key), .required, "\(key) is required") }
            return nil
        }
        guard case .number(let number) = value, number.isFinite, number == number.rounded(),
              abs(number) < 9.0e15
        else {
            fail(Self.path(prefix, key), .wrongType, "\(key) must be an integer")
            return nil
        }
        return Int(number)
    }

    /// An optional object; absent and null give nil without error.
    mutating func object(_ object: JSONObject, _ key: String, at prefix: String) -> JSONObject? {
        self.object(Self.member(object, key), key, at: prefix)
    }

    mutating func object<Member: KnownMember>(_ members: KnownValues<Member>, _ member: Member, at prefix: String) -> JSONObject? {
        object(members[member], member.name, at: prefix)
    }

    private mutating func object(_ value: JSONValue?, _ key: String, at prefix: String) -> JSONObject? {
        guard let value else { return nil }
        guard case .object(let members) = value else {
            fail(Self.path(prefix, key), .wrongType, "\(key) must be an object, not \(value.typeName)")
            return nil
        }
        return members
    }

    mutating func timestamp(
        _ object: JSONObject, _ key: String, at prefix: String, now: Date, limits: ValidationLimits
    ) -> Timestamp? {
        timestamp(Self.member(object, key), key, at: prefix, now: now, limits: limits)
    }

    mutating func timestamp<Member: KnownMember>(
        _ members: KnownValues<Member>, _ member: Member, at prefix: String, now: Date, limits: ValidationLimits
    ) -> Timestamp? {
        timestamp(members[member], member.name, at: prefix, now: now, limits: limits)
    }

    private mutating func timestamp(
        _ value: JSONValue?, _ key: String, at prefix: String, now: Date, limits: ValidationLimits
    ) -> Timestamp? {
        guard let text = string(value, key, at: prefix, required: true, maximumLength: nil) else { return nil }
        switch RFC3339.parse(text) {
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
            return Timestamp(text: text, date: date)
        }
    }
}

/// The member names an object of the submission format may have, sorted as ``JSONObject`` sorts its own.
struct KnownMembers: Sendable {
    let names: [String]
    /// Per name in ``names``, its index in the order given.
    let given: [Int]

    init(_ names: [String]) {
        let order = names.indices.sorted { JSONObject.precedes(names[$0], names[$1]) }
        self.names = order.map { names[$0] }
        given = order
    }
}

/// The members of one kind of object of the submission format, each case spelt as its member's name and numbered in
/// the order of ``names``, so that its value is found by its number (``KnownValues``).
protocol KnownMember: CaseIterable, RawRepresentable<Int> {
    /// The cases' names, made once: `Self.allCases.map { String(describing: $0) }`.
    static var names: [String] { get }
    static var known: KnownMembers { get }
}

extension KnownMember {
    /// The member's name, in messages.
    var name: String { Self.names[rawValue] }
}

/// The values of an object's known members (``FieldChecker/knownMembers(of:at:in:)``); JSON null as absent.
struct KnownValues<Member: KnownMember> {
    /// Per member, the index of its value in the object, -1 when absent; room for 16 members.
    typealias Indices = InlineArray<16, Int>

    fileprivate let object: JSONObject
    fileprivate let indices: Indices

    subscript(member: Member) -> JSONValue? {
        let index = indices[member.rawValue]
        guard index >= 0 else { return nil }
        let value = object.members[index].value
        if case .null = value { return nil }
        return value
    }
}
