import Foundation

/// Errors of the Geo module.
public enum GeoError: Error, Sendable, CustomStringConvertible {
    /// The boundary resource is not in the bundle.
    case boundaryResourceMissing(String)
    /// The boundary resource could not be decoded.
    case malformedBoundaries(String)

    public var description: String {
        switch self {
        case .boundaryResourceMissing(let name): return "boundary resource \(name) not found in the Geo bundle"
        case .malformedBoundaries(let why): return "malformed boundary data: \(why)"
        }
    }
}

/// The decoded boundary resource: polygon rings in degrees, each with its region code.
///
/// Region codes follow `scripts/derive-boundaries.py`: 0 mainland, 1 Hong Kong, 2 Macau,
/// 3 Taiwan, 4 any other country (answered as outside).
struct BoundaryRings: Sendable {
    static let otherCode: UInt8 = 4
    static let codeCount = 5
    /// The answer for each region code.
    static let regions: [Region] = [.mainland, .hongKong, .macau, .taiwan, .outside]

    var version: String
    var codes: [UInt8]
    /// Index of each ring's first vertex in `xs` / `ys`, plus one final entry: the vertex count.
    var ringStarts: [Int]
    var xs: [Double]
    var ys: [Double]

    /// Decodes the format written by `scripts/derive-boundaries.py`.
    init(decoding data: Data) throws {
        let bytes = [UInt8](data)
        var offset = 0
        func u32() throws -> UInt32 {
            guard offset + 4 <= bytes.count else { throw GeoError.malformedBoundaries("truncated at byte \(offset)") }
            let value = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
            offset += 4
            return value
        }
        guard bytes.count >= 8, bytes[0..<4].elementsEqual("GEOB".utf8) else {
            throw GeoError.malformedBoundaries("bad magic")
        }
        offset = 4
        let format = try u32()
        guard format == 1 else { throw GeoError.malformedBoundaries("unknown format \(format)") }
        let versionLength = Int(try u32())
        guard offset + versionLength <= bytes.count else { throw GeoError.malformedBoundaries("truncated version") }
        version = String(decoding: bytes[offset..<offset + versionLength], as: UTF8.self)
        offset += versionLength
        let ringCount = Int(try u32())
        let vertexCount = Int(try u32())
        guard offset + ringCount * 8 + vertexCount * 8 == bytes.count else {
            throw GeoError.malformedBoundaries("size does not match \(ringCount) rings and \(vertexCount) vertices")
        }
        codes = []
        codes.reserveCapacity(ringCount)
        ringStarts = [0]
        ringStarts.reserveCapacity(ringCount + 1)
        for _ in 0..<ringCount {
            let code = try u32()
            let count = Int(try u32())
            guard code < UInt32(BoundaryRings.codeCount), count >= 3 else {
                throw GeoError.malformedBoundaries("bad ring (code \(code), \(count) vertices)")
            }
            codes.append(UInt8(code))
            ringStarts.append(ringStarts[ringStarts.count - 1] + count)
        }
        guard ringStarts.last == vertexCount else { throw GeoError.malformedBoundaries("vertex counts do not add up") }
        var xs = [Double](repeating: 0, count: vertexCount)
        var ys = [Double](repeating: 0, count: vertexCount)
        bytes.withUnsafeBytes { raw in
            for i in 0..<vertexCount {
                let base = offset + i * 8
                let x = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: base, as: Int32.self))
                let y = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 4, as: Int32.self))
                xs[i] = Double(x) * 1e-5
                ys[i] = Double(y) * 1e-5
            }
        }
        self.xs = xs
        self.ys = ys
    }
}
