import Foundation

// The studio's JSON answers, a type each: the contract the page, scripts and the route
// tests read (docs/studio.md). Absent optionals are left out, except where a field says
// otherwise.

/// `GET /api/info`: the clip and the studio's settings.
struct StudioInfo: Encodable {
    /// The input as a command line names it.
    var input: String
    var width: Int
    var height: Int
    /// The cadence as a fraction (`30000/1001`) and as a number.
    var frameRate: String
    var fps: Double
    /// The outputs folder's path.
    var outputs: String
    /// Options every command the studio writes repeats (`--start`, `--size`…).
    var commandOptions: [String]
    /// The clip's length in seconds, and its ticks, when known.
    var duration: Double?
    var ticks: Int?
}

/// `GET /api/timeline`: working, failed (with why) or ready (with the strip).
struct TimelineAnswer: Encodable {
    var state: String
    var error: String?
    var count: Int?
    var width: Int?
    var height: Int?
    var times: [Double]?
    var cuts: [Double]?
    /// Where the strip's JPEG is.
    var image: String?
}

/// One file of `GET /api/outputs`.
struct OutputEntry: Encodable {
    var name: String
    var size: Int
}

/// `POST /api/render` and `POST /api/detect`: the job started, and the command it runs.
struct JobStarted: Encodable {
    var id: String
    var command: String
}

/// `GET /api/render/ID`. `error` is always there: null until the job fails.
struct JobStatus: Encodable {
    var id: String
    var state: String
    var progress: Double
    var output: String
    var command: String
    var error: String?
    var eta: Double?
    var place: Int?

    init(id: String, _ s: RenderJobs.Status) {
        (self.id, state, progress, output, command, error, eta, place) = (id, s.state, s.progress, s.output, s.command, s.error, s.eta, s.place)
    }

    private enum CodingKeys: String, CodingKey { case id, state, progress, output, command, error, eta, place }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(state, forKey: .state)
        try c.encode(progress, forKey: .progress)
        try c.encode(output, forKey: .output)
        try c.encode(command, forKey: .command)
        try c.encode(error, forKey: .error)  // null while there is none
        try c.encodeIfPresent(eta, forKey: .eta)
        try c.encodeIfPresent(place, forKey: .place)
    }
}

/// `DELETE /api/render/ID`.
struct JobCancelling: Encodable {
    var id: String
    var cancelling = true
}

/// `POST /api/follow`: the drawn box on each tick it was followed to.
struct FollowedBoxes: Encodable {
    struct Box: Encodable {
        var tick: Int64
        var x: Double
        var y: Double
        var width: Double
        var height: Double
    }
    var boxes: [Box]
}

/// `PUT /api/detections/NAME`: the file as saved.
struct SavedDetections: Encodable {
    var name: String
    var tracks: Int
    var manualBoxes: Int
    var lastTick: Int64
}

/// Every refusal: `{"error": "…"}`.
struct ErrorAnswer: Encodable {
    var error: String
}

/// The WebSocket's answer to a chain edit: applied or not (with why), and the edit's number.
struct ChainAnswer: Encodable {
    var type = "chain"
    var ok: Bool
    var edit: Int
    var error: String?

    init(ok: Bool, edit: Int, error: String? = nil) {
        (self.ok, self.edit, self.error) = (ok, edit, error)
    }
}

/// The header of each live frame on the WebSocket: the tick and time shown, the chain
/// edit that rendered it, its size, and what detection found on it (for the track list).
struct FrameHeader: Encodable {
    struct Box: Encodable {
        var track: Int
        var kind: String
        var x, y, w, h: Int
        /// To three decimals.
        var score: Double
    }
    var tick: Int64
    var time: Double
    var edit: Int
    var width: Int
    var height: Int
    var boxes: [Box]
}
