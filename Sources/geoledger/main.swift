import Foundation
import CJemalloc  // linked for its malloc, which serves the whole process (README: Development)

let commands: [Command] = DatabaseCommands.all + [IngestCommand.command] + StateCommands.all + MaintenanceCommands.all
    + RegionCommands.all

exit(CommandLineInterface(commands: commands).main(Array(CommandLine.arguments.dropFirst())))
