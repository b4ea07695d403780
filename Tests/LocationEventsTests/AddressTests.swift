import Foundation
import Testing
@testable import LocationEvents

/// An address keeps the parts the server reads; every part of the format is checked as sent.
@Suite("Addresses")
struct AddressTests {
    @Test("the province and the code read back as given, absent or empty alike; equal parts make equal addresses")
    func partsReadBack() {
        let address = Address(province: "", adcode: "310101")
        #expect(address.province == "" && address.adcode == "310101")
        #expect(Address().province == nil && Address().adcode == nil)
        var changed = address
        changed.province = "上海市"
        #expect(changed == Address(province: "上海市", adcode: "310101"))
        #expect(changed.hashValue == Address(province: "上海市", adcode: "310101").hashValue)
        #expect(address != changed && Address(province: "") != Address())
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
        #expect(read.body.fix?.address == Address(province: "上海市"))

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

    /// The parts the server does not keep are checked on their bytes in place, as the kept ones are on their text: the
    /// same errors, a limit in characters (not bytes), and a string with escapes read as its text.
    @Test("every part of an address and an actor, kept or not, is refused by its path when not a string or too long", arguments: [
        ("fix.address", AddressMember.names, ValidationLimits().maximumAddressFieldLength),
        ("actor", ActorMember.names.filter { $0 != "platform" }, ValidationLimits().maximumActorFieldLength),
    ])
    func everyPartIsChecked(object: String, names: [String], limit: Int) throws {
        let validator = SubmissionValidator()
        func errors(_ name: String, _ text: String) -> [String] {
            // The value spliced in as text, so that it may hold escapes.
            let base = String(decoding: SubmissionFixtures.submission(.merchantAddressFixed)
                .setting("\(object).\(name)", .string("PLACEHOLDER")).canonicalData(), as: UTF8.self)
            let submission = Data(base.replacingOccurrences(of: "\"PLACEHOLDER\"", with: text).utf8)
            switch validator.validate(submission, now: SubmissionFixtures.now) {
            case .success: return []
            case .failure(let failure): return failure.errors.map { "\($0.field) \($0.code)" }
            }
        }
        for name in names {
            let path = "\(object).\(name)"
            #expect(errors(name, "12") == ["\(path) \(ValidationCode.wrongType.rawValue)"], "\(path)")
            #expect(errors(name, "null") == [], "\(path)")
            // Three bytes a character: at the limit in characters, three times over it in bytes.
            // (At the limit, an adcode is taken as a string and refused for not being six digits.)
            let tooLong = "\(path) \(ValidationCode.tooLong.rawValue)"
            let taken = { (errors: [String]) in errors.allSatisfy { $0 == "fix.address.adcode \(ValidationCode.invalidAdcode.rawValue)" } }
            #expect(taken(errors(name, "\"" + String(repeating: "市", count: limit) + "\"")), "\(path)")
            #expect(errors(name, "\"" + String(repeating: "市", count: limit + 1) + "\"") == [tooLong], "\(path)")
            #expect(taken(errors(name, "\"" + String(repeating: "\\u5e02", count: limit) + "\"")), "\(path)")
            #expect(errors(name, "\"" + String(repeating: "\\u5e02", count: limit + 1) + "\"") == [tooLong], "\(path)")
            #expect(errors(name, "\"" + String(repeating: "a", count: limit + 1) + "\"") == [tooLong], "\(path)")
        }
    }
}
