#ifndef VIDFX_SHARED_H
#define VIDFX_SHARED_H

/// One download of a network input shared by several demuxers (the video and the audio
/// reader of one `apply`, through the input's MediaInput, which holds the download). The input is fetched in blocks through
/// one FFmpeg connection; every block is kept in an unlinked sparse temporary file, so a
/// block one reader fetched is read from disk by the others. Readers keep their own
/// positions; a seek to a block not yet fetched moves the connection there (a range
/// request), so an index at the end of the file or a late start costs what it costs a
/// single reader. The download lasts while any of its readers does.

typedef struct vfx_download vfx_download;

/// Opens `url` for sharing: the connection is made (polling `interrupt(opaque)`, which
/// may be NULL) and the size learnt. `options` is an AVDictionary ** of protocol
/// options (consumed as avio_open2 does). Returns NULL with *error = 0 when the input
/// cannot be shared (unknown size, or not seekable): open it the ordinary way; NULL
/// with *error < 0 (an AVERROR) when it cannot be opened at all. The caller holds the
/// download until vfx_download_release; each reader holds it too, so it lasts while
/// either does.
vfx_download *vfx_download_open(const char *url, void *options, int (*interrupt)(void *), void *opaque, int *error);

/// A new reader (an AVIOContext, as void * so that this header need not include
/// FFmpeg's) over `download`, with its own position. `interrupt(opaque)`, which may be
/// NULL, is polled while this reader waits on the network (a reader that can be stopped
/// must pass it, since while it fetches it holds the download every other reader waits
/// on); `progress(opaque)`, which may be NULL, is called whenever bytes arrive for it
/// (so a slow but steady download is told apart from a stall). NULL when out of memory.
void *vfx_download_reader(vfx_download *download, int (*interrupt)(void *), void (*progress)(void *), void *opaque);

/// Gives up the opener's hold on `download`. NULL is ignored.
void vfx_download_release(vfx_download *download);

/// Frees a custom reader, whichever made it: a shared download's (the last one ends the
/// download) or standard input's spool (vfx_stdin_reader). NULL is ignored.
void vfx_reader_free(void *avio);

#endif
