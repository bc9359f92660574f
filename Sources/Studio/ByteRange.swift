import Foundation

/// One `Range: bytes=…` request header read against a file of `size` bytes (RFC 9110
/// §14.1.2): `bytes=A-B`, `bytes=A-` and `bytes=-N` (the last N bytes). What the page's
/// video player sends to seek in a long render.
package enum ByteRange: Equatable {
    /// No range, or one this server answers with the whole file (several ranges, another unit).
    case whole
    /// The bytes `range` of the file: answered 206 with `Content-Range`.
    case part(ClosedRange<Int>)
    /// A range that starts past the end, or a malformed one: answered 416.
    case unsatisfiable

    /// Reads `header` (nil: no Range header) for a file of `size` bytes.
    package init(header: String?, size: Int) {
        guard let header else { self = .whole; return }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else { self = .whole; return }
        let spec = text.dropFirst(6)
        // Several ranges would need a multipart answer; the whole file is a valid answer too.
        guard !spec.contains(",") else { self = .whole; return }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count <= 18 && $0.allSatisfy(\.isASCIIDigit) }) else {
            self = .unsatisfiable
            return
        }
        let first = Int(parts[0]), last = Int(parts[1])
        switch (first, last) {
        case (let a?, let b?):
            guard a <= b, a < size else { self = .unsatisfiable; return }
            self = .part(a...min(b, size - 1))
        case (let a?, nil):
            guard a < size else { self = .unsatisfiable; return }
            self = .part(a...(size - 1))
        case (nil, let n?):
            guard n > 0, size > 0 else { self = .unsatisfiable; return }
            self = .part(max(0, size - n)...(size - 1))
        case (nil, nil):
            self = .unsatisfiable
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
