import Foundation

let commands: [Command] = DatabaseCommands.all + [IngestCommand.command] + StateCommands.all + MaintenanceCommands.all
    + RegionCommands.all

exit(CommandLineInterface(commands: commands).main(Array(CommandLine.arguments.dropFirst())))
