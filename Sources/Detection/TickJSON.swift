public import FrameCore

/// One line of a detections file (`vidfx detect --json`, `--detections`): a tick and
/// what was found in it.
public struct TickJSON: Encodable, Sendable {
    /// The tick.
    public var tick: Int64
    /// The tick's time in seconds.
    public var time: Double
    /// The time of the source picture shown, in seconds.
    public var sourceTime: Double
    /// What was found.
    public var detections: [ObservationJSON]

    /// The line of `frame`.
    public init(_ frame: Frame) {
        tick = frame.tick
        time = frame.time.seconds
        sourceTime = frame.sourceTime.seconds
        detections = frame.observations.map(ObservationJSON.init)
    }
}

/// An observation as the JSON shows it: empty fields left out, numbers to 0.1 px.
public struct ObservationJSON: Encodable, Sendable {
    /// A point.
    public struct XY: Encodable, Sendable { public var x: Double; public var y: Double }
    /// A rectangle.
    public struct Box: Encodable, Sendable { public var x: Double; public var y: Double; public var width: Double; public var height: Double }
    /// "qr", "barcode", "face"…
    public var kind: String
    /// The same while the thing stays in view.
    public var trackID: Int
    /// True between two detections.
    public var interpolated: Bool
    /// The detector's score, to 0.001.
    public var confidence: Double
    /// The box, in the displayed frame's pixels.
    public var bounds: Box
    /// A code's corners in reading order.
    public var corners: [XY]?
    /// A code's text.
    public var payload: String?
    /// A code's bytes when they are not UTF-8 text.
    public var payloadBase64: String?
    /// A face's landmarks by name.
    public var landmarks: [String: XY]?
    /// A face's roll in degrees.
    public var roll: Double?
    /// A face's yaw in degrees.
    public var yaw: Double?
    /// True where a track was held at its predicted place (a possible miss).
    public var held: Bool?
    /// True for a box a person drew.
    public var manual: Bool?

    /// The JSON form of `o`.
    public init(_ o: Observation) {
        func r(_ v: Double) -> Double { (v * 10).rounded() / 10 }
        func xy(_ p: Point) -> XY { XY(x: r(p.x), y: r(p.y)) }
        kind = o.kind.rawValue
        trackID = o.trackID
        interpolated = o.isInterpolated
        confidence = (o.confidence * 1000).rounded() / 1000
        bounds = Box(x: r(o.bounds.x), y: r(o.bounds.y), width: r(o.bounds.width), height: r(o.bounds.height))
        corners = o.corners.isEmpty ? nil : o.corners.map(xy)
        payload = o.payload
        payloadBase64 = o.payloadBase64
        landmarks = o.landmarks.isEmpty ? nil : o.landmarks.mapValues(xy)
        roll = o.roll.map(r)
        yaw = o.yaw.map(r)
        held = o.isHeld ? true : nil
        manual = o.isManual ? true : nil
    }
}
