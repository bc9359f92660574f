import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Recycles frame buffers so that a steady stream of frames allocates nothing.
///
/// A buffer taken from the pool goes back to it when the last ``Frame`` holding it
/// is released; at most `capacity` idle buffers are kept, the rest are freed.
/// Buffers of a different size than the last request are freed, not kept, so a
/// size change mid-stream does not pin old memory.
public final class FramePool: Sendable {
    /// Alignment of every buffer and of every row: wide enough for any SIMD store.
    public static let alignment = 64

    private struct Idle: ~Copyable {
        var byteCount = 0
        var buffers: [UInt] = []  // addresses: raw pointers are not Sendable
    }

    private let idle = Mutex(Idle())
    private let capacity: Int

    /// Creates a pool that keeps up to `capacity` idle buffers.
    public init(capacity: Int = 8) { self.capacity = capacity }

    deinit {
        idle.withLock { state in
            for p in state.buffers { free(UnsafeMutableRawPointer(bitPattern: p)) }
            state.buffers.removeAll()
        }
    }

    /// A buffer of `byteCount` bytes (contents unspecified).
    func take(byteCount: Int) -> FrameBuffer {
        let reused: UInt? = idle.withLock { state in
            guard state.byteCount == byteCount else { return nil }
            return state.buffers.popLast()
        }
        let bytes = reused.flatMap { UnsafeMutableRawPointer(bitPattern: $0) } ?? FramePool.allocate(byteCount)
        return FrameBuffer(bytes: bytes, count: byteCount, pool: self)
    }

    /// Takes a buffer back; frees it when the pool is full or sized differently.
    fileprivate func recycle(_ bytes: UnsafeMutableRawPointer, count: Int) {
        let address = UInt(bitPattern: bytes)
        let kept = idle.withLock { state -> Bool in
            if state.byteCount != count {
                for p in state.buffers { free(UnsafeMutableRawPointer(bitPattern: p)) }
                state.buffers.removeAll()
                state.byteCount = count
            }
            guard state.buffers.count < capacity else { return false }
            state.buffers.append(address)
            return true
        }
        if !kept { free(bytes) }
    }

    /// Number of idle buffers held (for tests and diagnostics).
    public var idleCount: Int { idle.withLock { $0.buffers.count } }

    static func allocate(_ byteCount: Int) -> UnsafeMutableRawPointer {
        var p: UnsafeMutableRawPointer?
        guard posix_memalign(&p, alignment, max(byteCount, alignment)) == 0, let p else {
            fatalError("out of memory allocating a \(byteCount)-byte frame buffer")
        }
        return p
    }
}

extension FramePool {
    /// Makes the C allocator map every block of 256 KB or more on its own and unmap it
    /// when freed (glibc's `M_MMAP_THRESHOLD`, fixed). By default glibc raises that
    /// threshold after the first large free, and from then on serves megabyte frames
    /// from per-thread heaps that keep what was freed; with frames allocated on one
    /// thread and freed on another, that costs ~20 MB at the peak of a 1080p encode.
    /// Call once at start-up in a program that moves many frames between threads.
    /// Does nothing where the C library has no `mallopt`.
    public static func preferMappedBuffers() {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }  // RTLD_DEFAULT
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in <malloc.h>
        _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 256 * 1024)
        #endif
    }
}

/// The bytes of one frame. Immutable once shared: ``Frame`` copies on write.
final class FrameBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawPointer
    let count: Int
    private let pool: FramePool?

    init(bytes: UnsafeMutableRawPointer, count: Int, pool: FramePool?) {
        self.bytes = bytes
        self.count = count
        self.pool = pool
    }

    convenience init(byteCount: Int) {
        self.init(bytes: FramePool.allocate(byteCount), count: byteCount, pool: nil)
    }

    deinit {
        if let pool { pool.recycle(bytes, count: count) } else { free(bytes) }
    }
}
