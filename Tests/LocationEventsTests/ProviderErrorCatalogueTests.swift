import Testing
@testable import LocationEvents

@Suite struct ProviderErrorCatalogueTests {
    @Test(arguments: ProviderErrorFixtures.table)
    func mapping(provider: Provider, code: Int, category: FailureCategory) throws {
        #expect(ProviderErrorCatalogue.category(provider: provider, code: code) == category)
        let entry = try #require(ProviderErrorCatalogue.entry(provider: provider, code: code))
        #expect(!entry.name.isEmpty)
        #expect(ProviderErrorCatalogue.description(provider: provider, code: code) == entry.description)
    }

    @Test(arguments: ProviderErrorFixtures.unknownCodes)
    func unknownCodes(provider: Provider, code: Int) {
        #expect(ProviderErrorCatalogue.category(provider: provider, code: code) == .unknown)
        #expect(ProviderErrorCatalogue.entry(provider: provider, code: code) == nil)
        #expect(ProviderErrorCatalogue.description(provider: provider, code: code).contains("\(code)"))
    }

    @Test func theCatalogueHoldsExactlyTheFixtureTable() {
        let catalogue = ProviderErrorCatalogue.allEntries.map { "\($0.provider.rawValue) \($0.code)" }
        let fixtures = ProviderErrorFixtures.table.map { "\($0.0.rawValue) \($0.1)" }
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
