@testable import LocationEvents

/// Every SDK error code with the category it must map to, from the SDKs' documentation (see
/// `ProviderErrorCatalogue` for the sources): TencentLBSLocationError and TencentLocation.ERROR_*,
/// AMapLocationErrorCode and AMapLocation.getErrorCode(), CLError.h.
enum ProviderErrorFixtures {
    static let table: [(Provider, Platform?, Int, FailureCategory)] = [
        (.tencent, .ios, 0, .unknown), (.tencent, .ios, 1, .permissionDenied), (.tencent, .ios, 2, .network),
        (.tencent, .ios, 3, .locateFailed), (.tencent, .ios, 4, .unknown),

        (.tencent, .android, 1, .network), (.tencent, .android, 2, .locateFailed), (.tencent, .android, 4, .locateFailed),
        (.tencent, .android, 404, .unknown),

        (.amap, .ios, 1, .unknown), (.amap, .ios, 2, .locateFailed), (.amap, .ios, 3, .reverseGeocodeFailed),
        (.amap, .ios, 4, .timeout), (.amap, .ios, 5, .canceled), (.amap, .ios, 6, .network), (.amap, .ios, 7, .network),
        (.amap, .ios, 8, .network), (.amap, .ios, 9, .network), (.amap, .ios, 10, .locateFailed),
        (.amap, .ios, 11, .fakeLocationRisk), (.amap, .ios, 12, .noFullAccuracy),

        (.amap, .android, 1, .unknown), (.amap, .android, 2, .locateFailed), (.amap, .android, 3, .network),
        (.amap, .android, 4, .network), (.amap, .android, 5, .network), (.amap, .android, 6, .locateFailed),
        (.amap, .android, 7, .unknown), (.amap, .android, 8, .unknown), (.amap, .android, 9, .locateFailed),
        (.amap, .android, 10, .unknown), (.amap, .android, 11, .locateFailed), (.amap, .android, 12, .permissionDenied),
        (.amap, .android, 13, .locateFailed), (.amap, .android, 14, .locateFailed), (.amap, .android, 15, .fakeLocationRisk),
        (.amap, .android, 18, .network), (.amap, .android, 19, .network), (.amap, .android, 20, .noFullAccuracy),

        (.apple, nil, 0, .locateFailed), (.apple, nil, 1, .permissionDenied), (.apple, nil, 2, .network),
        (.apple, nil, 3, .locateFailed), (.apple, nil, 4, .permissionDenied), (.apple, nil, 5, .locateFailed),
        (.apple, nil, 6, .locateFailed), (.apple, nil, 7, .locateFailed), (.apple, nil, 8, .reverseGeocodeFailed),
        (.apple, nil, 9, .reverseGeocodeFailed), (.apple, nil, 10, .canceled), (.apple, nil, 11, .locateFailed),
        (.apple, nil, 12, .locateFailed), (.apple, nil, 13, .locateFailed), (.apple, nil, 14, .locateFailed),
        (.apple, nil, 15, .canceled), (.apple, nil, 16, .locateFailed), (.apple, nil, 17, .locateFailed),
        (.apple, nil, 18, .permissionDenied), (.apple, nil, 19, .locateFailed),
    ]

    /// Codes no SDK defines on that platform.
    static let unknownCodes: [(Provider, Platform?, Int)] = [
        (.tencent, .ios, 5), (.tencent, .ios, -1), (.tencent, .android, 3), (.tencent, .android, 0), (.amap, .ios, 0),
        (.amap, .ios, 13), (.amap, .android, 0), (.amap, .android, 16), (.apple, nil, 20), (.apple, .ios, -1000),
        (.ip, .android, 1), (.manual, nil, 0), (.tencent, nil, 99), (.amap, nil, 0),
    ]
}
