import Foundation

/// Where a fix came from.
public enum Provider: String, Sendable, Hashable, Codable, CaseIterable {
    /// Tencent LBS SDK: GCJ-02 in mainland China, Hong Kong and Macau, WGS-84 elsewhere.
    case tencent
    /// AMap (Gaode) SDK: GCJ-02 in mainland China, Hong Kong and Macau, WGS-84 elsewhere.
    case amap
    /// CoreLocation: WGS-84 everywhere.
    case apple
    /// An IP-location service.
    case ip
    /// Entered or picked by a person.
    case manual
}

/// The location permission the app held when the fix was taken (iOS 14 precise / approximate location).
public enum AccuracyAuthorization: String, Sendable, Hashable, Codable, CaseIterable {
    /// Precise location.
    case full
    /// Approximate location: per Apple usually 1–20 km from the true position, whatever horizontalAccuracy says.
    case reduced
    /// The platform does not say (Android, older iOS, IP, manual).
    case unknown
}

/// Why the merchant's address was located.
public enum MerchantAddressPurpose: String, Sendable, Hashable, Codable, CaseIterable {
    /// The business address at onboarding.
    case onboarding
    /// Re-location from the merchant detail page.
    case relocation
    /// Editing the onboarding information.
    case edit
    /// The shop location, from the merchant's own app.
    case shop
}

/// The kinds of entity that own a stream.
public enum EntityKind: String, Sendable, Hashable, Codable, CaseIterable {
    case merchant
    case enterprise
    case terminal
    case visit

    /// The submission field that carries this kind's id (`merchantId`, ...).
    public var idField: String { "\(rawValue)Id" }
}

/// One entity: its kind and id. Its stream is `<kind>-<id>`.
public struct EntityRef: Sendable, Hashable, Codable {
    public var kind: EntityKind
    public var id: String

    public init(kind: EntityKind, id: String) {
        self.kind = kind
        self.id = id
    }

    /// `merchant-M0001`, `terminal-T9`, ...: written into the string's storage at once, where an interpolation
    /// appended its three parts in turn.
    public var streamName: String {
        let kind = kind.rawValue.utf8
        let id = id.utf8
        return String(unsafeUninitializedCapacity: kind.count + 1 + id.count) { name in
            var end = name.initialize(fromContentsOf: kind)
            name[end] = UInt8(ascii: "-")
            end = name[(end + 1)...].initialize(fromContentsOf: id)
            return end
        }
    }
}

/// Which stream version an append expects.
public enum ExpectedVersion: Sendable, Hashable {
    /// Append whatever the stream's version.
    case any
    /// The stream must not exist yet.
    case noStream
    /// The stream's current version must be exactly this (versions start at 0).
    case exact(Int64)
}

/// The operating system of the device that located, which decides what a provider's error code means: the Tencent
/// and AMap SDKs number their errors differently on iOS and on Android (point-of-sale terminals run Android).
public enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
    case ios
    case android

    /// The platform of a submission: `actor.platform` when sent, else read from `actor.os` as the apps send it
    /// (`iOS 17.2`, `Android 13`, `iPadOS 17`, in any case); nil when neither says.
    public static func of(explicit: Platform?, os: String?) -> Platform? {
        if let explicit { return explicit }
        guard var os else { return nil }
        // The apps send ASCII: read as bytes, it needs neither Unicode's tables nor a lowercased copy.
        let asASCII: Platform?? = os.withUTF8 { bytes in
            bytes.contains { $0 >= 0x80 } ? .none : .some(of(ascii: bytes))
        }
        if let asASCII { return asASCII }
        // Leading white space is skipped (trailing white space cannot change a prefix): a tab or a space separator
        // (Unicode's Zs), which is what Foundation's `.whitespaces` holds, read from the scalars' properties rather
        // than trimmed through NSString, which was most of the cost of an event's platform. The rest is lowercased
        // as the slice it is: building a string of it scalar by scalar cost five times the rest.
        let start = os.unicodeScalars.drop { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        let name = Substring(start).lowercased()
        if name.hasPrefix("android") { return .android }
        if name.hasPrefix("ios") || name.hasPrefix("ipados") || name.hasPrefix("iphone os") { return .ios }
        return nil
    }

    /// ``of(explicit:os:)`` of ASCII text: its only space separator is the space, and lowercasing it is ASCII's.
    private static func of(ascii os: UnsafeBufferPointer<UInt8>) -> Platform? {
        let name = os.drop { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: " ") }
        func hasPrefix(_ prefix: StaticString) -> Bool {
            let prefix = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            return name.count >= prefix.count
                && zip(name, prefix).allSatisfy { byte, lower in
                    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == lower : byte == lower
                }
        }
        if hasPrefix("android") { return .android }
        if hasPrefix("ios") || hasPrefix("ipados") || hasPrefix("iphone os") { return .ios }
        return nil
    }

    /// How the projections and reports write a platform: its raw value, `unknown` for nil.
    public static func text(_ platform: Platform?) -> String { platform?.rawValue ?? "unknown" }
}

extension Hasher {
    /// Feeds a one-byte value by its byte: a value of the vocabulary (an enum without payloads), or an optional one, by
    /// the byte that tells its cases apart. `combine` of a `String`-backed enum hashes its text (the standard library's
    /// `RawRepresentable` hashing), which cost the keys counting a batch's fixes a string hash each.
    public mutating func combine<Value>(case value: Value) {
        precondition(MemoryLayout<Value>.size <= 1, "a value hashed by its byte is an enum without payloads")
        withUnsafeBytes(of: value) { combine(bytes: $0) }
    }
}
