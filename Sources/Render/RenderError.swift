public import FrameCore

/// What stops a render before or after its frames: a setting that cannot be met (a
/// detections file with no effect to use it), an output that would replace a file
/// without consent, an input too short for what was asked. One line naming the input,
/// output or option at fault, as every `UserFacingError`.
public struct RenderError: UserFacingError {
    /// The line to show.
    public let message: String
    /// 2 for a setting or argument that cannot be met, 1 for a failure of the work.
    public let exitCode: Int32

    /// An error with `message` and `exitCode`.
    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    /// The message.
    public var description: String { message }
}
