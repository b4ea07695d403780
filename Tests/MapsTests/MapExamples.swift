import Foundation
import Geo
import Maps

/// Example pictures, close to what the terminal-drift report and a history draw. Set GEOLEDGER_MAP_EXAMPLES to a
/// directory and run the MapExamplesTests to write them there as SVG files, to look at.
enum MapExamples {
    static let merchant = Coordinate(latitude: 22.54310, longitude: 114.05790)  // Futian, Shenzhen

    /// A merchant in Shenzhen with three terminals, one of them 3 km away, each joined to it by a line.
    static func shenzhenMerchant() -> MapPicture {
        let terminals = [
            ("T-1001", Coordinate(latitude: 22.54360, longitude: 114.05830)),
            ("T-1002", Coordinate(latitude: 22.54180, longitude: 114.05610)),
            ("T-1003", Coordinate(latitude: 22.57008, longitude: 114.05790)),  // 3 km north
        ]
        var marks = [MapPicture.Mark(merchant, kind: .merchantAddress, label: "M-88 Futian Noodles")]
        var lines: [MapPicture.Line] = []
        for (id, position) in terminals {
            let distance = MapRenderer.distanceText(position.distance(to: merchant))
            marks.append(MapPicture.Mark(position, kind: .terminal, label: id,
                                         title: "\(id): latest precise fix \(distance) from the address of M-88"))
            lines.append(MapPicture.Line(from: position, to: merchant))
        }
        return MapPicture(title: "Terminals of merchant M-88 and their distance to its address", marks: marks, lines: lines,
                          lineLegend: "terminal to its merchant")
    }

    /// A terminal's fixes on both sides of the Hong Kong–Shenzhen border, of every quality.
    static func borderHistory() -> MapPicture {
        let fixes: [(Coordinate, MapPicture.Kind, String)] = [
            (Coordinate(latitude: 22.53290, longitude: 114.11780), .preciseFix, "2026-11-30 09:12 tencent 12 m"),
            (Coordinate(latitude: 22.51450, longitude: 114.06610), .preciseFix, "2026-11-29 17:40 amap 20 m"),
            (Coordinate(latitude: 22.50130, longitude: 114.12790), .preciseFix, "2026-11-28 10:05 apple 8 m (Sheung Shui)"),
            (Coordinate(latitude: 22.48000, longitude: 114.01000), .approximateFix, "2026-11-27 14:00 apple 1.2 km reduced"),
            (Coordinate(latitude: 22.58000, longitude: 114.17000), .unusableFix, "2026-11-26 08:30 ip 8 km 深圳市罗湖区"),
        ]
        let marks = fixes.map { MapPicture.Mark($0.0, kind: $0.1, label: $0.2, title: "\($0.2), \($0.1.legendText)") }
            + [MapPicture.Mark(Coordinate(latitude: 22.54500, longitude: 114.09500), kind: .merchantAddress, label: "M-17 <Luohu> & Sons")]
        return MapPicture(title: "History of terminal T-2002", marks: marks)
    }

    /// Ten thousand fixes scattered over the Pearl River Delta, a label each.
    static func manyFixes(count: Int = 10_000) -> MapPicture {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let kinds: [MapPicture.Kind] = [.preciseFix, .approximateFix, .unusableFix]
        let marks = (0..<count).map { i in
            MapPicture.Mark(Coordinate(latitude: 22.1 + next() * 0.8, longitude: 113.5 + next() * 1.0),
                            kind: kinds[i % 3], label: "fix \(i)", title: "fix \(i)")
        }
        return MapPicture(title: "\(count) fixes", marks: marks)
    }

    /// Three fixes at the ends of the country: the outlines of every region and of the neighbours, simplified.
    static func countryWide() -> MapPicture {
        MapPicture(marks: [
            MapPicture.Mark(Coordinate(latitude: 45.75, longitude: 126.63), kind: .preciseFix, label: "Harbin"),
            MapPicture.Mark(Coordinate(latitude: 18.25, longitude: 109.5), kind: .approximateFix, label: "Sanya"),
            MapPicture.Mark(Coordinate(latitude: 39.47, longitude: 75.99), kind: .unusableFix, label: "Kashgar"),
        ])
    }

    static let all: [(name: String, picture: MapPicture)] = [
        ("country-wide", countryWide()),
        ("shenzhen-merchant", shenzhenMerchant()),
        ("border-history", borderHistory()),
        ("many-fixes", manyFixes()),
    ]
}
