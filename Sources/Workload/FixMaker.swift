import Foundation
import Geo

/// Where a merchant really is (WGS-84), and the parts of its address that stay the same from fix to fix.
struct Site {
    let place: Place
    let position: Coordinate
    let street: String
    let number: Int
    let shopName: String

    /// The site of merchant `index`: a pure function of the seed, so a terminal re-bound to another merchant
    /// can be placed near it without keeping every merchant in memory.
    static func merchant(_ index: Int, seed: UInt64) -> Site {
        var random = SplitMix64(seed: seed, 2, UInt64(index))
        let place = Places.pick(&random)
        let position = Coordinate(latitude: place.latitude, longitude: place.longitude)
            .moved(north: random.gaussian() * place.spread, east: random.gaussian() * place.spread)
        return Site(
            place: place, position: position, street: Places.streets[random.below(Places.streets.count)],
            number: 1 + random.below(899),
            shopName: Places.shopNames[random.below(Places.shopNames.count)] + Places.shops[random.below(Places.shops.count)])
    }

    /// The same address elsewhere: an enterprise's office, or a shop that moved.
    func moved(metres: Double, random: inout SplitMix64) -> Site {
        let bearing = random.unit() * 2 * .pi
        return Site(place: place, position: position.moved(north: metres * cos(bearing), east: metres * sin(bearing)),
                    street: Places.streets[random.below(Places.streets.count)], number: 1 + random.below(899), shopName: shopName)
    }
}

extension Coordinate {
    /// This point moved by metres north and east (flat-earth approximation, fine for tens of kilometres).
    func moved(north: Double, east: Double) -> Coordinate {
        let metresPerDegree = 111_320.0
        return Coordinate(
            latitude: latitude + north / metresPerDegree,
            longitude: longitude + east / (metresPerDegree * cos(latitude * .pi / 180)))
    }
}

/// Which app takes the fix: a phone (sales staff or merchant) or a payment terminal's agent (Android).
enum Device { case phone, terminal }

/// Fixes as the location SDKs return them: a provider and permission, an accuracy and a matching error, the
/// datum the provider reports in, a reverse-geocoded address and the app's own region claim.
enum FixMaker {
    static func fix(
        of truth: Coordinate, site: Site, device: Device, iOS: Bool, milliseconds: Int64, random: inout SplitMix64
    ) -> FixText {
        let provider: String
        switch device {
        case .phone:
            provider = iOS
                ? random.weighted([("apple", 0.40), ("amap", 0.32), ("tencent", 0.25), ("manual", 0.03)])
                : random.weighted([("amap", 0.55), ("tencent", 0.42), ("manual", 0.03)])
        case .terminal:
            provider = random.weighted([("amap", 0.52), ("tencent", 0.40), ("ip", 0.08)])
        }

        let authorization: String?
        switch provider {
        case "apple": authorization = random.weighted([("full", 0.85), ("reduced", 0.15)])
        case "ip", "manual": authorization = random.chance(0.5) ? "unknown" : nil
        default:
            authorization = iOS
                ? random.weighted([("full", 0.85), ("reduced", 0.10), ("", 0.05)])
                : random.weighted([("unknown", 0.60), ("full", 0.30), ("reduced", 0.03), ("", 0.07)])
        }

        let accuracy: Double
        if authorization == "reduced" {
            accuracy = random.logUniform(1000...20_000)
        } else if provider == "ip" {
            accuracy = random.logUniform(3000...25_000)
        } else if provider == "manual" {
            accuracy = random.uniform(10...50)
        } else {
            // Mostly satellite or Wi-Fi fixes; some cell-tower ones.
            accuracy = random.weighted([(0, 0.85), (1, 0.12), (2, 0.03)]) == 0
                ? random.logUniform(5...80)
                : random.chance(0.8) ? random.logUniform(80...1500) : random.logUniform(1500...5000)
        }
        let error = provider == "manual" ? accuracy / 4 : authorization == "reduced" ? accuracy / 3 : accuracy / 2
        let measured = truth.moved(north: random.gaussian() * error, east: random.gaussian() * error)

        let shiftsToGCJ02 = site.place.usesGCJ02 && (provider == "amap" || provider == "tencent" || provider == "manual")
        let reported = shiftsToGCJ02 ? GCJ02.fromWGS84(measured) : measured
        let omitsDatum = provider != "manual" && provider != "ip" && random.chance(0.1)
        let datum: String? = omitsDatum ? nil : shiftsToGCJ02 ? "gcj02" : "wgs84"

        return FixText(
            lat: coordinateText(reported.latitude), lon: coordinateText(reported.longitude), datum: datum,
            horizontalAccuracy: accuracyText(accuracy),
            accuracyAuthorization: authorization?.isEmpty == false ? authorization : nil,
            provider: provider,
            capturedAt: CaptureTime.text(milliseconds: milliseconds, fraction: provider == "apple"),
            address: address(site, provider: provider, random: &random),
            claimedInRegion: claim(site, device: device, random: &random))
    }

    private static func address(_ site: Site, provider: String, random: inout SplitMix64) -> AddressText? {
        if random.chance(0.04) { return nil }  // reverse geocoding failed or was not asked for
        let place = site.place
        let number = "\(site.number)号"
        switch provider {
        case "ip":
            return AddressText(country: place.country, province: place.province, city: place.city)
        case "apple":
            // CLPlacemark: no adcode; the name is the street address unless it is a point of interest.
            return AddressText(
                country: place.country, province: place.province, city: place.city, district: place.district,
                street: site.street, streetNumber: number, poiName: random.chance(0.3) ? site.shopName : nil,
                formatted: "\(place.province)\(place.city == place.province ? "" : place.city)\(place.district)\(site.street)\(number)")
        default:
            return AddressText(
                country: place.country, province: place.province, city: place.city, district: place.district,
                street: site.street, streetNumber: number, poiName: site.shopName,
                formatted: "\(place.province)\(place.city == place.province ? "" : place.city)\(place.district)\(site.street)\(number)\(site.shopName)",
                adcode: place.adcode)
        }
    }

    /// The app's own mainland check; sometimes not sent, and now and then wrong.
    private static func claim(_ site: Site, device: Device, random: inout SplitMix64) -> Bool? {
        if random.chance(device == .terminal ? 0.5 : 0.15) { return nil }
        return random.chance(0.01) ? !site.place.inRegion : site.place.inRegion
    }

    /// Six decimals, as the SDKs give them.
    static func coordinateText(_ value: Double) -> String {
        "\((value * 1e6).rounded() / 1e6)"
    }

    static func accuracyText(_ value: Double) -> String {
        let rounded = max(1, (value * 10).rounded() / 10)
        return rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)"
    }
}
