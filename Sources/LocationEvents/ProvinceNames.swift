import Foundation
import Geo

/// Recognises the region a reverse-geocoded province name belongs to, in Chinese (simplified or traditional)
/// or English (pinyin or common English names), with or without suffixes such as 省, 市, 自治区, Province, SAR.
enum ProvinceNames {
    /// The region the name denotes, or nil when it names no province-level division of China.
    static func region(of name: String) -> Region? {
        // Foundation's trimming bridges to NSString: only pay for it when an end is white space.
        let padded = isWhiteSpace(name.unicodeScalars.first) || isWhiteSpace(name.unicodeScalars.last)
        let trimmed = padded ? name.trimmingCharacters(in: .whitespacesAndNewlines) : name
        guard !trimmed.isEmpty else { return nil }
        if let region = chinese(trimmed) { return region }
        return english(trimmed)
    }

    /// Whether the scalar is white space (`Unicode.Scalar.Properties.isWhitespace`). ASCII and the CJK ideographs,
    /// which names mostly start and end with, are told apart without looking up the property, which cost more than
    /// recognising the name.
    static func isWhiteSpace(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        if scalar.isASCII { return scalar == " " || (0x09...0x0D).contains(scalar.value) }
        if (0x4E00...0x9FFF).contains(scalar.value) { return false }
        return scalar.properties.isWhitespace
    }

    /// Compares UTF-8 bytes: `String.hasPrefix` is Unicode-aware and far slower, and these stems need no
    /// normalisation.
    private static func chinese(_ name: String) -> Region? {
        var name = name
        return name.withUTF8 { whole in
            // "中国台湾", "中國香港": Apple sometimes prefixes the country.
            var bytes = whole[...]
            if let prefix = countryPrefixes.first(where: { bytes.starts(with: $0) }) {
                bytes = bytes.dropFirst(prefix.count)
            }
            // The one stem that can match is the one whose first two characters the name starts with.
            guard let head = stemHead(bytes), let candidate = chineseStemsByHead[head], bytes.starts(with: candidate.stem) else {
                return nil
            }
            return candidate.region
        }
    }

    /// The first six bytes, two Chinese characters, as one number; nil for fewer.
    private static func stemHead(_ bytes: some Collection<UInt8>) -> UInt64? {
        guard bytes.count >= 6 else { return nil }
        return bytes.prefix(6).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// ``chineseStems`` by their first two characters: every stem is two or three characters long, and no two
    /// stems start with the same two, so none is the start of another either.
    private static let chineseStemsByHead: [UInt64: (stem: [UInt8], region: Region)] = {
        var byHead: [UInt64: (stem: [UInt8], region: Region)] = [:]
        for stem in chineseStems {
            let head = stemHead(stem.stem)!
            precondition(byHead[head] == nil, "two province stems start alike")
            byHead[head] = stem
        }
        return byHead
    }()

    private static let countryPrefixes: [[UInt8]] = ["中华人民共和国", "中華人民共和國", "中国", "中國"].map { Array($0.utf8) }

    static let chineseStems: [(stem: [UInt8], region: Region)] =
        [("香港", Region.hongKong), ("澳门", .macau), ("澳門", .macau), ("台湾", .taiwan), ("台灣", .taiwan),
         ("臺灣", .taiwan), ("臺湾", .taiwan)].map { (Array($0.0.utf8), $0.1) }
        + mainlandChinese.map { (Array($0.utf8), Region.mainland) }

    private static func english(_ name: String) -> Region? {
        let letters = String(name.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) }.map(Character.init))
        var key = Substring(letters)
        for prefix in ["peoplesrepublicofchina", "china"] where key.hasPrefix(prefix) && key.count > prefix.count {
            key = key.dropFirst(prefix.count)
            break
        }
        if key.hasPrefix("hongkong") || key.hasPrefix("xianggang") { return .hongKong }
        if key.hasPrefix("macau") || key.hasPrefix("macao") || key.hasPrefix("aomen") { return .macau }
        if key.hasPrefix("taiwan") { return .taiwan }
        if mainlandEnglish.contains(where: key.hasPrefix) { return .mainland }
        return nil
    }

    /// The stems of the 31 mainland province-level divisions, simplified and traditional.
    private static let mainlandChinese: [String] = [
        "北京", "天津", "河北", "山西", "内蒙古", "內蒙古", "辽宁", "遼寧", "吉林", "黑龙江", "黑龍江",
        "上海", "江苏", "江蘇", "浙江", "安徽", "福建", "江西", "山东", "山東", "河南", "湖北", "湖南",
        "广东", "廣東", "广西", "廣西", "海南", "重庆", "重慶", "四川", "贵州", "貴州", "云南", "雲南",
        "西藏", "陕西", "陝西", "甘肃", "甘肅", "青海", "宁夏", "寧夏", "新疆",
    ]

    /// The same in pinyin and English, letters only, lower case.
    private static let mainlandEnglish: [String] = [
        "beijing", "tianjin", "hebei", "shanxi", "shaanxi", "innermongolia", "neimenggu", "neimongol",
        "liaoning", "jilin", "heilongjiang", "shanghai", "jiangsu", "zhejiang", "anhui", "fujian", "jiangxi",
        "shandong", "henan", "hubei", "hunan", "guangdong", "guangxi", "hainan", "chongqing", "sichuan",
        "guizhou", "yunnan", "tibet", "xizang", "gansu", "qinghai", "ningxia", "xinjiang",
    ]
}
