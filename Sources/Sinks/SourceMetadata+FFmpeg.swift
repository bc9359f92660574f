import CFFmpeg
import MediaInput

extension SourceMetadata {
    /// The tags of an FFmpeg dictionary (bounded: ``metadataTags(of:)``).
    static func tags(of dictionary: OpaquePointer?) -> [String: String] { metadataTags(of: dictionary) }

    /// Sets `tags` into an FFmpeg dictionary.
    static func set(_ tags: [String: String], into dictionary: inout OpaquePointer?) {
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) { av_dict_set(&dictionary, key, value, 0) }
    }

    /// The tags a copy of one stream (or the container) carries from its source under `choice`.
    static func copied(_ dictionary: OpaquePointer?, choice: Choice?) -> [String: String] {
        SourceMetadata(container: tags(of: dictionary), video: [:], audio: [:]).chosen(choice, redacting: false).container
    }
}
