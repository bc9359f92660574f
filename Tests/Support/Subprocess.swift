public import Foundation

/// Runs a program for the tests (the ffmpeg/ffprobe oracles, the vidfx binary) and
/// returns its exit status and standard output; standard error is discarded.
public enum Subprocess {
    /// Exit status and standard output of `executable arguments…`.
    public static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// Standard output of a program that must succeed.
    public static func output(_ executable: String, _ arguments: [String]) throws -> Data {
        let (status, data) = try run(executable, arguments)
        guard status == 0 else { throw Failure(command: ([executable] + arguments).joined(separator: " "), status: status) }
        return data
    }

    /// A program exited non-zero.
    public struct Failure: Error, CustomStringConvertible {
        public var command: String
        public var status: Int32
        public var description: String { "\(command) exited with \(status)" }
    }
}
