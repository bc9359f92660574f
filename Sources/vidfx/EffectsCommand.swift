import ArgumentParser
import Shaders
import Effects
import Foundation
import FrameCore
import FrameSource
import Sinks

/// `vidfx effects [NAME] [--json]`: the effect catalogue, straight from the descriptors.
struct EffectsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "effects",
        abstract: "List the effects with their parameters, defaults and ranges.",
        discussion: """
        Chains for -e: effects separated by commas, parameters as name=value after colons, the first one may be \
        positional: sepia=0.8,pixelate:size=12:mode=average

        Over time: numbers, colours and vectors take keyframes, value@time pairs (seconds, 2s, 500ms or m:ss), \
        moving between keys along ease=linear|in|out|inout|hold: sepia:amount=0@0,1@2s, \
        pixelate:size=4@0,40@3:ease=inout. Any effect takes enable=RANGES to run only then (outside, it costs \
        nothing): pixelate:enable=10-20, sepia:enable=0:10-0:20,1:00-1:05, noir:enable=30- (to the end).
        -e @FILE reads the chain from a file: one effect a line; a # at the start of a line or after a space starts \
        a comment (a colour, #ff8800, or a shader's FILE#NAME is not one). A shader file is an effect too: \
        -e ./wave.glsl:amplitude=8, -e "./fx.metal#warp" (docs/shaders.md).
        """
    )

    @Argument(help: "Show only this effect.")
    var name: String?

    @Flag(help: "Print JSON for scripts.")
    var json = false

    @Option(help: "Write a contact sheet PNG of every effect applied to one frame.")
    var gallery: String?

    @Option(help: "Frame source for --gallery (default: a built-in test pattern).")
    var input: String?

    @Option(parsing: .unconditional, help: "Time of the --gallery frame in the input, seconds.")
    var at: TimeArgument?

    @Option(help: ArgumentHelp("Only these effects in the --gallery, in this order (default: every effect).", valueName: "NAME,NAME…"))
    var only: String?

    @Flag(name: .shortAndLong, help: "Overwrite an existing --gallery file.")
    var yes = false

    func run() throws {
        if let gallery { return try writeGallery(to: gallery) }
        var types = EffectRegistry.all
        if let name, EffectRegistry.effect(named: name) == nil, EffectRegistry.namesFile(name) {
            return try describeShader(name)
        }
        if let name {
            guard let type = EffectRegistry.effect(named: name) else {
                throw CommandFailure(message: EffectChainParsing.unknownEffectMessage(name))
            }
            types = [type]
        }
        let descriptors = types.map { $0.descriptor }
        let kinds = Dictionary(uniqueKeysWithValues: types.map { ($0.descriptor.name, $0.kind) })
        if json {
            try Console.output(try EffectCatalog.json(types) + Data("\n".utf8))
            return
        }
        try Console.output(Data(Self.table(descriptors.map { ($0, kinds[$0.name]!.rawValue) }).utf8))
    }
}

extension EffectsCommand {
    /// `vidfx effects ./wave.glsl`: the shader's own parameter table, from its file.
    func describeShader(_ file: String) throws {
        let shader: (descriptor: EffectDescriptor, kind: ShaderSource.Kind)
        do { shader = try ShaderEffect.describe(file) } catch { throw CommandFailure(message: error.message) }
        try Console.output(Data(Self.table([(shader.descriptor, shader.kind.rawValue + " shader")]).utf8))
    }

    /// The widest line the table prints, as a terminal shows it (an example, a command to
    /// copy, is never broken).
    static let columns = 100

    /// The parameter tables of `descriptors`, each with its kind: columns as wide as the
    /// effect's own entries need; a parameter's help after its columns when the line fits
    /// in ``columns``, else on the lines below, wrapped.
    static func table(_ descriptors: [(EffectDescriptor, String)]) -> String {
        var text = ""
        for (d, kind) in descriptors {
            text += wrapped("\(d.name) (\(kind), \(d.category.rawValue)): \(d.summary)", indent: 4, hanging: true)
            let defaults = d.parameters.map { "default " + ($0.defaultValue.map { $0.description.isEmpty ? "none" : $0.description } ?? "required") }
            let nameWidth = (d.parameters.map(\.name.count).max() ?? 0) + 2
            let defaultWidth = (defaults.map(\.count).max() ?? 0) + 2
            let rangeWidth = (d.parameters.map(\.rangeDescription.count).max() ?? 0) + 2
            for (p, def) in zip(d.parameters, defaults) {
                let head = "    " + p.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                    + p.type.name.padding(toLength: 7, withPad: " ", startingAt: 0) + def.padding(toLength: defaultWidth, withPad: " ", startingAt: 0)
                let line = head + p.rangeDescription.padding(toLength: rangeWidth, withPad: " ", startingAt: 0)
                if line.count + p.help.count <= columns {
                    text += line + p.help + "\n"
                } else if (head + p.rangeDescription).count <= columns {
                    text += head + p.rangeDescription + "\n" + wrapped(p.help, indent: 8)
                } else {
                    text += trimmed(head) + "\n" + wrapped(p.rangeDescription, indent: 8) + wrapped(p.help, indent: 8)
                }
            }
            if let example = d.example { text += "    e.g. -e \"\(example)\"\n" }
        }
        return text
    }

