/// Numbers with a fixed count of decimals, rounded: metres to 0.1, degrees to 7 or 8 places.
public enum FixedPoint {
    /// `value` rounded to `places` decimals (0 to 9), written without a format string; a value that rounds to
    /// zero has no minus sign.
    public static func text(_ value: Double, places: Int) -> String {
        precondition((0...9).contains(places), "0 to 9 decimals")
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        guard value.isFinite, scaled < 1e15 else { return String(value) }
        let units = Int(scaled)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard places > 0 else { return sign + String(units) }
        let fraction = String(units % scale)
        return sign + String(units / scale) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
