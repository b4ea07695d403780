import Testing
@testable import LocationEvents

/// ``Hasher/combine(case:)``: the keys of the summaries and of the error catalogue hash their values of the
/// vocabulary by case; a hash that told equal values apart, or fed every case the same, would break or slow them.
@Suite("Values of the vocabulary hashed by case")
struct HashedByCaseTests {
    private func hash<Value>(_ value: Value) -> Int {
        var hasher = Hasher()
        hasher.combine(case: value)
        return hasher.finalize()
    }

    @Test("equal values hash alike, and every case of an enum, and none, feeds a byte of its own")
    func casesApart() {
        for provider in Provider.allCases {
            #expect(hash(provider) == hash(Provider(rawValue: provider.rawValue)!))
        }
        #expect(Set(Provider.allCases.map(hash)).count == Provider.allCases.count)
        #expect(Set(AccuracyClass.allCases.map(hash)).count == AccuracyClass.allCases.count)
        #expect(Set(AccuracyAuthorization.allCases.map(hash)).count == AccuracyAuthorization.allCases.count)
        let platforms: [Platform?] = [nil] + Platform.allCases.map(Optional.some)
        #expect(Set(platforms.map(hash)).count == platforms.count)
        #expect(withUnsafeBytes(of: Platform?.none) { Array($0) } != withUnsafeBytes(of: Platform?.some(.ios)) { Array($0) })
    }
}
