import Foundation

extension SceneList {
    /// OpenTimelineIO's JSON (`otio_json`): a timeline named after the clip whose one
    /// video track holds a clip a scene, each the clip's file from the scene's first
    /// picture for its length in pictures, at the clip's rate.
    func otio(source: SceneListSource) -> String {
        let rate = source.rate
        func time(_ frames: Int) -> [String: Any] { ["OTIO_SCHEMA": "RationalTime.1", "rate": rate, "value": Double(frames)] }
        func range(_ start: Int, _ length: Int) -> [String: Any] {
            ["OTIO_SCHEMA": "TimeRange.1", "start_time": time(start), "duration": time(length)]
        }
        let total = (scenes.last?.end.frame ?? 0) - (scenes.first?.start.frame ?? 0)
        let clips: [[String: Any]] = scenes.enumerated().map { i, scene in
            [
                "OTIO_SCHEMA": "Clip.2", "name": "\(source.name) scene \(i + 1)", "metadata": [String: Any](),
                "source_range": range(scene.start.frame, scene.end.frame - scene.start.frame),
                "effects": [Any](), "markers": [Any](), "enabled": true,
                "media_references": ["DEFAULT_MEDIA": [
                    "OTIO_SCHEMA": "ExternalReference.1", "name": source.name, "metadata": [String: Any](),
                    "target_url": source.url, "available_range": range(scenes.first?.start.frame ?? 0, total),
                ] as [String: Any]],
                "active_media_reference_key": "DEFAULT_MEDIA",
            ]
        }
        let track: [String: Any] = ["OTIO_SCHEMA": "Track.1", "name": "Video 1", "kind": "Video", "children": clips,
                                    "metadata": [String: Any](), "effects": [Any](), "markers": [Any](), "enabled": true,
                                    "source_range": NSNull()]
        let timeline: [String: Any] = [
            "OTIO_SCHEMA": "Timeline.1", "name": source.name, "metadata": [String: Any](), "global_start_time": NSNull(),
            "tracks": ["OTIO_SCHEMA": "Stack.1", "name": "tracks", "children": [track], "metadata": [String: Any](),
                       "effects": [Any](), "markers": [Any](), "enabled": true, "source_range": NSNull()] as [String: Any],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: timeline, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
