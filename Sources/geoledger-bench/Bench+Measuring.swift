import Foundation

/// What a stage took: wall-clock time and the CPU of this process and of the database's processes; figures as printed.
extension Bench {
    struct Timing {
        var wall: Double
        var clientCPU: Double
        /// CPU of the database backends serving the stage, when they run on this machine.
        var serverCPU: Double?
    }

    /// - Parameter backends: database backends serving the stage, whose CPU is added up.
    static func timed<T>(backends: [Int32] = [], _ body: () throws -> T) rethrows -> (T, Timing) {
        func serverCPU() -> Double? {
            let each = backends.compactMap { processCPU($0) }
            return !each.isEmpty && each.count == backends.count ? each.reduce(0, +) : nil
        }
        let serverBefore = serverCPU()
        let clientBefore = clientCPU()
        let start = DispatchTime.now()
        let value = try body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let serverAfter = serverCPU()
        let server = serverBefore.flatMap { before in serverAfter.map { $0 - before } }
        return (value, Timing(wall: wall, clientCPU: clientCPU() - clientBefore, serverCPU: server))
    }

    static func clientCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// User plus system CPU seconds of a local process, from /proc; nil when it is not visible.
    /// - Parameter reaped: add that of its children that ended and that it waited for.
    static func processCPU(_ pid: Int32, reaped: Bool = false) -> Double? {
        guard let fields = processStat(pid) else { return nil }
        // utime and stime are fields 14 and 15, cutime and cstime (the reaped children's) 16 and 17.
        let columns = reaped ? [11, 12, 13, 14] : [11, 12]
        let ticks = columns.compactMap { Double(fields[$0]) }
        guard ticks.count == columns.count else { return nil }
        return ticks.reduce(0, +) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The fields of /proc/PID/stat after the command name (state, field 3, first); nil when it is not visible.
    static func processStat(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 14 ? fields : nil
    }

    static func seconds(_ value: Double) -> String { String(format: "%.2f", value) }

    /// CPU seconds per event, in microseconds.
    static func microseconds(_ cpu: Double, per events: Int) -> String {
        events > 0 ? String(format: "%.1f", cpu / Double(events) * 1e6) : "n/a"
    }

    static func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%.0f", Double(count) / seconds) }
}
