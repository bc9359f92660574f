/// An error a person reads: one line that names the input, output or argument at fault
/// and the cause, and the exit status a command ends with for it. Every error type the
/// libraries throw at their users adopts it, so that a program (vidfx's `main`, a script's)
/// reports any of them in one place: `catch let error as any UserFacingError`.
public protocol UserFacingError: Error, CustomStringConvertible {
    /// The line to show, without a program-name prefix.
    var message: String { get }
    /// The exit status for it: 2 for bad arguments or settings, 1 for anything else.
    var exitCode: Int32 { get }
}

extension UserFacingError {
    /// The description, which every adopter keeps to one line.
    public var message: String { description }
    /// A failure of the work, not of how it was asked for.
    public var exitCode: Int32 { 1 }
}
