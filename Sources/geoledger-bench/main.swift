let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "region" {
    let results = RegionBench.run(geoledgerPath: arguments.dropFirst().first)
    for (name, value) in results.sorted(by: { $0.key < $1.key }) { print("\(name)=\(value)") }
} else {
    print("bench")
}
