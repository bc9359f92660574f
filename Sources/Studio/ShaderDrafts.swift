import Synchronization

/// Shaders typed into the page and not saved yet, by file name: a chain naming one reads
/// the typed text, not the file of that name (or its absence) in the outputs folder, so
/// that the page sees a shader as it is written. Saving (`POST /api/shader/save`) writes
/// the text into the folder and forgets the draft. Bounded: a page (or any process that
/// has the token) cannot make the studio keep more than ``most`` of
/// ``ShaderSource``-sized texts.
final class ShaderDrafts: Sendable {
    private let drafts = Mutex<[String: String]>([:])

    /// The most drafts kept at once.
    static let most = 16

    /// The draft's text, nil when there is none.
    func text(_ name: String) -> String? { drafts.withLock { $0[name] } }

    /// Whether there is a draft of `name`.
    func holds(_ name: String) -> Bool { text(name) != nil }

    /// Keeps `text` as the draft of `name`.
    /// - Throws: 503 when ``most`` other drafts are kept.
    func keep(_ text: String, as name: String) throws(StudioRequestError) {
        let kept = drafts.withLock { drafts -> Bool in
            guard drafts[name] != nil || drafts.count < Self.most else { return false }
            drafts[name] = text
            return true
        }
        guard kept else {
            throw StudioRequestError(.serviceUnavailable, "\(name): \(Self.most) shaders are being written already; save or close one")
        }
    }

    /// Forgets the draft of `name`.
    func forget(_ name: String) { _ = drafts.withLock { $0.removeValue(forKey: name) } }
}
