import Testing
@testable import LocationEvents

@Suite struct AccuracyPolicyTests {
    let policy = AccuracyPolicy()

    @Test(arguments: [
        (AccuracyAuthorization?.some(.full), 5.0, AccuracyClass.precise),
        (.full, 100, .precise),
        (.full, 100.5, .approximate),
        (.full, 3000, .approximate),
        (.full, 3001, .unusable),
        (.reduced, 5, .approximate),
        (.reduced, 50, .approximate),
        (.reduced, 5000, .approximate),
        (.reduced, 20_000, .approximate),
        (.reduced, 20_001, .unusable),
        (.unknown, 10, .approximate),
        (nil, 10, .approximate),
        (.unknown, 3000, .approximate),
        (nil, 3001, .unusable),
        (.full, 0, .unusable),
        (.full, -1, .unusable),
        (.full, .nan, .unusable),
        (.full, .infinity, .unusable),
    ])
    func defaults(authorization: AccuracyAuthorization?, metres: Double, expected: AccuracyClass) {
        #expect(policy.classify(horizontalAccuracy: metres, authorization: authorization) == expected)
    }

    @Test func reducedIsNeverPrecise() {
        for metres in [0.1, 1, 10, 65, 100] {
            #expect(policy.classify(horizontalAccuracy: metres, authorization: .reduced) == .approximate)
        }
    }

    @Test func thresholdsAreConfigurable() {
        let strict = AccuracyPolicy(preciseMetres: 20, approximateMetres: 500, reducedMaximumMetres: 1000)
        #expect(strict.classify(horizontalAccuracy: 35, authorization: .full) == .approximate)
        #expect(strict.classify(horizontalAccuracy: 600, authorization: .full) == .unusable)
        #expect(strict.classify(horizontalAccuracy: 1500, authorization: .reduced) == .unusable)
    }
}
