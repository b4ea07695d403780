import CivilCalendar
import Geo
import JSON

/// A position as the app sent it, before the server adds anything.
public struct Fix: Sendable, Hashable {
    /// Latitude in degrees, in `datum` (or the inferred datum when that is nil).
    public var lat: Double
    /// Longitude in degrees.
    public var lon: Double
    /// The datum the app said the position is in; nil when it did not say.
    public var datum: Datum?
    /// The radius of uncertainty in metres, as the SDK reported it.
    public var horizontalAccuracy: Double
    /// The location permission held; nil when not sent.
    public var accuracyAuthorization: AccuracyAuthorization?
    public var provider: Provider
    /// Device time of the fix.
    public var capturedAt: Timestamp
    /// The reverse-geocoded address; nil when not sent.
    public var address: Address?
    /// Whether the app believed the point was in mainland China; nil when not sent.
    public var claimedInRegion: Bool?

    public init(
        lat: Double, lon: Double, datum: Datum? = nil, horizontalAccuracy: Double,
        accuracyAuthorization: AccuracyAuthorization? = nil, provider: Provider, capturedAt: Timestamp,
        address: Address? = nil, claimedInRegion: Bool? = nil
    ) {
        self.lat = lat
        self.lon = lon
        self.datum = datum
        self.horizontalAccuracy = horizontalAccuracy
        self.accuracyAuthorization = accuracyAuthorization
        self.provider = provider
        self.capturedAt = capturedAt
        self.address = address
        self.claimedInRegion = claimedInRegion
    }

    /// The JSON field names.
    public static let fieldNames = FixMember.names
}

/// What the server reads of a fix's reverse-geocoded address: the province, for the region check's comparison
/// (``FixAssessor``), and the address code, kept with the fix (``StoredMetadata``, the fix history). Every part of
/// the format (``fieldNames``) is checked as sent and kept, as sent, in the event's data; the parts the server does
/// not read are not made into values.
public struct Address: Sendable, Hashable {
    /// Province, autonomous region, municipality or SAR (CoreLocation's `administrativeArea`).
    public var province: String?
    /// The six-digit Chinese administrative division code (Tencent, AMap).
    public var adcode: String?

    public init(province: String? = nil, adcode: String? = nil) {
        self.province = province
        self.adcode = adcode
    }

    /// The JSON field names, in the order messages list them.
    public static let fieldNames = AddressMember.names
}

/// What the server reads of who sent a submission, as the app describes itself: the app (kept in the metadata,
/// counted by the reports), the operating system and the platform (kept with each fix and failure). Every part is
/// optional, and every part of the format (``fieldNames``: `userId`, `appVersion` and `deviceId` too) is checked as
/// sent and kept, as sent, in the event's data; the server also records the token used.
public struct Actor: Sendable, Hashable {
    public var app: String?
    /// As the app sends it, e.g. `iOS 17.2`, `Android 13`.
    public var os: String?
    /// `ios` or `android`, when the app says so; it goes before what ``os`` says (see ``Platform/of(explicit:os:)``).
    public var platform: Platform?

    public init(app: String? = nil, os: String? = nil, platform: Platform? = nil) {
        self.app = app
        self.os = os
        self.platform = platform
    }

    /// The device's platform, from ``platform`` or else ``os``; nil when neither says.
    public var resolvedPlatform: Platform? { Platform.of(explicit: platform, os: os) }

    /// The JSON field names.
    public static let fieldNames = ActorMember.names
}

/// A fix's numbers as the submission had them, where they came canonical: the stored metadata writes them again
/// (``StoredMetadata/write(_:assessment:capturedAt:receivedAt:given:into:)``) without formatting their values.
public struct FixNumbers: Sendable {
    public var latitude, longitude, horizontalAccuracy: CanonicalNumber?

    public init(latitude: CanonicalNumber? = nil, longitude: CanonicalNumber? = nil, horizontalAccuracy: CanonicalNumber? = nil) {
        (self.latitude, self.longitude, self.horizontalAccuracy) = (latitude, longitude, horizontalAccuracy)
    }
}

enum FixMember: Int, KnownMember {
    case lat, lon, datum, horizontalAccuracy, accuracyAuthorization, provider, capturedAt, address, claimedInRegion

    static let names = allCases.map { String(describing: $0) }
}

/// The members of an address, in the order messages list them (``Address/fieldNames``).
enum AddressMember: Int, KnownMember {
    case country, province, city, district, street, streetNumber, poiName, formatted, adcode

    static let names = allCases.map { String(describing: $0) }
}

/// The members of an actor, in the order of ``Actor/fieldNames``.
enum ActorMember: Int, KnownMember {
    case userId, app, appVersion, deviceId, os, platform

    static let names = allCases.map { String(describing: $0) }
}
