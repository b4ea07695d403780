import CommandLineArguments
import CSVInput
import Foundation
import Geo
import Output

/// `geoledger region classify` and `geoledger datum convert`: CSV in on stdin, CSV out on stdout.
enum RegionCommands {
    static let classifyUsage = """
        Usage: geoledger region classify [--datum wgs84|gcj02|bd09] [--near-boundary-metres N]

        Reads CSV lines "lat,lon" on standard input (a header line is allowed, blank lines are
        skipped) and writes CSV "lat,lon,region,near_boundary" on standard output. region is one
        of mainland, hong_kong, macau, taiwan, outside. A bad line is reported on standard error
        with its line number; the others are still processed and the exit status is then 1.
        A line longer than 4096 bytes stops the command with exit 1: the input is not CSV points.

        Options:
          --datum D                 datum of the input points (default wgs84)
          --near-boundary-metres N  distance to a border flagged as near_boundary (default 1000)

        Example:
          printf 'lat,lon\\n22.5431,114.0579\\n' | geoledger region classify --datum gcj02

        """

    static let convertUsage = """
        Usage: geoledger datum convert --from wgs84|gcj02|bd09 --to wgs84|gcj02|bd09

        Reads CSV lines "lat,lon" on standard input and writes them converted, as "lat,lon" with
        8 decimals. A header line is echoed; blank lines are skipped. Bad lines are reported as
        for region classify, and a line longer than 4096 bytes stops the command with exit 1.
        The GCJ-02 offset applies only in mainland China, Hong Kong and Macau; elsewhere WGS-84
        and GCJ-02 coincide.

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
        try output.append(CSV.line(["lat", "lon", "region", "near_boundary"]))
        let failed = try forEachPoint(command: "region classify", into: &output) { point, output in
            let answer = classifier.classify(converter.toWGS84(Coordinate(latitude: point.latitude, longitude: point.longitude), from: datum))
            try output.append(CSV.line([
                String(decoding: point.latitudeText, as: UTF8.self), String(decoding: point.longitudeText, as: UTF8.self),
                answer.region.rawValue, answer.nearBoundary ? "true" : "false",
            ]))
        } header: { _, _ in }
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
        let failed = try forEachPoint(command: "datum convert", into: &output) { point, output in
            let converted = converter.convert(Coordinate(latitude: point.latitude, longitude: point.longitude), from: from, to: to)
            try output.append(CSV.line([FixedPoint.text(converted.latitude, places: 8), FixedPoint.text(converted.longitude, places: 8)]))
        } header: { line, output in
            try output.append(line)
            output.append(UInt8(ascii: "\n"))
        }
        return failed ? 1 : 0
    }

    private static func datumOption(_ arguments: Arguments, _ name: String) throws -> Datum? {
        guard let text = arguments.value(name) else { return nil }
        guard let datum = Datum(rawValue: text) else {
            throw UsageError("--\(name) must be one of wgs84, gcj02, bd09, not '\(text)'")
        }
        return datum
    }

    /// Reads CSV `lat,lon` lines from standard input, calls `body` with each point and `header` with a header line,
    /// and reports each bad line on standard error. Flushes `output` at the end, and before an error that stops it.
    /// - Returns: whether any line was bad.
    private static func forEachPoint(command: String, into output: inout BufferedOutput,
                                     _ body: (PointReader.Point, inout BufferedOutput) throws -> Void,
                                     header: (ArraySlice<UInt8>, inout BufferedOutput) throws -> Void) throws -> Bool {
        var reader = PointReader()
        var failed = false
        do {
            while let item = try reader.next() {
                switch item {
                case .header(let line): try header(line, &output)
                case .point(let point): try body(point, &output)
                case .bad(let message):
                    failed = true
                    writeStandardError("geoledger \(command): \(message)\n")
                }
            }
        } catch let error as InputError {
            try output.flush()
            throw error
        }
        try output.flush()
        return failed
    }
}
