import CFFmpeg

/// An FFmpeg dictionary's tags, as many as a hostile file may sensibly bring: at most 256,
/// each key at most 256 bytes and each value at most 4 KB (the rest are left out).
package func metadataTags(of dictionary: OpaquePointer?) -> [String: String] {
    var found: [String: String] = [:]
    var entry: UnsafeMutablePointer<AVDictionaryEntry>?
    while found.count < 256, let e = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
        entry = e
        let key = String(cString: e.pointee.key), value = String(cString: e.pointee.value)
        if key.utf8.count <= 256, value.utf8.count <= 4096 { found[key] = value }
    }
    return found
}
