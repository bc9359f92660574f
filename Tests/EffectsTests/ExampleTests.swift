@testable import Effects
import Foundation
import FrameCore
import Testing

/// Every effect's descriptor carries an example (what `vidfx effects NAME` shows), and
/// every example works as written: it parses, renders, and visibly does something
/// (effects that use detections get a face and a code to work on).
@Suite struct ExampleTests {
    /// A new folder under the temporary directory.
    static func scratch(_ prefix: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `dir/grade.cube`: a 2³ cube that inverts every channel.
    static func invertingCube(in dir: URL) throws -> URL {
        let cube = dir.appendingPathComponent("grade.cube")
        var text = "LUT_3D_SIZE 2\n"
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { text += "\(1 - r) \(1 - g) \(1 - b)\n" } } }
        try text.write(to: cube, atomically: true, encoding: .utf8)
        return cube
    }

    @Test func everyEffectHasAWorkingExample() throws {
        let dir = try Self.scratch("vidfx-examples")
        defer { try? FileManager.default.removeItem(at: dir) }
        // The files the examples name: an inverting 2³ cube, and a logo (any picture).
        let cube = try Self.invertingCube(in: dir)
        let resources = EffectResources(loadImage: { path in
            guard path == "logo.png" else { throw EffectError("unexpected file \(path)") }
            return Fixture.random(width: 24, height: 12, seed: 7)
        })
        var source = Fixture.random()
        // What a detector would have found, for the effects that draw or redact it.
        source.observations = [
            Observation(kind: .face, bounds: Rect(x: 10, y: 10, width: 30, height: 36), trackID: 1),
            Observation(kind: .qr, bounds: Rect(x: 50, y: 20, width: 30, height: 30),
                        corners: [Point(x: 50, y: 20), Point(x: 80, y: 20), Point(x: 80, y: 50), Point(x: 50, y: 50)], payload: "vidfx", trackID: 2),
        ]
        for type in EffectRegistry.all {
            let d = type.descriptor
            guard let example = d.example else {
                Issue.record("\(d.name) has no example")
                continue
            }
            #expect(example == d.name || example.hasPrefix(d.name + ":") || example.hasPrefix(d.name + "="), "\(d.name): \(example)")
            let chain = try EffectChain(parsing: example.replacingOccurrences(of: "file=grade.cube", with: "file=\(cube.path)"), resources: resources)
            let out = chain.apply(to: source, time: 0.5)
            #expect(out.width > 0 && out.height > 0, "\(example)")
            #expect(out.width != source.width || out.height != source.height || !Fixture.sameBytes(out, source),
                    "\(example) leaves the frame as it was")
            // Made from its defaults too (a file parameter left out where one is required).
            if d.parameters.allSatisfy({ $0.defaultValue != nil }) {
                _ = try EffectChain(parsing: d.name, resources: resources).apply(to: source, time: 0.5)
            }
        }
        // Every key an effect's code reads is in its descriptor, with its type: a miss is
        // recorded (not a trap in a user's render) and fails here.
        #expect(Parameters.unreadKeys.filter { !$0.hasPrefix("keyless.") }.isEmpty, "\(Parameters.unreadKeys.sorted())")
    }

    /// Every range a table declares is one the chain takes: no number past the largest a
    /// chain accepts (oldtimes once declared its seed up to 2^32 − 1, and any seed over
    /// 10^6 was refused).
    @Test func everyDeclaredRangeIsOneTheChainTakes() {
        for type in EffectRegistry.all {
            for p in type.descriptor.parameters {
                for bound in [p.min, p.max].compactMap({ $0 }) {
                    #expect(bound.magnitude <= ParameterSpec.largestMagnitude, "\(type.descriptor.name).\(p.name): \(bound)")
                }
            }
        }
    }

    /// An effect that reads a key its descriptor lacks gets a neutral value and the miss is
    /// recorded for the suite, where it once trapped in the render.
    @Test func aKeyMissingFromTheDescriptorIsRecordedNotATrap() throws {
        let d = EffectDescriptor(name: "keyless", category: .stylize, summary: "", parameters: [.float("amount", default: 1, help: "")])
        let p = try Parameters(parsing: [], for: d)
        #expect(p[ParameterKey<Double>("amount")] == 1)
        #expect(p[ParameterKey<Double>("strength")] == 0 && p[ParameterKey<String>("mode")] == "" && p[ParameterKey<[Double]>("tint")] == [0, 0, 0, 0])
        #expect(p[ParameterKey<Sampling>("amount")] == .bilinear, "a number read as a choice: the first option")
        #expect(Parameters.unreadKeys.isSuperset(of: ["keyless.strength", "keyless.mode", "keyless.tint", "keyless.amount"]))
    }

    /// A typed choice's options are its cases, in order, the first the default.
    @Test func typedChoicesListTheirCases() throws {
        let spec = try #require(Pixelate.descriptor.parameter("mode"))
        #expect(spec.type == .choice(["sample", "average"]) && spec.defaultValue == .text("sample"))
        #expect(try Parameters(parsing: [("mode", "average")], for: Pixelate.descriptor)[ParameterKey<Pixelate.Mode>("mode")] == .average)
        #expect(throws: EffectError.self) { _ = try Parameters(parsing: [("mode", "median")], for: Pixelate.descriptor) }
    }

    /// A switch (a whole number 0…1, as a shader's `bool` is) takes true/false, yes/no and
    /// on/off as well as 1 and 0; other whole numbers do not.
    @Test func aSwitchTakesItsWords() throws {
        let d = EffectDescriptor(name: "x", category: .stylize, summary: "", parameters: [
            .int("flag", default: 0, min: 0, max: 1, help: ""), .int("count", default: 0, min: 0, max: 5, help: ""),
        ])
        for (word, value) in [("true", 1.0), ("FALSE", 0), ("yes", 1), ("no", 0), ("on", 1), ("off", 0), ("1", 1), ("0", 0)] {
            #expect(try Parameters(parsing: [("flag", word)], for: d).double("flag") == value, "\(word)")
        }
        #expect(throws: EffectError.self) { _ = try Parameters(parsing: [("count", "true")], for: d) }
        #expect(throws: EffectError.self) { _ = try Parameters(parsing: [("flag", "maybe")], for: d) }
    }

    /// A colour parameter takes a name as FFmpeg's `c=black` does, in any case, as well as
    /// hex and components; an unknown name is refused naming the forms.
    @Test func aColourTakesItsName() throws {
        let d = EffectDescriptor(name: "x", category: .stylize, summary: "", parameters: [.color("fill", default: (1, 1, 1, 1), help: "")])
        for (text, rgba) in [("black", [0.0, 0, 0, 1]), ("White", [1, 1, 1, 1]), ("transparent", [0, 0, 0, 0]), ("#ff0000", [1, 0, 0, 1]),
                             ("0,0,1", [0, 0, 1, 1])] {
            #expect(try Parameters(parsing: [("fill", text)], for: d).vector("fill") == rgba, "\(text)")
        }
        #expect(throws: EffectError.self) { _ = try Parameters(parsing: [("fill", "blurple")], for: d) }
        #expect(try EffectChain(parsing: "rotate:angle=10:fill=black").entries.count == 1)
    }

    /// Every hint for a name from another tool (`-e gblur`, `-e mirror`) gives chains that
    /// work as written: each quoted chain names an effect and its real parameters, parses
    /// (a `…` left for the user filled with a value), and renders a picture that is not
    /// transparent or black (the old `hflip` hint, an affine about the origin, made a black
    /// video).
    @Test func everyHintGivesAChainThatWorks() throws {
        let dir = try Self.scratch("vidfx-hints")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cube = try Self.invertingCube(in: dir)
        let source = Fixture.random()
        var tried = 0
        for (name, hint) in ForeignEffectNames.hints.sorted(by: { $0.key < $1.key }) {
            let quoted = hint.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            for text in quoted {
                // `rotate=90|180|270`: each choice is a chain.
                let heads = text.split(separator: ":")
                guard let head = heads.first else { continue }
                let effectName = head.split(separator: "=").first.map(String.init) ?? ""
                guard let type = EffectRegistry.effect(named: effectName) else {
                    Issue.record("\(name): '\(text)' names no effect")
                    continue
                }
                let choices = head.contains("|") ? head.split(separator: "=")[1].split(separator: "|").map { "\(effectName)=\($0)" } : [String(head)]
                for first in choices {
                    var parts = [first]
                    for part in heads.dropFirst() {
                        let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
                        #expect(type.descriptor.parameter(pair[0]) != nil, "\(name): '\(text)': \(effectName) has no parameter '\(pair[0])'")
                        guard pair.count == 2 else { continue }
                        if pair[1] == "….cube" { parts.append("\(pair[0])=\(cube.path)") } else if pair[0] == "text" { parts.append("text=hello") }
                        else if !pair[1].contains("…") { parts.append(part.description) }
                    }
                    let chain = parts.joined(separator: ":")
                    do {
                        let out = try EffectChain(parsing: chain).apply(to: source, time: 0.5)
                        var lit = 0
                        out.withUnsafeBytes { b in for i in stride(from: 0, to: b.count, by: 4) where b[i + 3] > 0 && (b[i] > 16 || b[i + 1] > 16 || b[i + 2] > 16) { lit += 1 } }
                        #expect(lit > out.width * out.height / 2, "\(name): '\(chain)' gives a black or transparent picture")
                        tried += 1
                    } catch {
                        Issue.record("\(name): '\(chain)': \(error)")
                    }
                }
            }
        }
        #expect(tried > 50, "\(tried) chains tried")
    }
}

