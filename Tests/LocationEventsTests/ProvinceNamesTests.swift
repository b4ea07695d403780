import Geo
import Testing
@testable import LocationEvents

@Suite struct ProvinceNamesTests {
    @Test(arguments: [
        ("上海市", Region.mainland), ("广东省", .mainland), ("廣東省", .mainland), ("内蒙古自治区", .mainland),
        ("新疆维吾尔自治区", .mainland), ("西藏自治区", .mainland), ("黑龍江省", .mainland), ("重庆", .mainland),
        ("Guangdong", .mainland), ("Guangdong Sheng", .mainland), ("Beijing Shi", .mainland), ("Shaanxi", .mainland),
        ("Inner Mongolia", .mainland), ("Tibet Autonomous Region", .mainland), ("Xinjiang Uygur", .mainland),
        ("香港特别行政区", .hongKong), ("香港特別行政區", .hongKong), ("中国香港", .hongKong), ("Hong Kong", .hongKong),
        ("HongKong SAR", .hongKong), ("Hong Kong Special Administrative Region", .hongKong),
        ("澳门特别行政区", .macau), ("澳門", .macau), ("Macau", .macau), ("Macao SAR", .macau),
        ("台湾省", .taiwan), ("臺灣", .taiwan), ("中国台湾", .taiwan), ("Taiwan", .taiwan), ("Taiwan Province", .taiwan),
        (" 上海市\n", .mainland), ("\u{3000}香港", .hongKong), ("Macau\t", .macau),
    ])
    func recognised(name: String, region: Region) {
        #expect(ProvinceNames.region(of: name) == region)
    }

    /// The quick test of a name's ends for white space agrees with the Unicode property on every scalar it decides
    /// without it, and on the white space beyond ASCII.
    @Test func whiteSpaceIsTheUnicodeProperty() {
        let scalars = (0...0x7F).compactMap(Unicode.Scalar.init) + (0x4E00...0x9FFF).compactMap(Unicode.Scalar.init)
            + [0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0x3001, 0xFEFF].compactMap(Unicode.Scalar.init)
        for scalar in scalars {
            #expect(ProvinceNames.isWhiteSpace(scalar) == scalar.properties.isWhitespace, "U+\(String(scalar.value, radix: 16))")
        }
        #expect(!ProvinceNames.isWhiteSpace(nil))
    }

    /// Every stem is found, after a country prefix too and before any suffix; the start of a three-character stem
    /// is not one.
    @Test func everyChineseStem() {
        #expect(ProvinceNames.chineseStems.count == 51)
        for (stem, region) in ProvinceNames.chineseStems {
            let name = String(decoding: stem, as: UTF8.self)
            #expect(ProvinceNames.region(of: name) == region, "\(name)")
            #expect(ProvinceNames.region(of: name + "省") == region, "\(name)")
            #expect(ProvinceNames.region(of: "中华人民共和国" + name) == region, "\(name)")
        }
        #expect(ProvinceNames.region(of: "内蒙") == nil)
        #expect(ProvinceNames.region(of: "黑龙省") == nil)
        #expect(ProvinceNames.region(of: "中国") == nil)
    }

    @Test(arguments: ["", "  ", "California", "Tokyo", "中国", "China", "Seoul", "Singapore", "Bavaria"])
    func notRecognised(name: String) {
        #expect(ProvinceNames.region(of: name) == nil)
    }
}
