import Foundation
import JSON
import Testing
@testable import LocationEvents

@Suite struct SubmissionCodableTests {
    let validator = SubmissionValidator()

    @Test(arguments: EventType.allCases)
    func encodingIsTheSubmissionFormatAndValidatesBack(type: EventType) throws {
        let submission = try validator.validate(SubmissionFixtures.submission(type), now: SubmissionFixtures.now).get()
        let encoded = try JSONValue(encoding: submission)
        #expect(encoded == SubmissionFixtures.submission(type))
        #expect(try validator.validate(encoded, now: SubmissionFixtures.now).get() == submission)
        #expect(try JSONDecoder().decode(Submission.self, from: JSONEncoder().encode(submission)) == submission)
    }

    @Test func expectedVersionForms() throws {
        for (version, json) in [(ExpectedVersion.any, #""any""#), (.noStream, #""no_stream""#), (.exact(7), "7")] {
            let data = try JSONEncoder().encode([version])
            #expect(String(decoding: data, as: UTF8.self) == "[\(json)]")
            #expect(try JSONDecoder().decode([ExpectedVersion].self, from: data) == [version])
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ExpectedVersion].self, from: Data("[-1]".utf8)) }
    }

    @Test func eventIdIsWrittenInLowerCase() throws {
        let value = SubmissionFixtures.submission(.terminalUnbound).setting("eventId", .string("0B9C2A4E-3F1D-4A51-9A8E-5F7C1D2E3A40"))
        let submission = try validator.validate(value, now: SubmissionFixtures.now).get()
        #expect(try JSONValue(encoding: submission)["eventId"] == .string(SubmissionFixtures.eventId))
    }

    @Test func canonicalBytesOfTheDesignExample() throws {
        let submission = try validator.validate(SubmissionFixtures.submission(.merchantAddressFixed), now: SubmissionFixtures.now).get()
        let canonical = try JSONValue(encoding: submission).canonicalString()
        #expect(canonical == #"{"actor":{"app":"onboarding","appVersion":"5.2.0","deviceId":"A1B2","os":"iOS 17.2","userId":"sales-17"},"eventId":"0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40","fix":{"accuracyAuthorization":"full","address":{"adcode":"310101","city":"上海市","country":"中国","district":"黄浦区","formatted":"上海市黄浦区南京东路100号","poiName":"第一百货","province":"上海市","street":"南京东路","streetNumber":"100号"},"capturedAt":"2026-11-29T10:00:00+08:00","claimedInRegion":true,"datum":"gcj02","horizontalAccuracy":35,"lat":31.2304,"lon":121.4737,"provider":"amap"},"merchantId":"M0001","purpose":"onboarding","type":"MerchantAddressFixed"}"#)
    }
}
