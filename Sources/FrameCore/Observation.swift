/// A point in a frame's pixel coordinates (x to the right, y down, the top-left pixel's
/// top-left corner at 0,0), after rotation, with square pixels.
public struct Point: Sendable, Hashable, Codable {
    /// Distance from the left edge, in pixels.
    public var x: Double
    /// Distance from the top edge, in pixels.
    public var y: Double

    /// A point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// An axis-aligned rectangle in a frame's pixel coordinates.
public struct Rect: Sendable, Hashable, Codable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width in pixels.
    public var width: Double
    /// Height in pixels.
    public var height: Double

    /// A rectangle.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest rectangle holding `points` (empty at the origin for none).
    public init(enclosing points: [Point]) {
        guard let first = points.first else { self.init(x: 0, y: 0, width: 0, height: 0); return }
        var (x0, y0, x1, y1) = (first.x, first.y, first.x, first.y)
        for p in points.dropFirst() { x0 = min(x0, p.x); y0 = min(y0, p.y); x1 = max(x1, p.x); y1 = max(y1, p.y) }
        self.init(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Area in square pixels.
    public var area: Double { max(0, width) * max(0, height) }
    /// The centre.
    public var center: Point { Point(x: x + width / 2, y: y + height / 2) }

    /// Intersection over union with `other`: 0 for disjoint rectangles, 1 for equal ones.
    public func iou(_ other: Rect) -> Double {
        let ix = max(0, min(x + width, other.x + other.width) - max(x, other.x))
        let iy = max(0, min(y + height, other.y + other.height) - max(y, other.y))
        let inter = ix * iy
        let union = area + other.area - inter
        return union > 0 ? inter / union : 0
    }

    /// Whether the rectangle has finite coordinates and overlaps a `width` × `height`
    /// frame: what drawing effects check before drawing a box or its caption.
    public func meets(width: Int, height: Int) -> Bool {
        guard x.isFinite, y.isFinite, self.width.isFinite, self.height.isFinite else { return false }
        return x + self.width > 0 && y + self.height > 0 && x < Double(width) && y < Double(height)
    }

    /// The rectangle grown by `fraction` of its size on every side.
    public func padded(by fraction: Double) -> Rect {
        Rect(x: x - width * fraction, y: y - height * fraction, width: width * (1 + 2 * fraction), height: height * (1 + 2 * fraction))
    }

    /// Linear interpolation towards `other` (`t` 0 gives self, 1 gives `other`).
    public func interpolated(to other: Rect, _ t: Double) -> Rect {
        Rect(x: x + (other.x - x) * t, y: y + (other.y - y) * t,
             width: width + (other.width - width) * t, height: height + (other.height - height) * t)
    }
}

/// Something found in a frame: a code (QR, EAN-13, Code 128, …) or a face, as
/// AVFoundation's metadata objects and Core Image's features describe them. Plain
/// values in the displayed frame's pixel coordinates, so that effects can draw and
/// redact them without knowing which detector found them.
public struct Observation: Sendable, Hashable, Codable {
    /// What was found.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A QR code.
        case qr
        /// EAN-13 (and ISBN-13) barcode.
        case ean13
        /// EAN-8 barcode.
        case ean8
        /// UPC-A barcode.
        case upca
        /// UPC-E barcode.
        case upce
        /// Code 128 barcode.
        case code128
        /// Code 39 barcode.
        case code39
        /// Code 93 barcode.
        case code93
        /// Interleaved 2 of 5 barcode.
        case i25
        /// Codabar barcode.
        case codabar
        /// GS1 DataBar barcode.
        case databar
        /// A human face.
        case face

        /// Whether this is a machine-readable code (everything but faces).
        public var isCode: Bool { self != .face }
        /// Whether this is a one-dimensional barcode.
        public var isBarcode: Bool { isCode && self != .qr }
    }

    /// What was found.
    public var kind: Kind
    /// The enclosing rectangle.
    public var bounds: Rect
    /// Codes: the four corners in reading order (top-left, top-right, bottom-right,
    /// bottom-left of the code as it reads, wherever that is in the frame). Empty for faces.
    public var corners: [Point]
    /// Codes: the payload as text, when it is UTF-8.
    public var payload: String?
    /// Codes: the payload's bytes, base64, when they are not UTF-8 text.
    public var payloadBase64: String?
    /// Faces: named landmarks (`leftEye`, `rightEye`, `nose`, `mouthLeft`, `mouthRight`)
    /// where the detector gives them. The subject's left eye is on the image's right.
    public var landmarks: [String: Point]
    /// Faces: in-plane rotation in degrees (positive is clockwise), where it can be derived.
    public var roll: Double?
    /// Faces: turn left or right in degrees, where it can be derived.
    public var yaw: Double?
    /// How sure the detector is, 0…1 (codes that decode are 1).
    public var confidence: Double
    /// The same while the same face or code stays in view (0 until tracked).
    public var trackID: Int
    /// True for boxes carried between detections (tracked or interpolated), false for
    /// boxes a detector reported for this very frame.
    public var isInterpolated: Bool
    /// True for a face's box kept where its track was predicted to be at a detection that
    /// did not find it (a possible miss, redacted all the same).
    public var isHeld: Bool = false
    /// True for a box a person drew (a detections file's `"manual": true`), not a detector.
    public var isManual: Bool = false

    /// An observation.
    public init(kind: Kind, bounds: Rect, corners: [Point] = [], payload: String? = nil, payloadBase64: String? = nil,
                landmarks: [String: Point] = [:], roll: Double? = nil, yaw: Double? = nil, confidence: Double = 1,
                trackID: Int = 0, isInterpolated: Bool = false) {
        self.kind = kind
        self.bounds = bounds
        self.corners = corners
        self.payload = payload
        self.payloadBase64 = payloadBase64
        self.landmarks = landmarks
        self.roll = roll
        self.yaw = yaw
        self.confidence = confidence
        self.trackID = trackID
        self.isInterpolated = isInterpolated
    }

    /// The observation with every coordinate multiplied by `sx` and `sy` (a resized frame).
    public func scaled(x sx: Double, y sy: Double) -> Observation {
        func s(_ p: Point) -> Point { Point(x: p.x * sx, y: p.y * sy) }
        var o = self
        o.bounds = Rect(x: bounds.x * sx, y: bounds.y * sy, width: bounds.width * sx, height: bounds.height * sy)
        o.corners = corners.map(s)
        o.landmarks = landmarks.mapValues(s)
        return o
    }
}
