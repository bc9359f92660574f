import CFFmpeg

extension SourceMetadata {
    /// The tags of an FFmpeg dictionary, as many as a hostile file may bring sensibly (256
    /// of 4 KB at most).
    static func tags(of dictionary: OpaquePointer?) -> [String: String] {
        var found: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while found.count < 256, let e = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            entry = e
            let key = String(cString: e.pointee.key), value = String(cString: e.pointee.value)
            if key.utf8.count <= 256, value.utf8.count <= 4096 { found[key] = value }
        }
        return found
    }

    /// Sets `tags` into an FFmpeg dictionary.
    static func set(_ tags: [String: String], into dictionary: inout OpaquePointer?) {
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) { av_dict_set(&dictionary, key, value, 0) }
    }

    /// The tags a copy of one stream (or the container) carries from its source under `choice`.
    static func copied(_ dictionary: OpaquePointer?, choice: Choice?) -> [String: String] {
        SourceMetadata(container: tags(of: dictionary), video: [:], audio: [:]).chosen(choice, redacting: false).container
    }
}