    /// `text` broken at spaces into lines of at most ``columns``: every line indented by
    /// `indent` but the first when `hanging` (a heading's continuation); a word longer than
    /// a line stands alone.
    static func wrapped(_ text: String, indent: Int, hanging: Bool = false) -> String {
        let pad = String(repeating: " ", count: indent)
        var out = "", current = hanging ? "" : pad
        for word in text.split(separator: " ") {
            if current.count == (out.isEmpty && hanging ? 0 : indent) {
                current += word
            } else if current.count + 1 + word.count <= columns {
                current += " " + word
            } else {
                out += current + "\n"
                current = pad + word
            }
        }
        return out + current + "\n"
    }

    /// `text` without its trailing spaces.
    static func trimmed(_ text: String) -> String { String(text.reversed().drop { $0 == " " }.reversed()) }

    func writeGallery(to path: String) throws {
        if !yes, FileManager.default.fileExists(atPath: path) {
            throw CommandFailure(message: "\(path): already exists (use -y to overwrite)")
        }
        var frame = Gallery.testPattern()
        var time = 0.0
        if let input {
            var configuration = FrameSource.Configuration()
            if let at { configuration.start = at.value; time = at.value.seconds }
            let source = try FrameSource(input, configuration: configuration)
            defer { source.close() }
            guard let first = try source.nextFrame() else {
                throw CommandFailure(message: "\(input): no frame at \(time) s")
            }
            frame = first
        }
        let types = try only.map { list in
            try list.split(separator: ",").map { name in
                let name = name.trimmingCharacters(in: .whitespaces)
                guard let type = EffectRegistry.effect(named: name) else {
                    throw CommandFailure(message: "--only: " + EffectChainParsing.unknownEffectMessage(name))
                }
                return type
            }
        }
        let sheet = try Gallery.render(frame, time: time, effects: types ?? EffectRegistry.all)
        try ImageWriter.write(sheet, to: path, as: .png)
        Console.note("wrote \(path) (\(sheet.width)x\(sheet.height))")
    }
}

/// Building chains from `-e` for every command.
enum EffectChainParsing {
    /// Parses `text`, loading LUT images through FrameSource (Effects never decodes files).
    /// `@FILE` reads the chain from a file: one effect a line, a `#` after a space or at the
    /// start of a line starts a comment.
    static func chain(_ text: String?) throws -> EffectChain? {
        guard var text, !text.isEmpty else { return nil }
        if text.hasPrefix("@") {
            text = try chainFile(String(text.dropFirst()))
            guard !text.isEmpty else { throw CommandFailure(message: "-e: \(text): the chain file has no effects", code: 2) }
        }
        do {
            return try EffectChain(parsing: text, resources: resources)
        } catch {
            throw CommandFailure(message: "-e: \(error.message)", code: 2)
        }
    }

    /// A chain file's effects, joined by commas: blank lines and `#` comments dropped.
    static func chainFile(_ path: String) throws -> String {
        let data: Data
        do { data = try TextFile.data(path) } catch {
            throw CommandFailure(message: "-e: @\(path): cannot read the chain file (\((error as NSError).localizedDescription))", code: 2)
        }
        guard data.count <= 1 << 20, let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure(message: "-e: @\(path): not a chain file (text of at most 1 MB)", code: 2)
        }
        return text.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            // A comment begins at a '#' that starts the line or follows a space: a colour
            // (`color=#ff8800`) and a shader's function (`fx.metal#warp`) are not comments.
            var effect = Substring(line)
            var previous: Character = " "
            for i in line.indices {
                if line[i] == "#", previous == " " || previous == "\t" { effect = line[..<i]; break }
                previous = line[i]
            }
            let trimmed = effect.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }.joined(separator: ",")
    }

    /// Images for effects (LUT key images, overlays), decoded by FrameSource.
    static let resources = EffectResources(loadImage: { path in
            let source = try FrameSource(path)
            defer { source.close() }
            guard let frame = try source.nextFrame() else {
                throw FrameSourceError(input: path, kind: .noFrames, reason: "no picture in the image")
            }
            return frame
        })

    static func unknownEffectMessage(_ name: String) -> String {
        do {
            _ = try EffectChain(parsing: name)
            return "unknown effect '\(name)'"
        } catch {
            return error.message
        }
    }
}