/// Every parameter every effect declares is read as its type: each effect is built with
/// its defaults and once with every option of each of its choices (reads inside a mode's
/// branch included), and its keys and table agree. A key whose name or type differs from
/// the table's would trap here, in the suite, instead of in a user's render.
@Suite struct ParameterKeyTests {
    @Test func everyEffectBuildsWithEveryChoice() throws {
        let dir = try ExampleTests.scratch("vidfx-keys")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cube = try ExampleTests.invertingCube(in: dir)
        let resources = EffectResources(loadImage: { _ in Fixture.random(width: 24, height: 12, seed: 7) })
        var built = 0
        for type in EffectRegistry.all {
            let d = type.descriptor
            // Required files get one; the rest start from their defaults.
            var base: [String: ParameterValue] = [:]
            for spec in d.parameters where spec.defaultValue == nil {
                base[spec.name] = .text(spec.name == "file" && d.name == "overlay" ? "logo.png" : cube.path)
            }
            var variants = [base]
            for spec in d.parameters {
                guard case .choice(let options) = spec.type else { continue }
                for option in options { variants.append(base.merging([spec.name: .text(option)]) { $1 }) }
            }
            for given in variants {
                let parameters = try Parameters(given, for: d)
                _ = try type.init(parameters: parameters, resources: resources)
                built += 1
            }
        }
        #expect(built > EffectRegistry.all.count)
    }

