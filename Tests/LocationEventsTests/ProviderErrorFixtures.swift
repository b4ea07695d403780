@testable import LocationEvents

/// Every SDK error code with the category it must map to, from the SDK headers
/// (TencentLBSLocationError, AMapLocationErrorCode, CLError.h).
enum ProviderErrorFixtures {
    static let table: [(Provider, Int, FailureCategory)] = [
        (.tencent, 0, .unknown), (.tencent, 1, .permissionDenied), (.tencent, 2, .network),
        (.tencent, 3, .locateFailed), (.tencent, 4, .unknown),

        (.amap, 1, .unknown), (.amap, 2, .locateFailed), (.amap, 3, .reverseGeocodeFailed), (.amap, 4, .timeout),
        (.amap, 5, .canceled), (.amap, 6, .network), (.amap, 7, .network), (.amap, 8, .network), (.amap, 9, .network),
        (.amap, 10, .locateFailed), (.amap, 11, .fakeLocationRisk), (.amap, 12, .noFullAccuracy),

        (.apple, 0, .locateFailed), (.apple, 1, .permissionDenied), (.apple, 2, .network), (.apple, 3, .locateFailed),
        (.apple, 4, .permissionDenied), (.apple, 5, .locateFailed), (.apple, 6, .locateFailed), (.apple, 7, .locateFailed),
        (.apple, 8, .reverseGeocodeFailed), (.apple, 9, .reverseGeocodeFailed), (.apple, 10, .canceled),
        (.apple, 11, .locateFailed), (.apple, 12, .locateFailed), (.apple, 13, .locateFailed), (.apple, 14, .locateFailed),
        (.apple, 15, .canceled), (.apple, 16, .locateFailed), (.apple, 17, .locateFailed), (.apple, 18, .permissionDenied),
        (.apple, 19, .locateFailed),
    ]

    /// Codes no SDK defines.
    static let unknownCodes: [(Provider, Int)] = [
        (.tencent, 5), (.tencent, -1), (.amap, 0), (.amap, 13), (.apple, 20), (.apple, -1000),
        (.ip, 1), (.manual, 0),
    ]
}
