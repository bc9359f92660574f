public import FrameCore

/// One picture as one image file (`photo-redacted.jpg`): a photo in, a photo out.
/// The frame is written when the render finishes, through a work file renamed into
/// place (``ImageWriter``), so an abandoned or failed render leaves nothing at the path.
public final class ImageFileSink: FrameSink {
    /// Where the image goes.
    public let path: String
    /// Its format.
    public let format: ImageFormat
    /// The size it is written at (nil: the picture's own).
    public var size: PhotoSize?
    /// The picture written, once ``finish()`` has run.
    public private(set) var written: (width: Int, height: Int)?
    private var frame: Frame?

    /// A sink writing its one frame to `path` in `format`.
    public init(path: String, format: ImageFormat) {
        self.path = path
        self.format = format
    }

    /// The file's name.
    public var name: String { path }

    /// Keeps the frame; a second one is refused (an image holds one picture).
    public func write(_ frame: Frame) throws(SinkError) -> Bool {
        guard self.frame == nil else { throw SinkError(path: path, reason: "an image holds one picture; the input gave more") }
        self.frame = frame
        return true
    }

    /// Writes the image.
    public func finish() throws(SinkError) {
        guard var frame else { throw SinkError(path: path, reason: "the input gave no picture to write") }
        if let size { frame = try size.apply(to: frame) }
        do { try ImageWriter.write(frame, to: path, as: format) } catch { throw SinkError(path: path, reason: error.reason) }
        written = (frame.width, frame.height)
        self.frame = nil
    }

    /// Writes nothing.
    public func abandon() { frame = nil }
}
