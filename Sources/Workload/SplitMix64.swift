import Foundation

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, seedable generator; every workload byte comes from it.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one part of the workload, independent of the others: `seed` mixed with `keys`.
    init(seed: UInt64, _ keys: UInt64...) {
        var state = seed
        for key in keys { state = Self.mix(state ^ Self.mix(key &+ 0x9E37_79B9_7F4A_7C15)) }
        self.state = state
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// Uniform in 0..<bound (bound > 0); the modulo bias is negligible for the bounds used here.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    /// Log-uniform in `range`: small values as likely per decade as large ones.
    mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        exp(uniform(log(range.lowerBound)...log(range.upperBound)))
    }

    /// A standard normal deviate (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(unit(), 1e-12)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * unit())
    }

    /// One of `choices`, with probability proportional to its weight.
    mutating func weighted<T>(_ choices: [(T, Double)]) -> T {
        let total = choices.reduce(0) { $0 + $1.1 }
        var target = unit() * total
        for (choice, weight) in choices {
            if target < weight { return choice }
            target -= weight
        }
        return choices[choices.count - 1].0
    }

    /// A version-4 UUID.
    public mutating func uuid() -> UUID {
        UUID(uuidString: uuidText())!
    }

    /// A version-4 UUID in lower-case text.
    mutating func uuidText() -> String {
        let high = next() & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000
        let low = next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        var bytes = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        let digits = Array("0123456789abcdef".utf8)
        var index = 0
        for (word, shift) in [(high, 60), (low, 60)] {
            var s = shift
            while s >= 0 {
                if index == 8 || index == 13 || index == 18 || index == 23 { index += 1 }
                bytes[index] = digits[Int((word >> UInt64(s)) & 0xF)]
                index += 1
                s -= 4
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
