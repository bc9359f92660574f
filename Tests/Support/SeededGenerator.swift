public import Foundation

/// A repeatable random source for tests (SplitMix64). Its seed is printed when it is made,
/// so a failing run names the draw that failed; `VIDFX_TEST_SEED=N` replays that draw (or
/// tries another) without editing the test.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// A generator for the test or table `name`, seeded with `VIDFX_TEST_SEED` when it is
    /// set to a number, else with `seed`; the seed is printed with the name.
    public init(_ name: String, seed: UInt64) {
        let chosen = ProcessInfo.processInfo.environment["VIDFX_TEST_SEED"].flatMap { UInt64($0) } ?? seed
        self.seed = chosen
        state = chosen
        print("\(name): random draws from seed \(chosen) (VIDFX_TEST_SEED=\(chosen) repeats them)")
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
