import Foundation

extension SceneList {
    /// OpenTimelineIO's JSON (`otio_json`): a timeline named after the clip whose one
    /// video track holds a clip a scene, each the clip's file from the scene's first
    /// picture for its length in pictures, at the clip's rate.
    func otio(source: SceneListSource) -> String {
        let rate = source.rate
        func range(_ start: Int, _ length: Int) -> OTIO.TimeRange {
            OTIO.TimeRange(start_time: OTIO.Time(rate: rate, value: Double(start)), duration: OTIO.Time(rate: rate, value: Double(length)))
        }
        let total = (scenes.last?.end.frame ?? 0) - (scenes.first?.start.frame ?? 0)
        let reference = OTIO.ExternalReference(name: source.name, target_url: source.url, available_range: range(scenes.first?.start.frame ?? 0, total))
        let clips = scenes.enumerated().map { i, scene in
            OTIO.Clip(name: "\(source.name) scene \(i + 1)", source_range: range(scene.start.frame, scene.end.frame - scene.start.frame),
                      media_references: ["DEFAULT_MEDIA": reference])
        }
        let track = OTIO.Composition(schema: "Track.1", name: "Video 1", kind: "Video", children: clips)
        let timeline = OTIO.Timeline(name: source.name, tracks: OTIO.Composition(schema: "Stack.1", name: "tracks", children: [track]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(timeline)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }
}

/// The OpenTimelineIO schemas a scene list writes, named as `otio_json` names them (each
/// object carries its `OTIO_SCHEMA`; a range left open is an explicit null).
enum OTIO {
    /// Metadata, effects and markers: written empty.
    struct Empty: Encodable {}

    struct Time: Encodable {
        let OTIO_SCHEMA = "RationalTime.1"
        let rate: Double
        let value: Double
    }

    struct TimeRange: Encodable {
        let OTIO_SCHEMA = "TimeRange.1"
        let start_time: Time
        let duration: Time
    }

    struct ExternalReference: Encodable {
        let OTIO_SCHEMA = "ExternalReference.1"
        let name: String
        let metadata = Empty()
        let target_url: String
        let available_range: TimeRange
    }

    struct Clip: Encodable {
        let OTIO_SCHEMA = "Clip.2"
        let name: String
        let metadata = Empty()
        let source_range: TimeRange
        let effects: [Empty] = []
        let markers: [Empty] = []
        let enabled = true
        let media_references: [String: ExternalReference]
        let active_media_reference_key = "DEFAULT_MEDIA"
    }

    /// A track (`Track.1`, with its kind) or a stack (`Stack.1`): its children, and no
    /// range of its own (null).
    struct Composition<Child: Encodable>: Encodable {
        let schema: String
        let name: String
        var kind: String?
        let children: [Child]

        enum CodingKeys: String, CodingKey { case OTIO_SCHEMA, name, kind, children, metadata, effects, markers, enabled, source_range }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(schema, forKey: .OTIO_SCHEMA)
            try c.encode(name, forKey: .name)
            try c.encodeIfPresent(kind, forKey: .kind)
            try c.encode(children, forKey: .children)
            try c.encode(Empty(), forKey: .metadata)
            try c.encode([Empty](), forKey: .effects)
            try c.encode([Empty](), forKey: .markers)
            try c.encode(true, forKey: .enabled)
            try c.encodeNil(forKey: .source_range)
        }
    }

    struct Timeline: Encodable {
        let name: String
        let tracks: Composition<Composition<Clip>>

        enum CodingKeys: String, CodingKey { case OTIO_SCHEMA, name, metadata, global_start_time, tracks }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("Timeline.1", forKey: .OTIO_SCHEMA)
            try c.encode(name, forKey: .name)
            try c.encode(Empty(), forKey: .metadata)
            try c.encodeNil(forKey: .global_start_time)
            try c.encode(tracks, forKey: .tracks)
        }
    }
}
