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
    /// The platform whose SDK defines the code; nil for CoreLocation, which is Apple's alone.
    public let platform: Platform?
    public let code: Int
    /// The SDK's name for the code, e.g. `AMapLocationErrorTimeOut`, `ERROR_CODE_FAILURE_LOCATION_PERMISSION`.
    public let name: String
    public let category: FailureCategory
    /// A short English description.
    public let description: String
}

/// The error codes of the Tencent LBS and AMap SDKs, on iOS and on Android, and of CoreLocation, and what each means.
///
/// The Tencent and AMap SDKs number their errors differently on each platform (Tencent's 1 is a denied permission on
/// iOS and a network problem on Android; AMap's 12 is a missing full-accuracy authorisation on iOS and a missing
/// location permission on Android), so a code is read with the platform of the device that sent it
/// (``Platform/of(explicit:os:)``). When the platform is not known, a code gets the category both platforms' SDKs
/// agree on, and `unknown` when they do not: never a guess.
///
/// Sources, one per table (each entry's name is the SDK's own):
/// - Tencent LBS, iOS: the `TencentLBSLocationError` enumeration of the iOS SDK's `TencentLBSLocationManager.h`, as
///   quoted in https://juejin.cn/post/7126415747374383134 (the apps' own location wrapper).
/// - Tencent LBS, Android: `TencentLocation.ERROR_*`, https://lbs.qq.com/mobile/androidLocationSDK/androidGeoGuide/androidGeoError
///   and https://lbs.qq.com/geosdk/doc/index-files/index-5.html
/// - AMap, iOS: `AMapLocationErrorCode` (`AMapLocationCommonObj.h`),
///   https://lbs.amap.com/api/ios-location-sdk/guide/utilities/errorcode (codes 2 to 10; 1, 11 and 12 from the header,
///   as listed in https://pub.dev/documentation/amap_location_fluttify/latest/amap_location_fluttify/AMapLocationErrorCode.html)
/// - AMap, Android: `AMapLocation.getErrorCode()`, https://lbs.amap.com/api/android-location-sdk/abouterrorcode/
///   (and the constants' names: https://pub.dev/documentation/fl_amap/latest/fl_amap/AMapLocationError-class.html)
/// - CoreLocation: `CLError.Code` (`CLError.h`), https://developer.apple.com/documentation/corelocation/clerror/code
///
/// Choices where the SDK code does not say it plainly:
/// - Tencent iOS 3 (heading failure) is `locate_failed`; Tencent iOS 4 ("other") is `unknown`.
/// - Tencent Android 2 (`ERROR_BAD_JSON`: no GPS, Wi-Fi or cell evidence, which the documentation says may also be a
///   switch or a permission turned off) is `locate_failed`; Android 4 (no WGS-84 to GCJ-02 conversion) too.
/// - AMap iOS 7 (bad URL) is `network`: it is raised by the SDK's network layer, like 6, 8 and 9, and the apps
///   report all of them as a network fault.
/// - AMap iOS 10 and CoreLocation's region-monitoring, deferred-update and ranging failures are
///   `locate_failed`.
/// - AMap Android 3 (request parameters empty; "check the network") and 5 (request hijacked, answer unreadable) are
///   `network`; 18 (airplane mode, Wi-Fi off) and 19 (no SIM, Wi-Fi off) are `network` too: network location had
///   no network. 20 (failure under the approximate-location permission) is `no_full_accuracy`.
/// - AMap Android 1 (null parameters), 7 (key authentication), 8 (Android exception) and 10 (service not started):
///   faults of the app or the SDK, `unknown`.
/// - CoreLocation 9 (partial geocode result) is `reverse_geocode_failed`.
/// - AMap Android 16 (no geofence for a search) is left out: the apps use no geofences.
/// - `ip` and `manual` have no catalogue: every code is `unknown`.
public enum ProviderErrorCatalogue {
    /// The category of `code` for `provider` on `platform`; `unknown` for codes not in the catalogue, and for codes
    /// whose meaning differs between the platforms when `platform` is nil.
    public static func category(provider: Provider, platform: Platform?, code: Int) -> FailureCategory {
        if let entry = entry(provider: provider, platform: platform, code: code) { return entry.category }
        guard platform == nil, hasPlatformTables(provider) else { return .unknown }
        let categories = Set(Platform.allCases.map { entries[Key(provider: provider, platform: $0, code: code)]?.category })
        guard categories.count == 1, let shared = categories.first ?? nil else { return .unknown }
        return shared
    }

