import Foundation
import Geo

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

    static func classify(arguments: [String]) -> Int32 {
        var datum = Datum.wgs84
        var nearMetres = 1000.0
        var options = OptionReader(arguments)
        while let option = options.next() {
            switch option {
            case "--help", "-h":
                writeStandardOutput(classifyUsage)
                return 0
            case "--datum":
                guard let value = options.value(), let parsed = Datum(rawValue: value) else {
                    return usageError("--datum needs one of wgs84, gcj02, bd09", classifyUsage)
                }
                datum = parsed
            case "--near-boundary-metres":
                guard let value = options.value(), let parsed = Double(value), parsed >= 0, parsed.isFinite else {
                    return usageError("--near-boundary-metres needs a non-negative number", classifyUsage)
                }
                nearMetres = parsed
            default:
                return usageError("unknown argument \(option)", classifyUsage)
            }
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
        output.append("lat,lon,region,near_boundary\n")
        let failed = forEachPoint(command: "region classify") { lat, lon, point in
            let answer = classifier.classify(converter.toWGS84(point, from: datum))
            output.append(lat)
            output.append(UInt8(ascii: ","))
            output.append(lon)
            output.append(UInt8(ascii: ","))
            output.append(answer.region.rawValue)
            output.append(answer.nearBoundary ? ",true\n" : ",false\n")
        } header: { _ in }
        output.flush()
        return failed ? 1 : 0
    }

    static func convertDatum(arguments: [String]) -> Int32 {
        var from: Datum?
        var to: Datum?
        var options = OptionReader(arguments)
        while let option = options.next() {
            switch option {
            case "--help", "-h":
                writeStandardOutput(convertUsage)
                return 0
            case "--from", "--to":
                guard let value = options.value(), let parsed = Datum(rawValue: value) else {
                    return usageError("\(option) needs one of wgs84, gcj02, bd09", convertUsage)
                }
                if option == "--from" { from = parsed } else { to = parsed }
            default:
                return usageError("unknown argument \(option)", convertUsage)
            }
        }
        guard let from, let to else { return usageError("--from and --to are required", convertUsage) }
        let classifier: BoundaryClassifier
        do {
            classifier = try BoundaryClassifier.bundled()
        } catch {
            writeStandardError("geoledger datum convert: \(error)\n")
            return 1
        }
        let converter = DatumConverter(classifier: classifier)

        var output = BufferedOutput()
        let failed = forEachPoint(command: "datum convert") { _, _, point in
            let converted = converter.convert(point, from: from, to: to)
            output.append(formatDegrees(converted.latitude))
            output.append(UInt8(ascii: ","))
            output.append(formatDegrees(converted.longitude))
            output.append(UInt8(ascii: "\n"))
        } header: { line in
            output.append(line)
            output.append(UInt8(ascii: "\n"))
        }
        output.flush()
        return failed ? 1 : 0
    }

    // MARK: - Input

    /// Reads CSV `lat,lon` lines from standard input and calls `body` with the two fields as
    /// written and the parsed point. Returns whether any line was bad (each is reported).
    private static func forEachPoint(command: String,
                                     _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>, Coordinate) -> Void,
                                     header: (ArraySlice<UInt8>) -> Void) -> Bool {
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
                header(line)
                continue
            }
            guard let lat, let lon, (-90...90).contains(lat), (-180...180).contains(lon) else {
                failed = true
                writeStandardError("geoledger \(command): line \(lineNumber): expected \"lat,lon\" in degrees, "
                    + "latitude within -90..90 and longitude within -180..180\n")
                continue
            }
            body(latField, lonField, Coordinate(latitude: lat, longitude: lon))
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

    // MARK: - Output

    private static func usageError(_ message: String, _ usage: String) -> Int32 {
        writeStandardError("error: \(message)\n\n\(usage)")
        return 64
    }

    private static func writeStandardOutput(_ text: String) {
        var output = BufferedOutput()
        output.append(text)
        output.flush()
    }

    private static func writeStandardError(_ text: String) {
        writeAll(Array(text.utf8), to: 2)
    }
}

/// Writes all of `bytes` to a file descriptor, retrying short writes and interruptions.
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// Reads `--name value` and `--name=value` options.
private struct OptionReader {
    private var arguments: [String]
    private var index = 0
    private var pendingValue: String?

    init(_ arguments: [String]) { self.arguments = arguments }

    mutating func next() -> String? {
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        index += 1
        pendingValue = nil
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            pendingValue = String(argument[argument.index(after: equals)...])
            return String(argument[..<equals])
        }
        return argument
    }

    mutating func value() -> String? {
        if let pendingValue { self.pendingValue = nil; return pendingValue }
        guard index < arguments.count else { return nil }
        index += 1
        return arguments[index - 1]
    }
}

/// Reads standard input in 64 KiB blocks and hands out lines without their terminator.
private struct LineReader {
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private static let blockSize = 1 << 16

    mutating func nextLine() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[position..<newline]
                position = newline + 1
                return line
            }
            if atEnd {
                guard position < buffer.count else { return nil }
                let line = buffer[position...]
                position = buffer.count
                return line
            }
            // Keep the unfinished line, then read another block after it.
            buffer.removeSubrange(0..<position)
            position = 0
            let oldCount = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: LineReader.blockSize))
            var count = 0
            repeat {
                count = buffer.withUnsafeMutableBufferPointer { pointer in
                    read(0, pointer.baseAddress! + oldCount, LineReader.blockSize)
                }
            } while count < 0 && errno == EINTR
            let received = max(count, 0)
            buffer.removeSubrange((oldCount + received)...)
            if received == 0 { atEnd = true }
        }
    }
}

/// Collects output and writes it to standard output in large blocks.
private struct BufferedOutput {
    private var buffer: [UInt8] = []
    private static let flushSize = 1 << 16

    init() { buffer.reserveCapacity(BufferedOutput.flushSize + 256) }

    mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        flushIfFull()
    }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        buffer.append(contentsOf: bytes)
        flushIfFull()
    }

    mutating func append(_ byte: UInt8) {
        buffer.append(byte)
    }

    private mutating func flushIfFull() {
        if buffer.count >= BufferedOutput.flushSize { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        writeAll(buffer, to: 1)
        buffer.removeAll(keepingCapacity: true)
    }
}
