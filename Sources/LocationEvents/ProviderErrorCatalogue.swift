/// Why a location attempt failed, normalised across providers for reports.
public enum FailureCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case permissionDenied = "permission_denied"
    case network
    case timeout
    case locateFailed = "locate_failed"
    case reverseGeocodeFailed = "reverse_geocode_failed"
    case canceled
    case fakeLocationRisk = "fake_location_risk"
    case noFullAccuracy = "no_full_accuracy"
    case unknown
}

/// One known provider error code.
public struct ProviderErrorEntry: Sendable, Hashable {
    public let provider: Provider
    public let code: Int
    /// The SDK's name for the code, e.g. `AMapLocationErrorTimeOut`, `kCLErrorDenied`.
    public let name: String
    public let category: FailureCategory
    /// A short English description.
    public let description: String
}

/// The error codes of the Tencent LBS, AMap and CoreLocation SDKs, and what each means.
///
/// Choices where the SDK code does not say it plainly:
/// - Tencent 3 (heading failure) is `locate_failed`; Tencent 4 ("other") is `unknown`.
/// - AMap 7 (bad URL) is `network`: it is raised by the SDK's network layer, like 6, 8 and 9, and the apps
///   report all of them as a network fault.
/// - AMap 10 and CoreLocation's region-monitoring, deferred-update and ranging failures are `locate_failed`.
/// - CoreLocation 9 (partial geocode result) is `reverse_geocode_failed`.
/// - `ip` and `manual` have no catalogue: every code is `unknown`.
public enum ProviderErrorCatalogue {
    /// The category of `code` for `provider`; `unknown` for codes not in the catalogue.
    public static func category(provider: Provider, code: Int) -> FailureCategory {
        entry(provider: provider, code: code)?.category ?? .unknown
    }

    /// A short description of `code` for `provider`.
    public static func description(provider: Provider, code: Int) -> String {
        entry(provider: provider, code: code)?.description ?? "unknown \(provider.rawValue) error code \(code)"
    }

    /// The catalogue entry, or nil when the code is not known.
    public static func entry(provider: Provider, code: Int) -> ProviderErrorEntry? {
        entries[Key(provider: provider, code: code)]
    }

    /// Every known entry.
    public static var allEntries: [ProviderErrorEntry] {
        entries.values.sorted { ($0.provider.rawValue, $0.code) < ($1.provider.rawValue, $1.code) }
    }

    private struct Key: Hashable {
        let provider: Provider
        let code: Int
    }

    private static let entries: [Key: ProviderErrorEntry] = {
        let table: [(Provider, Int, String, FailureCategory, String)] = [
            (.tencent, 0, "TencentLBSLocationErrorUnknown", .unknown, "location currently unknown; the SDK keeps trying"),
            (.tencent, 1, "TencentLBSLocationErrorDenied", .permissionDenied, "location permission denied"),
            (.tencent, 2, "TencentLBSLocationErrorNetwork", .network, "network error"),
            (.tencent, 3, "TencentLBSLocationErrorHeadingFailure", .locateFailed, "heading could not be determined"),
            (.tencent, 4, "TencentLBSLocationErrorOther", .unknown, "other error"),

            (.amap, 1, "AMapLocationErrorUnknown", .unknown, "unknown error"),
            (.amap, 2, "AMapLocationErrorLocateFailed", .locateFailed, "locating failed"),
            (.amap, 3, "AMapLocationErrorReGeocodeFailed", .reverseGeocodeFailed, "reverse geocoding failed"),
            (.amap, 4, "AMapLocationErrorTimeOut", .timeout, "timed out"),
            (.amap, 5, "AMapLocationErrorCanceled", .canceled, "canceled"),
            (.amap, 6, "AMapLocationErrorCannotFindHost", .network, "cannot find host"),
            (.amap, 7, "AMapLocationErrorBadURL", .network, "bad URL"),
            (.amap, 8, "AMapLocationErrorNotConnectedToInternet", .network, "not connected to the internet"),
            (.amap, 9, "AMapLocationErrorCannotConnectToHost", .network, "cannot connect to host"),
            (.amap, 10, "AMapLocationErrorRegionMonitoringFailure", .locateFailed, "region monitoring failed"),
            (.amap, 11, "AMapLocationErrorRiskOfFakeLocation", .fakeLocationRisk, "risk of a fake (simulated) location"),
            (.amap, 12, "AMapLocationErrorNoFullAccuracyAuth", .noFullAccuracy, "no full-accuracy (precise) authorisation"),

            (.apple, 0, "kCLErrorLocationUnknown", .locateFailed, "location currently unknown"),
            (.apple, 1, "kCLErrorDenied", .permissionDenied, "access to location denied by the user"),
            (.apple, 2, "kCLErrorNetwork", .network, "network error"),
            (.apple, 3, "kCLErrorHeadingFailure", .locateFailed, "heading could not be determined"),
            (.apple, 4, "kCLErrorRegionMonitoringDenied", .permissionDenied, "region monitoring denied by the user"),
            (.apple, 5, "kCLErrorRegionMonitoringFailure", .locateFailed, "a region cannot be monitored"),
            (.apple, 6, "kCLErrorRegionMonitoringSetupDelayed", .locateFailed, "region monitoring could not be set up immediately"),
            (.apple, 7, "kCLErrorRegionMonitoringResponseDelayed", .locateFailed, "region monitoring events delayed"),
            (.apple, 8, "kCLErrorGeocodeFoundNoResult", .reverseGeocodeFailed, "geocoding found no result"),
            (.apple, 9, "kCLErrorGeocodeFoundPartialResult", .reverseGeocodeFailed, "geocoding found only a partial result"),
            (.apple, 10, "kCLErrorGeocodeCanceled", .canceled, "geocoding canceled"),
            (.apple, 11, "kCLErrorDeferredFailed", .locateFailed, "deferred updates failed"),
            (.apple, 12, "kCLErrorDeferredNotUpdatingLocation", .locateFailed, "deferred updates while not updating location"),
            (.apple, 13, "kCLErrorDeferredAccuracyTooLow", .locateFailed, "deferred updates need higher accuracy"),
            (.apple, 14, "kCLErrorDeferredDistanceFiltered", .locateFailed, "deferred updates with a distance filter"),
            (.apple, 15, "kCLErrorDeferredCanceled", .canceled, "deferred updates canceled"),
            (.apple, 16, "kCLErrorRangingUnavailable", .locateFailed, "ranging unavailable"),
            (.apple, 17, "kCLErrorRangingFailure", .locateFailed, "ranging failed"),
            (.apple, 18, "kCLErrorPromptDeclined", .permissionDenied, "temporary precise location declined by the user"),
            (.apple, 19, "kCLErrorHistoricalLocationError", .locateFailed, "historical location unavailable"),
        ]
        var entries: [Key: ProviderErrorEntry] = [:]
        for (provider, code, name, category, description) in table {
            entries[Key(provider: provider, code: code)] = ProviderErrorEntry(
                provider: provider, code: code, name: name, category: category, description: description)
        }
        return entries
    }()
}
