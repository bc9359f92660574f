import CPixelKernels
import FrameCore
@testable import FrameSource
import MediaInput
import Foundation
import TestSupport
import Testing

/// `vfx_resize_bgr_linear` (what `PictureScanner`'s `.openCV` scaling shrinks with)
/// against `cv2.resize(..., INTER_LINEAR)` from the oracle venv, byte for byte: the
/// analysis sizes of common videos (whole, fractional and halving scales) and widths
/// whose rows end inside a vector.
@Suite struct OpenCVResizeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".oracle-venv/bin/python").path

    static let script = """
    import sys, numpy as np, cv2
    w, h, dw, dh = map(int, sys.argv[2:6])
    src = np.fromfile(sys.argv[1], np.uint8).reshape(h, w, 3)
    sys.stdout.buffer.write(cv2.resize(src, (dw, dh), interpolation=cv2.INTER_LINEAR).tobytes())
    """

    @Test(arguments: [(1920, 1080, 256, 144), (1280, 720, 256, 144), (640, 360, 256, 144), (512, 288, 256, 144),
                      (1080, 1920, 256, 455), (720, 576, 256, 205), (257, 100, 256, 100), (640, 360, 101, 57), (1921, 1081, 33, 19)])
    func shrinksAsOpenCVDoes(width: Int, height: Int, toWidth: Int, toHeight: Int) async throws {
        let scratch = try ScratchDirectory("opencv-resize")
        // Noise over smooth gradients: every weight and rounding shows.
        var state: UInt64 = 12345
        var source = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let smooth = (x * (c + 1) + y * 2) % 256
                    source[(y * width + x) * 3 + c] = UInt8(truncatingIfNeeded: smooth + Int(state >> 60))
                }
            }
        }
        let path = scratch.path("source.bgr")
        try Data(source).write(to: URL(fileURLWithPath: path))
        let theirs = try await Subprocess.output(Self.python, ["-c", Self.script, path, "\(width)", "\(height)", "\(toWidth)", "\(toHeight)"])
        #expect(theirs.count == toWidth * toHeight * 3)
        var mine = [UInt8](repeating: 0, count: toWidth * toHeight * 4)
        var rows = [Int32](repeating: 0, count: 8 * toWidth)
        vfx_resize_bgr_linear(source, width * 3, Int32(width), Int32(height), &mine, toWidth * 4, Int32(toWidth), Int32(toHeight), &rows)
        var differ = 0
        for i in 0..<(toWidth * toHeight) {
            for c in 0..<3 where mine[4 * i + c] != theirs[theirs.startIndex + 3 * i + c] { differ += 1 }
            #expect(mine[4 * i + 3] == 255)
        }
        #expect(differ == 0, "\(width)x\(height) → \(toWidth)x\(toHeight): \(differ) values differ from OpenCV's")
    }
}

/// `PictureScanner` converts only the rows its resize reads when swscale converts
/// 4:2:0 row by row, and its pictures are then those of a whole conversion.
@Suite struct PictureScannerRowsTests {
    @Test func aFullHDClipIsConvertedOnlyWhereTheResizeReads() async throws {
        let scratch = try ScratchDirectory("scanner-rows")
        let clip = scratch.path("hd.mp4")
        let made = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=0.5",
                                                                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip])
        #expect(made.status == 0)
        var exact = PictureScanner.Options()
        exact.scaling = .openCV
        let scanner = try PictureScanner(input: MediaInput(clip), options: exact)
        var pictures: [Frame] = []
        while let picture = try scanner.next() { pictures.append(picture) }
        #expect(pictures.count == 15 && scanner.width == 256 && scanner.height == 144)
        #expect(scanner.convertsReadRowsOnly)
        // The same clip as 10-bit is converted whole (swscale scales its depth).
        let deep = scratch.path("hd10.mp4")
        let madeDeep = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", clip, "-c:v", "libx264", "-preset", "ultrafast",
                                                                    "-pix_fmt", "yuv420p10le", deep])
        #expect(madeDeep.status == 0)
        let whole = try PictureScanner(input: MediaInput(deep), options: exact)
        _ = try whole.next()
        #expect(!whole.convertsReadRowsOnly)
    }
}
