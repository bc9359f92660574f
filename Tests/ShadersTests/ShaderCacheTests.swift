import Foundation
@testable import Shaders
import TestSupport
import Testing

/// Compiled shaders kept on disk (``ShaderCache``): a program comes back only for the
/// very key it was kept for, and only from a folder and file of the user's own that no
/// one else can write.
@Suite struct ShaderCacheTests {
    static let words: [UInt32] = [0x0723_0203, 0x0001_0000, 7, 9, 0, 42]

    @Test func aProgramComesBackForItsOwnKeyOnly() throws {
        let scratch = try ScratchDirectory("vidfx-shader-cache")
        let cache = ShaderCache(folder: scratch.path("a/b/shaders"))
        let key = Array("glslang 1\nvec4 effect(vec2 p, vec4 c) { return c; }".utf8)
        #expect(cache.load(key) == nil, "nothing kept yet")
        cache.store(Self.words, for: key)
        #expect(cache.load(key) == Self.words)
        var info = stat()
        #expect(lstat(cache.folder, &info) == 0 && info.st_mode & 0o777 == 0o700, "the folder is the user's alone")
        // Another key whose file has the same name (a collision, or a swapped file) is a miss.
        let other = Array("glslang 1\nvec4 effect(vec2 p, vec4 c) { return 1.0 - c; }".utf8)
        let kept = cache.folder + "/" + ShaderCache.name(key)
        #expect(rename(kept, cache.folder + "/" + ShaderCache.name(other)) == 0)
        #expect(cache.load(other) == nil, "another key's program")
        // A damaged file is a miss, never a program.
        cache.store(Self.words, for: key)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: kept)))
        bytes[bytes.count - 8] ^= 0xFF
        bytes.removeLast(2)
        try Data(bytes).write(to: URL(fileURLWithPath: kept))
        #expect(cache.load(key) == nil, "a program cut short")
    }

    @Test func onlyAFolderAndFilesOfTheUsersOwnAreRead() throws {
        let scratch = try ScratchDirectory("vidfx-shader-cache-walls")
        let cache = ShaderCache(folder: scratch.path("shaders"))
        let key = Array("k".utf8)
        cache.store(Self.words, for: key)
        let file = cache.folder + "/" + ShaderCache.name(key)
        // A file others may write is not read.
        #expect(chmod(file, 0o666) == 0)
        #expect(cache.load(key) == nil, "a file others can write")
        #expect(chmod(file, 0o600) == 0)
        #expect(cache.load(key) == Self.words)
        // A link is never followed, even to a good program.
        #expect(rename(file, scratch.path("elsewhere.spv")) == 0)
        #expect(symlink(scratch.path("elsewhere.spv"), file) == 0)
        #expect(cache.load(key) == nil, "a link")
        #expect(unlink(file) == 0)
        // A FIFO at the name is neither waited on nor written into: a miss, then replaced.
        #expect(mkfifo(file, 0o600) == 0)
        #expect(cache.load(key) == nil, "a FIFO")
        cache.store(Self.words, for: key)
        #expect(cache.load(key) == Self.words, "the FIFO's name now holds the program")
        #expect(unlink(file) == 0)
        // A folder others may write is neither read nor written.
        cache.store(Self.words, for: key)
        #expect(chmod(cache.folder, 0o777) == 0)
        #expect(cache.load(key) == nil, "a folder others can write")
        #expect(unlink(file) == 0)
        cache.store(Self.words, for: key)
        #expect(!FileManager.default.fileExists(atPath: file), "written into a folder others can write")
        // The folder as a link to a folder of the user's: not used.
        #expect(chmod(cache.folder, 0o700) == 0)
        let linked = ShaderCache(folder: scratch.path("linked"))
        #expect(symlink(cache.folder, linked.folder) == 0)
        cache.store(Self.words, for: key)
        #expect(cache.load(key) == Self.words)
        #expect(linked.load(key) == nil, "a folder that is a link")
    }

    /// The key names the compiler: another glslang (or the same path changed) compiles again.
    @Test func theKeyNamesTheCompiler() throws {
        let scratch = try ScratchDirectory("vidfx-shader-cache-key")
        let a = scratch.path("a"), b = scratch.path("b")
        try "one".write(toFile: a, atomically: false, encoding: .utf8)
        try "three".write(toFile: b, atomically: false, encoding: .utf8)
        let ka = try #require(ShaderCache.key(program: "p", compiler: a)), kb = try #require(ShaderCache.key(program: "p", compiler: b))
        #expect(ka != kb)
        #expect(ShaderCache.key(program: "p", compiler: scratch.path("none")) == nil)
        #expect(ShaderCache.key(program: "q", compiler: a) != ka)
    }
}
