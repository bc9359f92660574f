import Foundation
import Testing

/// docs/architecture.md is one drawing of the code as it is: its list of targets and
/// arrows is Package.swift's, and every Swift target is in the drawing.
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The manifest's targets, each with the targets it depends on (products of other packages left out).
    static func manifestTargets() throws -> [String: [String]] {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let scalars = Array(text.unicodeScalars)
        var targets: [String: [String]] = [:]
        let opener = try Regex(#"\.(target|executableTarget|systemLibrary)\("#)
        for match in text.matches(of: opener) {
            // The call's whole text, to its closing parenthesis.
            var i = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: match.range.upperBound.samePosition(in: text.unicodeScalars)!)
            let start = i
            var depth = 1
            while depth > 0, i < scalars.count {
                if scalars[i] == "(" { depth += 1 } else if scalars[i] == ")" { depth -= 1 }
                i += 1
            }
            let body = String(String.UnicodeScalarView(scalars[start..<(i - 1)]))
            guard let name = body.firstMatch(of: try Regex(#"name:\s*"([^"]+)""#))?.output[1].substring.map(String.init) else { continue }
            var dependencies: [String] = []
            if let list = body.range(of: "dependencies:") {
                let after = body[list.upperBound...]
                guard let open = after.firstIndex(of: "[") else { continue }
                var depth = 0, end = open
                for index in after[open...].indices {
                    if after[index] == "[" { depth += 1 } else if after[index] == "]" { depth -= 1 }
                    if depth == 0 { end = index; break }
                }
                let inside = String(after[after.index(after: open)..<end]).replacing(try Regex(#"\.product\([^)]*\)"#), with: "")
                dependencies = inside.matches(of: try Regex(#""([^"]+)""#)).compactMap { $0.output[1].substring.map(String.init) }
            }
            targets[name] = dependencies
        }
        return targets
    }

    @Test func theListIsTheManifest() throws {
        let manifest = try Self.manifestTargets()
        #expect(manifest.count > 20 && manifest["Render"]?.contains("Sinks") == true, "the manifest was read: \(manifest)")
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        // Only the section "## Targets and their arrows", to the next heading.
        let section = doc.components(separatedBy: "\n## Targets and their arrows")
        #expect(section.count == 2, "docs/architecture.md has one section of targets and arrows")
        let list = section.last?.components(separatedBy: "\n## ").first ?? ""
        var listed: [String: [String]] = [:]
        for line in list.split(separator: "\n") where line.hasPrefix("- `") {
            let names = line.matches(of: try Regex("`([^`]+)`")).compactMap { $0.output[1].substring.map(String.init) }
            guard let first = names.first, line.contains(" → ") || names.count == 1 else { continue }
            listed[first] = Array(names.dropFirst())
        }
        for (name, dependencies) in manifest.sorted(by: { $0.key < $1.key }) {
            #expect(listed[name] == dependencies, "\(name): the manifest says \(dependencies), docs/architecture.md \(listed[name] ?? [])")
        }
        #expect(Set(listed.keys).subtracting(manifest.keys).isEmpty, "listed but not in the manifest: \(Set(listed.keys).subtracting(manifest.keys))")
        // The drawing (the first block) names every Swift library target.
        let drawing = doc.components(separatedBy: "```")[1]
        let swiftTargets = manifest.keys.filter { !$0.hasPrefix("C") && $0 != "TestSupport" && $0 != "effects-bench" }
        for name in swiftTargets.sorted() { #expect(drawing.contains(name), "\(name) is not in the drawing") }
        #expect(doc.components(separatedBy: "```").count == 3, "one drawing, not several")
    }
}
