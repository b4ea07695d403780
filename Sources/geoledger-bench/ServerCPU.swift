import Foundation
import Postgres

/// The CPU a PostgreSQL server on this machine has used, all its processes together: its postmaster's own, that of
/// the children the postmaster has waited for (the backends of connections closed since) and that of its children
/// still running. The difference of two readings is what the server spent on a stage, whichever connections served
/// it; on a Citus cluster there is one per node.
struct ServerCPU {
    /// The node's name in the bench's lines: `server`, `coordinator`, `worker1`, ...
    let name: String
    let postmaster: Int32

    /// The server that `configuration` connects to, found as the parent of the connection's backend.
    init(name: String, server configuration: PostgresConfiguration) throws {
        let connection = try Connection.connect(configuration)
        defer { connection.close() }
        guard let fields = Bench.processStat(connection.backendPID), let parent = Int32(fields[1]) else {
            throw BenchError("the processes of the \(name) are not visible: it must run on this machine")
        }
        self.name = name
        postmaster = parent
    }

    /// CPU seconds used so far.
    func seconds() -> Double {
        children().reduce(Bench.processCPU(postmaster, reaped: true) ?? 0) { $0 + (Bench.processCPU($1) ?? 0) }
    }

    /// The postmaster's running children: every process whose parent it is (field 4 of its stat).
    private func children() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { Bench.processStat($0).flatMap { Int32($0[1]) } == postmaster }
    }
}
