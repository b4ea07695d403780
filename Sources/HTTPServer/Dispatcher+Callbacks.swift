internal import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - The C callbacks: no captures; the dispatcher comes through the context pointer.

let accessCallback: MHD_AccessHandlerCallback = { context, connection, url, method, version, upload, uploadSize, slot in
    guard let context, let connection, let url, let method, let uploadSize, let slot else { return .NO }
    return Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue()
        .access(connection, url: url, method: method, version: version, upload: upload, uploadSize: uploadSize, slot: slot)
}

let requestLineCallback: geoledger_mhd_request_line_callback = { context, target, connection in
    guard let context, let target, let connection else { return nil }
    return Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().requestLine(connection, target: target)
}

let connectionCallback: MHD_NotifyConnectionCallback = { context, connection, socketContext, code in
    guard let context, let connection, let socketContext else { return }
    Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().connection(connection, context: socketContext, code: code)
}

let completedCallback: MHD_RequestCompletedCallback = { context, connection, slot, reason in
    guard let context, let slot else { return }
    Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().completed(connection, slot: slot, reason: reason)
}

let logCallback: MHD_LogCallback = { context, format, arguments in
    guard let context, let format, let arguments else { return }
    var buffer = [UInt8](repeating: 0, count: 1024)
    let length = buffer.withUnsafeMutableBufferPointer { target in
        target.withMemoryRebound(to: CChar.self) { Int(vsnprintf($0.baseAddress, $0.count, format, arguments)) }
    }
    var message = String(decoding: buffer[0..<min(max(length, 0), buffer.count - 1)], as: UTF8.self)
    while message.hasSuffix("\n") { message.removeLast() }
    Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().configuration.log("libmicrohttpd: " + message)
}
