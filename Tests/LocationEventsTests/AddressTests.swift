import Foundation
import Testing
@testable import LocationEvents

/// An address keeps its parts; each reads back as given, absent or empty alike.
@Suite("Addresses")
struct AddressTests {
    @Test("each part reads back as given; an absent part is nil and an empty one empty")
    func partsReadBack() {
        let address = Address(
            country: "中国", province: "", city: "上海市", street: "南京东路 \u{0} \"x\"", poiName: "😀", adcode: "310101")
        #expect(address.country == "中国")
        #expect(address.province == "")
        #expect(address.city == "上海市")
        #expect(address.district == nil)
        #expect(address.street == "南京东路 \u{0} \"x\"")
        #expect(address.streetNumber == nil)
        #expect(address.poiName == "😀")
        #expect(address.formatted == nil)
        #expect(address.adcode == "310101")
        #expect(Address().country == nil && Address().adcode == nil)
    }

    @Test("setting a part changes it alone; addresses with the same parts are equal and hash alike however made")
    func settingParts() {
        var address = Address(country: "中国", province: "上海市", adcode: "310101")
        address.province = nil
        address.district = "黄浦区"
        address.adcode = "310102"
        let same = Address(country: "中国", district: "黄浦区", adcode: "310102")
        #expect(address == same)
        #expect(address.hashValue == same.hashValue)
        #expect(address.country == "中国" && address.province == nil && address.district == "黄浦区" && address.adcode == "310102")
        // The same text cut into other parts is another address.
        #expect(Address(country: "中国上海市") != Address(country: "中国", province: "上海市"))
        #expect(Address(country: "") != Address())
    }

    @Test("a submission's address parts are read as sent, escaped or not; a part over the limit is refused by its path")
    func validatedParts() throws {
        let validator = SubmissionValidator()
        let submission = SubmissionFixtures.submission(.merchantAddressFixed).setting("fix.address", .object([
            "province": .string("上海市"), "city": .string("黄浦"), "street": .string("a\"b\\c"), "formatted": .null,
        ]))
        // In the canonical text the quote and the backslash are escaped; the province is sent as \u escapes too.
        let text = String(decoding: submission.canonicalData(), as: UTF8.self)
            .replacingOccurrences(of: "上海市", with: "\\u4e0a\\u6d77\\u5e02")
        #expect(text.contains(#""province":"\u4e0a\u6d77\u5e02""#))
        guard case .success(let read) = validator.validate(Data(text.utf8), now: SubmissionFixtures.now) else {
            Issue.record("\(text) was refused")
            return
        }
        #expect(read.body.fix?.address == Address(province: "上海市", city: "黄浦", street: "a\"b\\c"))

        let long = String(repeating: "市", count: validator.limits.maximumAddressFieldLength + 1)
        let tooLong = SubmissionFixtures.submission(.merchantAddressFixed).setting("fix.address.city", .string(long))
        guard case .failure(let failure) = validator.validate(tooLong, now: SubmissionFixtures.now) else {
            Issue.record("an over-long city was taken")
            return
        }
        #expect(failure.errors.map(\.field) == ["fix.address.city"])
        #expect(failure.errors.map(\.code) == [ValidationCode.tooLong.rawValue])
        let atLimit = SubmissionFixtures.submission(.merchantAddressFixed)
            .setting("fix.address.city", .string(String(long.dropFirst())))
        #expect((try? validator.validate(atLimit, now: SubmissionFixtures.now).get()) != nil)
    }
}
