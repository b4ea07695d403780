import Testing
@testable import LocationEvents

@Suite struct ProviderErrorCatalogueTests {
    @Test(arguments: ProviderErrorFixtures.table)
    func mapping(provider: Provider, platform: Platform?, code: Int, category: FailureCategory) throws {
        // CoreLocation's codes are Apple's alone: the same whatever platform the actor names.
        for platform in provider == .apple ? [nil, .ios, .android] : [platform] {
            #expect(ProviderErrorCatalogue.category(provider: provider, platform: platform, code: code) == category)
            let entry = try #require(ProviderErrorCatalogue.entry(provider: provider, platform: platform, code: code))
            #expect(!entry.name.isEmpty)
            #expect(ProviderErrorCatalogue.description(provider: provider, platform: platform, code: code) == entry.description)
        }
    }

    @Test(arguments: ProviderErrorFixtures.unknownCodes)
    func unknownCodes(provider: Provider, platform: Platform?, code: Int) {
        #expect(ProviderErrorCatalogue.category(provider: provider, platform: platform, code: code) == .unknown)
        #expect(ProviderErrorCatalogue.entry(provider: provider, platform: platform, code: code) == nil)
        #expect(ProviderErrorCatalogue.description(provider: provider, platform: platform, code: code).contains("\(code)"))
    }

    @Test("the same code on Android and on iOS lands in different categories")
    func platformsDiffer() {
        #expect(ProviderErrorCatalogue.category(provider: .tencent, platform: .android, code: 1) == .network)
        #expect(ProviderErrorCatalogue.category(provider: .tencent, platform: .ios, code: 1) == .permissionDenied)
        #expect(ProviderErrorCatalogue.category(provider: .amap, platform: .android, code: 12) == .permissionDenied)
        #expect(ProviderErrorCatalogue.category(provider: .amap, platform: .ios, code: 12) == .noFullAccuracy)
    }

    @Test("an unknown platform gives unknown where the platforms disagree, and the shared answer where they agree")
    func unknownPlatform() {
        #expect(ProviderErrorCatalogue.category(provider: .tencent, platform: nil, code: 1) == .unknown)
        #expect(ProviderErrorCatalogue.category(provider: .amap, platform: nil, code: 12) == .unknown)
        #expect(ProviderErrorCatalogue.category(provider: .amap, platform: nil, code: 4) == .unknown)
        #expect(ProviderErrorCatalogue.entry(provider: .amap, platform: nil, code: 4) == nil)
        #expect(ProviderErrorCatalogue.description(provider: .amap, platform: nil, code: 4) == "amap error code 4 on an unknown platform")
        // AMap 2 is a failure to locate on both.
        #expect(ProviderErrorCatalogue.category(provider: .amap, platform: nil, code: 2) == .locateFailed)
        // Codes only one platform defines are no answer either.
        #expect(ProviderErrorCatalogue.category(provider: .amap, platform: nil, code: 15) == .unknown)
        #expect(ProviderErrorCatalogue.category(provider: .apple, platform: nil, code: 1) == .permissionDenied)
    }

    @Test("the platform comes from actor.os in any case, and an explicit platform goes first",
          arguments: [
            ("iOS 17.2", nil, Platform.ios), ("ios 14", nil, .ios), ("IPADOS 17.1", nil, .ios), ("iPhone OS 9.3", nil, .ios), ("Android 13", nil, .android),
            ("android 10.0", nil, .android), ("  ANDROID 7", nil, .android), ("HarmonyOS 4", nil, nil), ("", nil, nil),
            (nil, nil, nil), ("iOS 17.2", .android, .android), ("Android 13", .ios, .ios), (nil, .ios, .ios),
            // Tabs and Unicode's space separators are skipped, other white space is not; case is Unicode's.
            ("\tiOS 17", nil, .ios), ("\u{3000}Android 13", nil, .android), ("\u{A0}ipados 17", nil, .ios),
            ("\nAndroid 13", nil, nil), ("\r\niOS 17", nil, nil), ("Ａndroid 13", nil, nil), ("ANDROİD 13", nil, nil),
            ("ios\u{301} 17", nil, nil), ("iphone\u{A0}os 9", nil, nil), ("andro", nil, nil), ("iphone", nil, nil),
          ] as [(String?, Platform?, Platform?)])
    func platformOf(os: String?, explicit: Platform?, expected: Platform?) {
        #expect(Platform.of(explicit: explicit, os: os) == expected)
        #expect(Actor(os: os, platform: explicit).resolvedPlatform == expected)
    }

    @Test func theCatalogueHoldsExactlyTheFixtureTable() {
        let catalogue = ProviderErrorCatalogue.allEntries.map { "\($0.provider.rawValue) \(Platform.text($0.platform)) \($0.code)" }
        let fixtures = ProviderErrorFixtures.table.map { "\($0.0.rawValue) \(Platform.text($0.1)) \($0.2)" }
        #expect(Set(catalogue) == Set(fixtures))
        #expect(catalogue.count == fixtures.count)
    }

    @Test func categoriesUseSnakeCaseRawValues() {
        #expect(FailureCategory.allCases.map(\.rawValue) == [
            "permission_denied", "network", "timeout", "locate_failed", "reverse_geocode_failed", "canceled",
            "fake_location_risk", "no_full_accuracy", "unknown",
        ])
    }
}
