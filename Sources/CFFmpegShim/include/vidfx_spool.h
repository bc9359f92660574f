#ifndef VIDFX_SPOOL_H
#define VIDFX_SPOOL_H

/// Standard input, copied as it arrives into an unlinked temporary file by a background
/// thread, so that its demuxer can seek back in what has arrived (an MP4 indexed at its
/// end, a loop), and a second look at its first bytes (is it a playlist?) costs nothing. A read past what has
/// arrived waits for more; a seek past it waits for it; the end is the input's end.
/// The spool starts with the first reader and lasts until the process exits.

/// A new reader over the spool of standard input, as an AVIOContext (returned as void *
/// so that this header need not include FFmpeg's). `interrupt(opaque)` returning non-zero
/// makes a waiting read give up with AVERROR_EXIT; it may be NULL. NULL when out of
/// memory or when no temporary file can be made (errno says why). `interrupt` is asked
/// on every read as well as while one waits.
void *vfx_stdin_reader(int (*interrupt)(void *), void *opaque);

/// Frees a reader made by vfx_stdin_reader (the AVIOContext and its buffer).
void vfx_stdin_reader_free(void *avio);

#endif
