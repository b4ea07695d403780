extension RegionCommands {
    static let all = [
        Command(
            words: ["region", "classify"], summary: "classify CSV lat,lon points into mainland/hong_kong/macau/taiwan/outside",
            help: classifyUsage, run: { classify(arguments: $0) }),
        Command(
            words: ["datum", "convert"], summary: "convert CSV lat,lon points between wgs84, gcj02 and bd09",
            help: convertUsage, run: { convertDatum(arguments: $0) }),
    ]
}
