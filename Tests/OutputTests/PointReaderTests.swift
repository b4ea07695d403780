import CSVInput
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `lat,lon` lines, as `region classify` and `datum convert` read them.
@Suite("CSVInput: reading points")
struct PointReaderTests {
    /// What a reader makes of `bytes` written to a pipe (from another thread, so a large input cannot block).
    func read(_ bytes: [UInt8]) throws -> [String] {
        // The reader may stop before the writer is done.
        ignoreBrokenPipes()
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EIO) }
        let writer = ends[1]
        let thread = Thread {
            _ = bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(writer, raw.baseAddress! + offset, raw.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(writer)
        }
        thread.start()
        defer { close(ends[0]) }
        var reader = PointReader(descriptor: ends[0])
        var items: [String] = []
        do {
            while let item = try reader.next() {
                switch item {
                case .header(let line): items.append("header " + String(decoding: line, as: UTF8.self))
                case .point(let point):
                    items.append("point \(String(decoding: point.latitudeText, as: UTF8.self)) \(String(decoding: point.longitudeText, as: UTF8.self)) \(point.latitude) \(point.longitude)")
                case .bad(let message): items.append("bad " + message)
                }
            }
        } catch {
            items.append("error \(error)")
        }
        return items
    }

    @Test("a header first, points with their text as written, blank lines skipped, CRLF and spaces ignored, bad lines named")
    func lines() throws {
        let items = try read(Array("Lat,Lon\r\n\n 31.2304 , 121.4737\r\nnot a point\n95,10\n-22.5,+114e0\n39.9,116.4".utf8))
        #expect(items == [
            "header Lat,Lon",
            "point 31.2304 121.4737 31.2304 121.4737",
            "bad line 4: expected \"lat,lon\"",
            "bad line 5: expected \"lat,lon\" in degrees, latitude within -90..90 and longitude within -180..180",
            "point -22.5 +114e0 -22.5 114.0",
            "point 39.9 116.4 39.9 116.4",
        ])
    }

    @Test("a header is only a header on the first line; nan and inf are not numbers")
    func notHeaders() throws {
        let items = try read(Array("1,2\nlat,lon\nnan,inf\n".utf8))
        #expect(items.count == 3)
        #expect(items[1].hasPrefix("bad line 2") && items[2].hasPrefix("bad line 3"))
    }

    @Test("a line longer than the limit stops the reading with its number, however much more would come")
    func longLine() throws {
        let items = try read(Array("1,2\n".utf8) + Array(repeating: 0, count: 10_000_000))
        #expect(items == ["point 1 2 1.0 2.0", "error line 2 is longer than \(PointReader.maximumLineLength) bytes: expected \"lat,lon\""])
    }

    @Test("a line exactly as long as the limit is still read")
    func lineAtTheLimit() throws {
        let point = "1," + String(repeating: " ", count: PointReader.maximumLineLength - 3) + "2"
        #expect(try read(Array((point + "\n").utf8)) == ["point 1 2 1.0 2.0"])
    }

    @Test("a descriptor that cannot be read is an error naming the reason")
    func unreadable() throws {
        let folder = open("/tmp", O_RDONLY | O_DIRECTORY)
        #expect(folder >= 0)
        defer { close(folder) }
        var reader = PointReader(descriptor: folder)
        #expect(throws: InputError.self) { try reader.next() }
        do {
            _ = try reader.next()
        } catch {
            #expect("\(error)" == "cannot read standard input: Is a directory")
        }
    }
}
