import CommandLineArguments
import Foundation
import Geo
import Output

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `geoledger region classify` and `geoledger datum convert`: CSV in on stdin, CSV out on stdout.
enum RegionCommands {
    static let classifyUsage = """
        Usage: geoledger region classify [--datum wgs84|gcj02|bd09] [--near-boundary-metres N]

        Reads CSV lines "lat,lon" on standard input (a header line is allowed, blank lines are
        skipped) and writes CSV "lat,lon,region,near_boundary" on standard output. region is one
        of mainland, hong_kong, macau, taiwan, outside. A bad line is reported on standard error
        with its line number; the others are still processed and the exit status is then 1.

        Options:
          --datum D                 datum of the input points (default wgs84)
          --near-boundary-metres N  distance to a border flagged as near_boundary (default 1000)

        Example:
          printf 'lat,lon\\n22.5431,114.0579\\n' | geoledger region classify --datum gcj02

        """

    static let convertUsage = """
        Usage: geoledger datum convert --from wgs84|gcj02|bd09 --to wgs84|gcj02|bd09

        Reads CSV lines "lat,lon" on standard input and writes them converted, as "lat,lon" with
        8 decimals. A header line is echoed; blank lines are skipped. The GCJ-02 offset applies
        only in mainland China, Hong Kong and Macau; elsewhere WGS-84 and GCJ-02 coincide.

        Example:
          printf 'lat,lon\\n39.915,116.404\\n' | geoledger datum convert --from wgs84 --to gcj02

        """

    static let all = [
        Command(
            words: ["region", "classify"], summary: "classify CSV lat,lon points into mainland/hong_kong/macau/taiwan/outside",
            help: classifyUsage, run: classify),
        Command(
            words: ["datum", "convert"], summary: "convert CSV lat,lon points between wgs84, gcj02 and bd09",
            help: convertUsage, run: convertDatum),
    ]

    static func classify(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, options: ["datum", "near-boundary-metres"])
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let datum = try datumOption(arguments, "datum") ?? .wgs84
        var nearMetres = 1000.0
        if let text = arguments.value("near-boundary-metres") {
            guard let parsed = Double(text), parsed >= 0, parsed.isFinite else {
                throw UsageError("--near-boundary-metres needs a non-negative number, not '\(text)'")
            }
            nearMetres = parsed
        }
        let classifier: BoundaryClassifier
        do {
            classifier = try BoundaryClassifier.bundled(nearBoundaryMetres: nearMetres)
        } catch {
            writeStandardError("geoledger region classify: \(error)\n")
            return 1
        }
        let converter = DatumConverter(classifier: classifier)

        var output = BufferedOutput()
        try output.append("lat,lon,region,near_boundary\n")
        let failed = try forEachPoint(command: "region classify") { lat, lon, point in
            let answer = classifier.classify(converter.toWGS84(point, from: datum))
            try output.append(lat)
            output.append(UInt8(ascii: ","))
            try output.append(lon)
            output.append(UInt8(ascii: ","))
            try output.append(answer.region.rawValue)
            try output.append(answer.nearBoundary ? ",true\n" : ",false\n")
        } header: { _ in }
        try output.flush()
        return failed ? 1 : 0
    }

    static func convertDatum(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, options: ["from", "to"])
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        guard let from = try datumOption(arguments, "from"), let to = try datumOption(arguments, "to") else {
            throw UsageError("--from and --to are required")
        }
        let classifier: BoundaryClassifier
        do {
            classifier = try BoundaryClassifier.bundled()
        } catch {
            writeStandardError("geoledger datum convert: \(error)\n")
            return 1
        }
        let converter = DatumConverter(classifier: classifier)

        var output = BufferedOutput()
        let failed = try forEachPoint(command: "datum convert") { _, _, point in
            let converted = converter.convert(point, from: from, to: to)
            try output.append(formatDegrees(converted.latitude))
            output.append(UInt8(ascii: ","))
            try output.append(formatDegrees(converted.longitude))
            output.append(UInt8(ascii: "\n"))
        } header: { line in
            try output.append(line)
            output.append(UInt8(ascii: "\n"))
        }
        try output.flush()
        return failed ? 1 : 0
    }

    private static func datumOption(_ arguments: Arguments, _ name: String) throws -> Datum? {
        guard let text = arguments.value(name) else { return nil }
        guard let datum = Datum(rawValue: text) else {
            throw UsageError("--\(name) must be one of wgs84, gcj02, bd09, not '\(text)'")
        }
        return datum
    }

    // MARK: - Input

    /// Reads CSV `lat,lon` lines from standard input and calls `body` with the two fields as
    /// written and the parsed point. Returns whether any line was bad (each is reported); stops at the first error
    /// `body` or `header` throws.
    private static func forEachPoint(command: String,
                                     _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>, Coordinate) throws -> Void,
                                     header: (ArraySlice<UInt8>) throws -> Void) throws -> Bool {
        var reader = LineReader()
        var lineNumber = 0
        var sawContent = false
        var failed = false
        while let raw = reader.nextLine() {
            lineNumber += 1
            let line = trim(raw)
            if line.isEmpty { continue }
            let isFirst = !sawContent
            sawContent = true
            guard let comma = line.firstIndex(of: UInt8(ascii: ",")) else {
                failed = true
                writeStandardError("geoledger \(command): line \(lineNumber): expected \"lat,lon\"\n")
                continue
            }
            let latField = trim(line[line.startIndex..<comma])
            let lonField = trim(line[(comma + 1)...])
            let lat = parseDouble(latField)
            let lon = parseDouble(lonField)
            if isFirst, lat == nil, lon == nil, let first = latField.first,
               (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first & 0xDF) {
                try header(line)
                continue
            }
            guard let lat, let lon, (-90...90).contains(lat), (-180...180).contains(lon) else {
                failed = true
                writeStandardError("geoledger \(command): line \(lineNumber): expected \"lat,lon\" in degrees, "
                    + "latitude within -90..90 and longitude within -180..180\n")
                continue
            }
            try body(latField, lonField, Coordinate(latitude: lat, longitude: lon))
        }
        return failed
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

    /// Degrees with 8 decimals (about 1 mm), without going through a format string.
    static func formatDegrees(_ value: Double) -> String {
        let scaled = (abs(value) * 100_000_000).rounded()
        guard scaled < 1e15 else { return String(value) }
        let units = Int(scaled)
        let whole = units / 100_000_000
        let fraction = String(units % 100_000_000)
        let sign = value < 0 && units != 0 ? "-" : ""
        return sign + String(whole) + "." + String(repeating: "0", count: 8 - fraction.count) + fraction
    }
}