    /// A short description of `code` for `provider` on `platform`.
    public static func description(provider: Provider, platform: Platform?, code: Int) -> String {
        if let entry = entry(provider: provider, platform: platform, code: code) { return entry.description }
        if platform == nil, hasPlatformTables(provider) {
            return "\(provider.rawValue) error code \(code) on an unknown platform"
        }
        return "unknown \(provider.rawValue)\(platform.map { " \($0.rawValue)" } ?? "") error code \(code)"
    }

    /// The catalogue entry, or nil when the code is not known, or needs a platform that is not known.
    public static func entry(provider: Provider, platform: Platform?, code: Int) -> ProviderErrorEntry? {
        entries[Key(provider: provider, platform: hasPlatformTables(provider) ? platform : nil, code: code)]
    }

    /// Every known entry.
    public static var allEntries: [ProviderErrorEntry] {
        entries.values.sorted {
            ($0.provider.rawValue, Platform.text($0.platform), $0.code) < ($1.provider.rawValue, Platform.text($1.platform), $1.code)
        }
    }

    /// Whether `provider`'s SDK has a table for each platform (Tencent, AMap); CoreLocation has one.
    private static func hasPlatformTables(_ provider: Provider) -> Bool {
        provider == .tencent || provider == .amap
    }

    private struct Key: Hashable {
        let provider: Provider
        let platform: Platform?
        let code: Int

        func hash(into hasher: inout Hasher) {
            hasher.combine(case: provider)
            hasher.combine(case: platform)
            hasher.combine(code)
        }
    }

