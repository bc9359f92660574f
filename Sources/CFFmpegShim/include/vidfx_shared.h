#ifndef VIDFX_SHARED_H
#define VIDFX_SHARED_H

/// One download of a network input shared by several demuxers of this process (the
/// video and the audio reader of one `apply`). The input is fetched in blocks through
/// one FFmpeg connection; every block is kept in an unlinked sparse temporary file, so a
/// block one reader fetched is read from disk by the others. Readers keep their own
/// positions; a seek to a block not yet fetched moves the connection there (a range
/// request), so an index at the end of the file or a late start costs what it costs a
/// single reader. The download lasts while any of its readers does.

/// Opens `url` for sharing and returns a reader (an AVIOContext, as void * so that this
/// header need not include FFmpeg's). `options` is an AVDictionary ** of protocol
/// options (consumed as avio_open2 does). `interrupt(opaque)`, which may be NULL, is
/// polled while this reader waits on the network; `progress(opaque)`, which may be
/// NULL, is called whenever bytes arrive for it (so a slow but steady download is
/// told apart from a stall). Returns NULL with *error = 0 when the
/// input cannot be shared (unknown size, or not seekable): open it the ordinary way.
/// Returns NULL with *error < 0 (an AVERROR) when it cannot be opened at all.
void *vfx_shared_reader(const char *url, void *options, int (*interrupt)(void *), void (*progress)(void *), void *opaque,
                        int *error);

/// A new reader over the download of `url` that another reader started, or NULL when
/// there is none (then open the input the ordinary way). `interrupt` and `progress` as
/// for vfx_shared_reader; a reader that can be stopped must pass its interrupt, since
/// while it fetches it holds the download every other reader waits on.
void *vfx_shared_join(const char *url, int (*interrupt)(void *), void (*progress)(void *), void *opaque);

/// Frees a custom reader, whichever made it: a shared download's (the last one ends the
/// download) or standard input's spool (vfx_stdin_reader). NULL is ignored.
void vfx_reader_free(void *avio);

#endif
