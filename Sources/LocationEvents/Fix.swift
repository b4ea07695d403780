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

/// A reverse-geocoded address as the SDK returned it. Every part is optional.
///
/// Its parts are kept in one shared, immutable box, replaced when a part is set: a fix is copied from the validator
/// to the assessment, the metadata and the projections, and each copy then counts one reference rather than one per
/// part.
public struct Address: Sendable, Hashable {
    private var parts: Parts

    public var country: String? { get { parts.values.country } set { parts = parts.with { $0.country = newValue } } }
    /// Province, autonomous region, municipality or SAR (CoreLocation's `administrativeArea`).
    public var province: String? { get { parts.values.province } set { parts = parts.with { $0.province = newValue } } }
    /// CoreLocation's `locality`.
    public var city: String? { get { parts.values.city } set { parts = parts.with { $0.city = newValue } } }
    /// CoreLocation's `subLocality`.
    public var district: String? { get { parts.values.district } set { parts = parts.with { $0.district = newValue } } }
    /// CoreLocation's `thoroughfare`.
    public var street: String? { get { parts.values.street } set { parts = parts.with { $0.street = newValue } } }
    /// CoreLocation's `subThoroughfare`.
    public var streetNumber: String? {
        get { parts.values.streetNumber }
        set { parts = parts.with { $0.streetNumber = newValue } }
    }
    public var poiName: String? { get { parts.values.poiName } set { parts = parts.with { $0.poiName = newValue } } }
    public var formatted: String? { get { parts.values.formatted } set { parts = parts.with { $0.formatted = newValue } } }
    /// The six-digit Chinese administrative division code (Tencent, AMap).
    public var adcode: String? { get { parts.values.adcode } set { parts = parts.with { $0.adcode = newValue } } }

    public init(
        country: String? = nil, province: String? = nil, city: String? = nil, district: String? = nil,
        street: String? = nil, streetNumber: String? = nil, poiName: String? = nil, formatted: String? = nil,
        adcode: String? = nil
    ) {
        parts = Parts(Values(
            country: country, province: province, city: city, district: district, street: street,
            streetNumber: streetNumber, poiName: poiName, formatted: formatted, adcode: adcode))
    }

    public static func == (a: Address, b: Address) -> Bool { a.parts === b.parts || a.parts.values == b.parts.values }

    public func hash(into hasher: inout Hasher) { hasher.combine(parts.values) }

    /// The JSON field names, in the order messages list them.
    public static let fieldNames = AddressMember.names

    private struct Values: Sendable, Hashable {
        var country, province, city, district, street, streetNumber, poiName, formatted, adcode: String?
    }

    private final class Parts: Sendable {
        let values: Values

        init(_ values: consuming Values) { self.values = values }

        /// A new box with the change made.
        func with(_ change: (inout Values) -> Void) -> Parts {
            var values = values
            change(&values)
            return Parts(values)
        }
    }
}

/// Who sent a submission, as the app describes itself. Every part is optional: the server also records the token used.
public struct Actor: Sendable, Hashable {
    public var userId: String?
    public var app: String?
    public var appVersion: String?
    public var deviceId: String?
    /// As the app sends it, e.g. `iOS 17.2`, `Android 13`.
    public var os: String?
    /// `ios` or `android`, when the app says so; it goes before what ``os`` says (see ``Platform/of(explicit:os:)``).
    public var platform: Platform?

    public init(
        userId: String? = nil, app: String? = nil, appVersion: String? = nil, deviceId: String? = nil, os: String? = nil,
        platform: Platform? = nil
    ) {
        self.userId = userId
        self.app = app
        self.appVersion = appVersion
        self.deviceId = deviceId
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