    private static let entries: [Key: ProviderErrorEntry] = {
        let table: [(Provider, Platform?, Int, String, FailureCategory, String)] = [
            (.tencent, .ios, 0, "TencentLBSLocationErrorUnknown", .unknown, "location currently unknown; the SDK keeps trying"),
            (.tencent, .ios, 1, "TencentLBSLocationErrorDenied", .permissionDenied, "location permission denied"),
            (.tencent, .ios, 2, "TencentLBSLocationErrorNetwork", .network, "network error"),
            (.tencent, .ios, 3, "TencentLBSLocationErrorHeadingFailure", .locateFailed, "heading could not be determined"),
            (.tencent, .ios, 4, "TencentLBSLocationErrorOther", .unknown, "other error"),

            (.tencent, .android, 1, "ERROR_NETWORK", .network, "location failed through a network problem"),
            (.tencent, .android, 2, "ERROR_BAD_JSON", .locateFailed, "no GPS, Wi-Fi or cell evidence (or location switched off)"),
            (.tencent, .android, 4, "ERROR_WGS84", .locateFailed, "WGS-84 could not be converted to GCJ-02"),
            (.tencent, .android, 404, "ERROR_UNKNOWN", .unknown, "location failed for an unknown reason"),

            (.amap, .ios, 1, "AMapLocationErrorUnknown", .unknown, "unknown error"),
            (.amap, .ios, 2, "AMapLocationErrorLocateFailed", .locateFailed, "locating failed"),
            (.amap, .ios, 3, "AMapLocationErrorReGeocodeFailed", .reverseGeocodeFailed, "reverse geocoding failed"),
            (.amap, .ios, 4, "AMapLocationErrorTimeOut", .timeout, "timed out"),
            (.amap, .ios, 5, "AMapLocationErrorCanceled", .canceled, "canceled"),
            (.amap, .ios, 6, "AMapLocationErrorCannotFindHost", .network, "cannot find host"),
            (.amap, .ios, 7, "AMapLocationErrorBadURL", .network, "bad URL"),
            (.amap, .ios, 8, "AMapLocationErrorNotConnectedToInternet", .network, "not connected to the internet"),
            (.amap, .ios, 9, "AMapLocationErrorCannotConnectToHost", .network, "cannot connect to host"),
            (.amap, .ios, 10, "AMapLocationErrorRegionMonitoringFailure", .locateFailed, "region monitoring failed"),
            (.amap, .ios, 11, "AMapLocationErrorRiskOfFakeLocation", .fakeLocationRisk, "risk of a fake (simulated) location"),
            (.amap, .ios, 12, "AMapLocationErrorNoFullAccuracyAuth", .noFullAccuracy, "no full-accuracy (precise) authorisation"),

            (.amap, .android, 1, "ERROR_CODE_INVALID_PARAMETER", .unknown, "a required parameter is null"),
            (.amap, .android, 2, "ERROR_CODE_FAILURE_WIFI_INFO", .locateFailed, "a single Wi-Fi access point and no cell seen"),
            (.amap, .android, 3, "ERROR_CODE_FAILURE_LOCATION_PARAMETER", .network, "the request's parameters are empty"),
            (.amap, .android, 4, "ERROR_CODE_FAILURE_CONNECTION", .network, "the request to the server failed: poor network"),
            (.amap, .android, 5, "ERROR_CODE_FAILURE_PARSER", .network, "the request was hijacked; the answer cannot be read"),
            (.amap, .android, 6, "ERROR_CODE_FAILURE_LOCATION", .locateFailed, "the location service answered a failure"),
            (.amap, .android, 7, "ERROR_CODE_FAILURE_AUTH", .unknown, "key authentication failed"),
            (.amap, .android, 8, "ERROR_CODE_UNKNOWN", .unknown, "Android exception"),
            (.amap, .android, 9, "ERROR_CODE_FAILURE_INIT", .locateFailed, "location failed to initialise"),
            (.amap, .android, 10, "ERROR_CODE_SERVICE_FAIL", .unknown, "the location service did not start"),
            (.amap, .android, 11, "ERROR_CODE_FAILURE_CELL", .locateFailed, "bad cell information"),
            (.amap, .android, 12, "ERROR_CODE_FAILURE_LOCATION_PERMISSION", .permissionDenied, "location permission missing"),
            (.amap, .android, 13, "ERROR_CODE_FAILURE_NOWIFIANDAP", .locateFailed, "no Wi-Fi list, no cell and no GPS"),
            (.amap, .android, 14, "ERROR_CODE_FAILURE_NOENOUGHSATELLITES", .locateFailed, "GPS failed: too few satellites"),
            (.amap, .android, 15, "ERROR_CODE_FAILURE_SIMULATION_LOCATION", .fakeLocationRisk, "the location is simulated"),
            (.amap, .android, 18, "ERROR_CODE_AIRPLANEMODE_WIFIOFF", .network, "airplane mode with Wi-Fi off"),
            (.amap, .android, 19, "ERROR_CODE_NOCGI_WIFIOFF", .network, "no SIM card and Wi-Fi off"),
            (.amap, .android, 20, "ERROR_CODE_FAILURE_COARSE_LOCATION", .noFullAccuracy, "failed under the approximate-location permission"),

            (.apple, nil, 0, "kCLErrorLocationUnknown", .locateFailed, "location currently unknown"),
            (.apple, nil, 1, "kCLErrorDenied", .permissionDenied, "access to location denied by the user"),
            (.apple, nil, 2, "kCLErrorNetwork", .network, "network error"),
            (.apple, nil, 3, "kCLErrorHeadingFailure", .locateFailed, "heading could not be determined"),
            (.apple, nil, 4, "kCLErrorRegionMonitoringDenied", .permissionDenied, "region monitoring denied by the user"),
            (.apple, nil, 5, "kCLErrorRegionMonitoringFailure", .locateFailed, "a region cannot be monitored"),
            (.apple, nil, 6, "kCLErrorRegionMonitoringSetupDelayed", .locateFailed, "region monitoring could not be set up immediately"),
            (.apple, nil, 7, "kCLErrorRegionMonitoringResponseDelayed", .locateFailed, "region monitoring events delayed"),
            (.apple, nil, 8, "kCLErrorGeocodeFoundNoResult", .reverseGeocodeFailed, "geocoding found no result"),
            (.apple, nil, 9, "kCLErrorGeocodeFoundPartialResult", .reverseGeocodeFailed, "geocoding found only a partial result"),
            (.apple, nil, 10, "kCLErrorGeocodeCanceled", .canceled, "geocoding canceled"),
            (.apple, nil, 11, "kCLErrorDeferredFailed", .locateFailed, "deferred updates failed"),
            (.apple, nil, 12, "kCLErrorDeferredNotUpdatingLocation", .locateFailed, "deferred updates while not updating location"),
            (.apple, nil, 13, "kCLErrorDeferredAccuracyTooLow", .locateFailed, "deferred updates need higher accuracy"),
            (.apple, nil, 14, "kCLErrorDeferredDistanceFiltered", .locateFailed, "deferred updates with a distance filter"),
            (.apple, nil, 15, "kCLErrorDeferredCanceled", .canceled, "deferred updates canceled"),
            (.apple, nil, 16, "kCLErrorRangingUnavailable", .locateFailed, "ranging unavailable"),
            (.apple, nil, 17, "kCLErrorRangingFailure", .locateFailed, "ranging failed"),
            (.apple, nil, 18, "kCLErrorPromptDeclined", .permissionDenied, "temporary precise location declined by the user"),
            (.apple, nil, 19, "kCLErrorHistoricalLocationError", .locateFailed, "historical location unavailable"),
        ]
        var entries: [Key: ProviderErrorEntry] = [:]
        for (provider, platform, code, name, category, description) in table {
            entries[Key(provider: provider, platform: platform, code: code)] = ProviderErrorEntry(
                provider: provider, platform: platform, code: code, name: name, category: category, description: description)
        }
        return entries
    }()
}
