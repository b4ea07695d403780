internal import CZlib

/// gzip through zlib: request bodies sent with `Content-Encoding: gzip`, and response bodies.
enum Gzip {
    /// Inflates one or more concatenated gzip members, stopping as soon as the output passes `limit` bytes,
    /// so a small body that inflates to gigabytes costs at most `limit` bytes of memory.
    /// - Throws: ``HTTPServerError`` of kind `bodyTooLarge` past the limit, `malformedBody` for what is not gzip.
    static func inflate(_ input: [UInt8], limit: Int) throws(HTTPServerError) -> [UInt8] {
        guard !input.isEmpty else { return [] }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard geoledger_inflate_init_gzip(stream) == Z_OK else {
            throw HTTPServerError(.malformedBody, "zlib could not start inflating")
        }
        defer { inflateEnd(stream) }

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let result: Result<Void, HTTPServerError> = input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress!)
            stream.pointee.avail_in = UInt32(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    let status = CZlib.inflate(stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.pointee.avail_out))
                }
                guard output.count + produced <= limit else {
                    return .failure(HTTPServerError(.bodyTooLarge, "the body inflates to more than \(limit) bytes"))
                }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_STREAM_END:
                    // Another member may follow (RFC 1952 allows several).
                    guard stream.pointee.avail_in > 0 else { return .success(()) }
                    guard inflateReset(stream) == Z_OK else {
                        return .failure(HTTPServerError(.malformedBody, "zlib could not read the next member"))
                    }
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                    return .failure(HTTPServerError(.malformedBody, "the gzip data ends before its end"))
                case Z_BUF_ERROR where produced > 0:
                    continue
                default:
                    let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    return .failure(HTTPServerError(.malformedBody, reason))
                }
            }
        }
        try result.get()
        return output
    }

    /// One gzip member. `level` 1 is zlib's fastest, which still shrinks JSON several times.
    static func deflate(_ input: [UInt8], level: Int32 = 1) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard geoledger_deflate_init_gzip(stream, level) == Z_OK else {
            preconditionFailure("zlib could not start deflating (out of memory)")
        }
        defer { deflateEnd(stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, UInt(input.count))))
        let written = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.pointee.avail_in = UInt32(source.count)
                stream.pointee.next_out = target.baseAddress
                stream.pointee.avail_out = UInt32(target.count)
                let status = CZlib.deflate(stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflateBound left too little room")
                return target.count - Int(stream.pointee.avail_out)
            }
        }
        output.removeSubrange(written...)
        return output
    }
}
