import Foundation
import Testing
import TestSupport

/// Random draws in the suite repeat: one generator, seeded and printed.
@Suite struct SeededGeneratorTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// Two generators from one seed draw alike, and another seed draws otherwise.
    @Test func oneSeedOneSequence() {
        var a = SeededGenerator("a", seed: 42), b = SeededGenerator("b", seed: 42), c = SeededGenerator("c", seed: 43)
        let (x, y, z) = ((0..<8).map { _ in a.next() }, (0..<8).map { _ in b.next() }, (0..<8).map { _ in c.next() })
        #expect(x == y)
        #expect(x != z)
        #expect(Set(x).count == 8)
    }

    /// No test draws from the system's generator, or from a draw with no generator named
    /// (`Int.random(in:)` alone): a failure must be found again from its printed seed.
    @Test func noTestDrawsUnseeded() throws {
        var offenders: [String] = []
        let files = FileManager.default.enumerator(at: Self.tests, includingPropertiesForKeys: nil)
        let unseeded = try Regex(#"SystemRandomNumberGenerator|\b(U?Int\d*|Double|Float|Bool)\.random\(|\.randomElement\(\)|\.shuffled\(\)"#)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift", url.lastPathComponent != "SeededGeneratorTests.swift" else { continue }
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (n, line) in lines.enumerated() where line.contains(unseeded) && !line.contains("using:") {
                offenders.append("\(url.lastPathComponent):\(n + 1)")
            }
        }
        #expect(offenders.isEmpty, "unseeded draws: \(offenders.joined(separator: ", "))")
    }
}
