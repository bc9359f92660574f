/// The input's metadata an output carries on: the container's tags (creation time, make,
/// model, location), the video stream's and the audio stream's (language, title). Photo
/// libraries sort by the creation time and show the place; a redacted video should not
/// say where it was filmed.
public struct SourceMetadata: Sendable, Equatable {
    /// What `--metadata` asks for.
    public enum Choice: String, Sendable, CaseIterable {
        /// Every tag the output can hold (a redaction's default drops the location).
        case keep
        /// None: the output says only what the muxer writes.
        case strip
    }

    /// The container's tags.
    public var container: [String: String]
    /// The video stream's tags.
    public var video: [String: String]
    /// The audio stream's tags.
    public var audio: [String: String]
    /// The keys taken out because they say where the video was made.
    public private(set) var removedLocation: [String] = []

    /// What the muxer writes anew, or what no longer describes the output (its encoder, the
    /// input's brands, a rotation already applied to the pictures).
    static let rewritten: Set<String> = ["major_brand", "minor_version", "compatible_brands", "encoder", "vendor_id",
                                         "rotate", "handler_name", "duration", "_statistics_tags", "number_of_frames",
                                         "number_of_bytes", "bps", "alpha_mode"]

    /// The tags of an input as read (`MediaInfo.tags`, its video's and its first audio
    /// stream's), before a choice.
    public init(container: [String: String], video: [String: String], audio: [String: String]) {
        func carried(_ tags: [String: String]) -> [String: String] {
            tags.filter { key, _ in
                let k = key.lowercased()
                return !Self.rewritten.contains(k) && !k.hasPrefix("_statistics") && !k.hasPrefix("number_of_") && !k.hasPrefix("duration")
            }
        }
        self.container = carried(container)
        self.video = carried(video)
        self.audio = carried(audio)
    }

    /// True for a key that says where: `location`, `location-eng`, QuickTime's
    /// `com.apple.quicktime.location.ISO6709`, `©xyz`, GPS tags.
    public static func isLocation(_ key: String) -> Bool {
        let k = key.lowercased()
        return k.contains("location") || k.contains("gps") || k.hasSuffix("xyz") || k.contains("iso6709")
    }

    /// These tags under `choice`; a redaction with no choice given drops the location (and
    /// says which keys in ``removedLocation``); `keep` given explicitly keeps it.
    public func chosen(_ choice: Choice?, redacting: Bool) -> SourceMetadata {
        var out = self
        switch choice {
        case .strip:
            out.container = [:]
            out.video = [:]
            out.audio = [:]
        case .keep:
            break
        case nil:
            guard redacting else { break }
            let removed = (container.keys.filter(Self.isLocation) + video.keys.filter(Self.isLocation) + audio.keys.filter(Self.isLocation))
            out.container = container.filter { !Self.isLocation($0.key) }
            out.video = video.filter { !Self.isLocation($0.key) }
            out.audio = audio.filter { !Self.isLocation($0.key) }
            out.removedLocation = Array(Set(removed)).sorted()
        }
        return out
    }

    /// Nothing to carry.
    public var isEmpty: Bool { container.isEmpty && video.isEmpty && audio.isEmpty }
}
