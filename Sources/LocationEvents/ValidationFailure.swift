import JSON

/// The stable codes a `FieldError` can carry. Clients may switch on them; messages may change, codes do not.
public enum ValidationCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The submission is not a JSON object.
    case notAnObject = "not_an_object"
    /// The bytes of the item are not JSON at all.
    case invalidJSON = "invalid_json"
    case required
    /// `type` names no event type.
    case unknownType = "unknown_type"
    /// The JSON type is not the one expected (string, number, boolean, object).
    case wrongType = "wrong_type"
    /// An entity id is not 1–64 characters of `[A-Za-z0-9_.:-]`, or is `.` or `..`.
    case invalidId = "invalid_id"
    case invalidUUID = "invalid_uuid"
    /// A coordinate or accuracy is not a number.
    case notANumber = "not_a_number"
    /// NaN or infinity.
    case notFinite = "not_finite"
    case outOfRange = "out_of_range"
    /// Latitude and longitude are both exactly 0: a default value, not a fix.
    case nullIsland = "null_island"
    /// CoreLocation's negative horizontalAccuracy: no valid coordinate.
    case negativeAccuracy = "negative_accuracy"
    case zeroAccuracy = "zero_accuracy"
    /// A string outside its enumeration (datum, provider, accuracyAuthorization, purpose, expectedVersion).
    case unknownValue = "unknown_value"
    case invalidTimestamp = "invalid_timestamp"
    /// A timestamp without `Z` or `±hh:mm`: the instant it denotes is unknown.
    case missingOffset = "missing_offset"
    case inFuture = "in_future"
    case tooOld = "too_old"
    case tooLong = "too_long"
    /// An adcode that is not six digits.
    case invalidAdcode = "invalid_adcode"
    /// A free-form token (LocationFailed's purpose) that is not 1–64 characters of `[A-Za-z0-9_.:-]`.
    case invalidValue = "invalid_value"
    /// A LocationFailed with more than one entity id.
    case ambiguousEntity = "ambiguous_entity"
    /// The item is larger than the reader takes; it was not read.
    case tooLarge = "too_large"
    /// A member the submission format does not have, at any level.
    case unknownField = "unknown_field"
    /// An object names a member twice (I-JSON, RFC 7493): which value is meant is unknown.
    case duplicateKey = "duplicate_key"
}

/// One problem with one field of a submission.
public struct FieldError: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The path of the field, e.g. `fix.lat`, `fix.address.province`, `actor.userId`; `""` for the whole submission.
    public let field: String
    /// A `ValidationCode` raw value.
    public let code: String
    /// A sentence for people.
    public let message: String

    public init(field: String, code: ValidationCode, message: String) {
        self.field = field
        self.code = code.rawValue
        self.message = message
    }

    public var description: String { "\(field.isEmpty ? "(submission)" : field): \(code): \(message)" }
}

extension FieldError {
    /// Why bytes are not a JSON value to validate: `duplicate_key` naming the member, else `invalid_json`.
    public init(_ error: JSONValueError) {
        switch error {
        case .duplicateKey(let path):
            self.init(field: path, code: .duplicateKey, message: "\(path) is given more than once in its object")
        case .malformed(let reason):
            self.init(field: "", code: .invalidJSON, message: "not valid JSON: \(reason)")
        }
    }
}

/// Every problem found in a submission.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// In the order found; never empty.
    public let errors: [FieldError]

    public init(errors: [FieldError]) {
        self.errors = errors
    }

    public var description: String { errors.map(\.description).joined(separator: "; ") }
}
