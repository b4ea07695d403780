import Foundation
import Testing
@testable import Geo

/// Loaded once for all tests: building the index takes a few tens of milliseconds.
let sharedClassifier: BoundaryClassifier = {
    do {
        return try BoundaryClassifier.bundled()
    } catch {
        fatalError("the bundled boundary data does not load: \(error)")
    }
}()

struct FixtureCoordinate: Decodable, Sendable {
    var latitude: Double
    var longitude: Double
    var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

struct GCJ02Reference: Decodable, Sendable {
    struct ForwardPair: Decodable, Sendable, CustomTestStringConvertible {
        var source: String
        var wgs84: FixtureCoordinate
        var gcj02: FixtureCoordinate
        var tolerance: Double
        var testDescription: String { source }
    }
    struct ToBD: Decodable, Sendable {
        var source: String
        var gcj02: FixtureCoordinate
        var bd09: FixtureCoordinate
        var tolerance: Double
    }
    var wgs84ToGCJ02: [ForwardPair]
    var gcj02ToBD09: [ToBD]
    var bd09ToGCJ02: [ToBD]
}

struct RegionPoint: Decodable, Sendable, CustomTestStringConvertible {
    var name: String
    var latitude: Double
    var longitude: Double
    var region: Region
    var nearBoundary: Bool?
    var check: String
    var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
    var testDescription: String { name }
}

private struct RegionPointsFile: Decodable {
    var points: [RegionPoint]
}

enum Fixtures {
    static func load<T: Decodable>(_ name: String, as type: T.Type) -> T {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            fatalError("fixture \(name).json is missing from the test bundle")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
        } catch {
            fatalError("fixture \(name).json does not decode: \(error)")
        }
    }

    static let gcj02 = load("gcj02-reference", as: GCJ02Reference.self)
    static let regionPoints = load("region-points", as: RegionPointsFile.self).points
}
