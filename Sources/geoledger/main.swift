import Foundation
import CJemalloc  // linked for its malloc, which serves the whole process (docs/performance.md, "The allocator and replay")

let commands: [Command] = DatabaseCommands.all + [IngestCommand.command] + StateCommands.all + HistoryCommands.all
    + [ReportCommand.command] + MaintenanceCommands.all + ProjectorCommands.all + RegionCommands.all + [ServeCommand.command] + TokenCommands.all

// A write into a pipe whose reader went away then fails with EPIPE, which the writer sees (Output's BufferedOutput).
signal(SIGPIPE, SIG_IGN)
let status = CommandLineInterface(commands: commands).main(Array(CommandLine.arguments.dropFirst()))
exit(flushStandardOutput(status: status))
