import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.dropFirst().first) {
case ("region", "classify"):
    exit(RegionCommands.classify(arguments: Array(arguments.dropFirst(2))))
case ("datum", "convert"):
    exit(RegionCommands.convertDatum(arguments: Array(arguments.dropFirst(2))))
default:
    print("geoledger")
}