    /// Issue 67 (10): ffmpeg's `gblur=sigma=3` habit, `blur=radius=3`, names the ':' form
    /// instead of saying that the first parameter has no such choice.
    @Test func aNamedParameterAfterAnEqualsSignNamesTheColonForm() {
        func message(_ chain: String) -> String {
            do { _ = try EffectChain(parsing: chain); return "" } catch { return error.description }
        }
        let said = message("blur=radius=3")
        #expect(said.contains("blur:radius=3") && !said.contains("must be one of"), "\(said)")
        #expect(message("sepia=amount=0.5").isEmpty, "the first parameter by name after '=' still reads")
        #expect(message("blur:radius=3").isEmpty)
    }

    @Test func aKeyReadsItsTypedValue() throws {
        let d = EffectDescriptor(name: "probe", category: .stylize, summary: "A test effect.",
                                 parameters: [.float(ParameterKey<Double>("level"), default: 0.25, help: "A number."),
                                              .int(ParameterKey<Int>("count"), default: 3, help: "A whole number."),
                                              .choice(ParameterKey<String>("mode"), ["a", "b"], help: "A choice."),
                                              .color(ParameterKey<[Double]>("tint"), default: (1, 0.5, 0, 1), help: "A colour.")],
                                 example: "probe")
        let p = try Parameters(parsing: [("count", "7"), ("mode", "b"), ("tint", "#00FF00")], for: d)
        #expect(p[ParameterKey<Double>("level")] == 0.25)
        #expect(p[ParameterKey<Int>("count")] == 7)
        #expect(p[ParameterKey<String>("mode")] == "b")
        #expect(p[ParameterKey<[Double]>("tint")] == [0, 1, 0, 1])
    }
}
