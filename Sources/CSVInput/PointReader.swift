#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads CSV lines `lat,lon` in degrees: blank lines skipped, spaces, tabs and a CR around the fields ignored, and a
/// first line whose first field starts with a letter taken as a header.
public struct PointReader {
    /// A point, with its two fields as written.
    public struct Point {
        public let latitudeText: ArraySlice<UInt8>
        public let longitudeText: ArraySlice<UInt8>
        public let latitude: Double
        public let longitude: Double
    }

    public enum Item {
        case header(ArraySlice<UInt8>)
        case point(Point)
        /// A line that is not a point: its message names the line, and reading goes on after it.
        case bad(String)
    }

    /// The longest line read, in bytes: a few times what any `lat,lon` line needs.
    public static let maximumLineLength = 4096

    private var lines: LineReader
    private var sawContent = false

    public init(descriptor: Int32 = STDIN_FILENO) {
        lines = LineReader(descriptor: descriptor, maximumLength: PointReader.maximumLineLength, expected: "\"lat,lon\"")
    }

    /// The next header, point or bad line; nil at the end of the input.
    /// - Throws: ``InputError`` when a line is longer than ``maximumLineLength`` (the input is not CSV points, and
    ///   reading on could take without end), or when reading fails.
    public mutating func next() throws -> Item? {
        while let raw = try lines.nextLine() {
            let line = Self.trim(raw)
            if line.isEmpty { continue }
            let isFirst = !sawContent
            sawContent = true
            guard let comma = line.firstIndex(of: UInt8(ascii: ",")) else {
                return .bad("line \(lines.lineNumber): expected \"lat,lon\"")
            }
            let latField = Self.trim(line[line.startIndex..<comma])
            let lonField = Self.trim(line[(comma + 1)...])
            let lat = Self.parseDouble(latField)
            let lon = Self.parseDouble(lonField)
            if isFirst, lat == nil, lon == nil, let first = latField.first,
               (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first & 0xDF) {
                return .header(line)
            }
            guard let lat, let lon, (-90...90).contains(lat), (-180...180).contains(lon) else {
                return .bad("line \(lines.lineNumber): expected \"lat,lon\" in degrees, "
                    + "latitude within -90..90 and longitude within -180..180")
            }
            return .point(Point(latitudeText: latField, longitudeText: lonField, latitude: lat, longitude: lon))
        }
        return nil
    }

    private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == 0x0D { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0D { end -= 1 }
        return bytes[start..<end]
    }

    private static func parseDouble(_ field: ArraySlice<UInt8>) -> Double? {
        guard !field.isEmpty, field.count < 64 else { return nil }
        // Only plain decimal numbers: no "nan", "inf" or hexadecimal.
        for byte in field {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"),
                 UInt8(ascii: "e"), UInt8(ascii: "E"):
                continue
            default:
                return nil
            }
        }
        return Double(String(decoding: field, as: UTF8.self))
    }
}
