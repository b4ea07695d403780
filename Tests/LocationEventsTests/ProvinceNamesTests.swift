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
