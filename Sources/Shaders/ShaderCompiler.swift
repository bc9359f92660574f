import Foundation

/// GLSL to SPIR-V through glslang's own compiler, `glslangValidator` (Debian's
/// glslang-tools), run for each shader once: Debian 12's libshaderc.so.1 cannot be loaded
/// (it lacks a symbol of SPIRV-Tools it needs), and a program of its own keeps a compiler
/// that crashes or hangs on a hostile source outside vidfx's process.
enum ShaderCompiler {
    /// The longest a compile may take.
    static let timeLimit: Duration = .seconds(20)
    /// The largest program taken, in bytes of SPIR-V. A 64 KiB text can still expand to
    /// far more through its macros (six levels of eight: 18 MB, whose pipeline then took
    /// lavapipe 15 s and 1.3 GB in vidfx's own process); a real shader is a few hundred KB
    /// at most.
    static let largestProgram = 4 << 20

    /// The compiler: `$VIDFX_GLSLANG` (tests), else glslangValidator on the PATH or in /usr/bin.
    static var executable: String? {
        let env = ProcessInfo.processInfo.environment
        if let given = env["VIDFX_GLSLANG"], !given.isEmpty { return given }
        let folders = (env["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        return folders.map { $0 + "/glslangValidator" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The SPIR-V words of `program` (a compute shader); `name` is the user's file's name,
    /// which the compiler's messages use.
    /// `original`, the user's own text, gives a message its column where the compiler
    /// names the word it stopped at.
    /// A program compiled before by the same compiler comes from `cache` (``ShaderCache``).
    static func compile(_ program: String, name: String, original: String? = nil,
                        cache: ShaderCache? = ShaderCache.standard) throws(ShaderError) -> [UInt32] {
        guard let compiler = executable, FileManager.default.isExecutableFile(atPath: compiler) else {
            throw ShaderError("\(name): shaders need glslang's compiler (glslangValidator): apt-get install glslang-tools")
        }
        let key = cache == nil ? nil : ShaderCache.key(program: program, compiler: compiler)
        if let cache, let key, let kept = cache.load(key), kept.count * 4 <= largestProgram { return kept }
        let words = try compiled(program, name: name, original: original, compiler: compiler)
        if let cache, let key { cache.store(words, for: key) }
        return words
    }

    private static func compiled(_ program: String, name: String, original: String?, compiler: String) throws(ShaderError) -> [UInt32] {
        // A private folder (mode 0700): no other user can swap the files compiled or read.
        var template = Array((NSTemporaryDirectory() + "/vidfx-shader-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ShaderError("\(name): no temporary folder for the compiler") }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let base = URL(fileURLWithPath: name).lastPathComponent.filter { $0.isLetter || $0.isNumber || "._-".contains($0) }
        let input = folder + "/" + (base.isEmpty ? "shader.glsl" : base)
        let output = folder + "/out.spv"
        guard FileManager.default.createFile(atPath: input, contents: Data(program.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ShaderError("\(name): cannot write the compiler's input")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = ["-V", "--target-env", "vulkan1.1", "-S", "comp", "-o", output, input]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw ShaderError("\(name): cannot start \(compiler) (\(error.localizedDescription))")
        }
        let deadline = ContinuousClock.now + timeLimit
        let watchdog = Thread {
            while process.isRunning {
                if ContinuousClock.now > deadline { process.terminate(); kill(process.processIdentifier, SIGKILL); return }
                usleep(20_000)
            }
        }
        watchdog.start()
        // Bounded: the compiler's messages about a 64 KiB source.
        let said = (try? pipe.fileHandleForReading.readToEnd()) ?? Data()
        process.waitUntilExit()
        if ContinuousClock.now > deadline { throw ShaderError("\(name): the compiler took more than \(timeLimit) and was stopped") }
        guard process.terminationReason == .exit, process.terminationStatus == 0,
              let spirv = FileManager.default.contents(atPath: output), spirv.count >= 20, spirv.count % 4 == 0 else {
            let said = message(String(decoding: said.prefix(1 << 16), as: UTF8.self), folder: folder + "/", name: name)
            throw ShaderError(original.map { withColumn(said, name: name, original: $0) } ?? said)
        }
        guard spirv.count <= largestProgram else {
            throw ShaderError("\(name): \(spirv.count >> 20) MB of program once its macros are expanded; a shader may make up to \(largestProgram >> 20) MB")
        }
        return spirv.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
    }

    /// The compiler's first error as one line, `NAME:LINE: cause` (glslang says
    /// `ERROR: FOLDER/NAME:LINE: cause`).
    static func message(_ text: String, folder: String, name: String) -> String {
        let lines = text.split(separator: "\n").map { $0.replacingOccurrences(of: folder, with: "") }
        guard var first = lines.first(where: { $0.hasPrefix("ERROR: ") && $0.contains(":") && !$0.contains("compilation errors") })
            ?? lines.first(where: { $0.hasPrefix("ERROR: ") }) else {
            return "\(name): the shader does not compile"
        }
        first = String(first.dropFirst("ERROR: ".count)).trimmingCharacters(in: .whitespaces)
        let base = URL(fileURLWithPath: name).lastPathComponent
        if first.hasPrefix(base.filter { $0.isLetter || $0.isNumber || "._-".contains($0) }) && base != name {
            first = name + first.dropFirst(base.count)
        }
        return first
    }

    /// `NAME:LINE: 'word' : cause` as `NAME:LINE:COLUMN: …` when `word` stands on that line
    /// of the user's text (its first place there, counted in characters from 1): glslang
    /// 12 gives lines only. Anything else is left as it is.
    static func withColumn(_ message: String, name: String, original: String) -> String {
        let head = name + ":"
        guard message.hasPrefix(head) else { return message }
        let rest = message.dropFirst(head.count)
        guard let colon = rest.firstIndex(of: ":"), let line = Int(rest[..<colon]), line >= 1 else { return message }
        let cause = rest[rest.index(after: colon)...]
        guard let open = cause.firstIndex(of: "'"), cause[..<open].allSatisfy({ $0 == " " }),
              let close = cause[cause.index(after: open)...].firstIndex(of: "'") else { return message }
        let word = cause[cause.index(after: open)..<close]
        guard !word.isEmpty, word.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return message }
        let lines = original.split(separator: "\n", omittingEmptySubsequences: false)
        guard line <= lines.count else { return message }
        let text = Array(lines[line - 1])
        let wanted = Array(word)
        func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
        var i = 0
        while i + wanted.count <= text.count {
            if Array(text[i..<(i + wanted.count)]) == wanted, i == 0 || !isWordCharacter(text[i - 1]),
               i + wanted.count == text.count || !isWordCharacter(text[i + wanted.count]) {
                return "\(head)\(line):\(i + 1):\(cause)"
            }
            i += 1
        }
        return message
    }
}
