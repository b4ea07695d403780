import Foundation

let commands: [Command] = DatabaseCommands.all + [MaintenanceCommands.verify] + RegionCommands.all

exit(CommandLineInterface(commands: commands).main(Array(CommandLine.arguments.dropFirst())))
