#include "vidfx_shared.h"
#include "vidfx_spool.h"
#include <libavformat/avio.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// 16 KiB: small enough that a block arrives well within a stall timeout on a slow link
// (the waiting reader sees no progress until its block is whole), large enough that the
// per-block lock and pwrite cost nothing next to the network.
enum { BLOCK = 1 << 14 };

struct vfx_download {
    int holders;            // the opener's hold and one per reader; atomic
    pthread_mutex_t lock;   // guards everything below, and the connection
    AVIOContext *up;        // the one connection
    int64_t size;
    int64_t up_pos;         // where the connection will read next
    int file;               // the unlinked sparse cache
    unsigned char *have;    // one flag per block
    unsigned char *scratch; // BLOCK bytes
    int (*interrupt)(void *);  // the fetching reader's, while it fetches
    void (*progress)(void *);  // likewise: told of every byte that arrives
    void *opaque;
};
typedef struct vfx_download download;

typedef struct {
    download *d;
    int64_t pos;
    int (*interrupt)(void *);
    void (*progress)(void *);
    void *opaque;
} reader;

static int connection_interrupt(void *opaque) {
    download *d = opaque;  // called by FFmpeg on the fetching thread, which holds d->lock
    return d->interrupt ? d->interrupt(d->opaque) : 0;
}

static void download_free(download *d) {
    if (!d) return;
    avio_closep(&d->up);
    if (d->file >= 0) close(d->file);
    pthread_mutex_destroy(&d->lock);
    free(d->have);
    free(d->scratch);
    free(d);
}

/// Brings block `b` into the cache. Called with d->lock held.
static int fetch(download *d, int64_t b, const reader *r) {
    int64_t off = b * BLOCK;
    int len = (int)(d->size - off < BLOCK ? d->size - off : BLOCK);
    d->interrupt = r->interrupt;
    d->progress = r->progress;
    d->opaque = r->opaque;
    int err = 0;
    if (d->up_pos != off) {
        int64_t p = avio_seek(d->up, off, SEEK_SET);
        if (p < 0) err = (int)p;
        else d->up_pos = off;
    }
    for (int done = 0; !err && done < len;) {
        // Partial reads return as soon as bytes arrive (avio_read waits for all of them).
        int k = avio_read_partial(d->up, d->scratch + done, len - done);
        if (k <= 0) { err = k < 0 ? k : AVERROR(EIO); break; }
        done += k;
        d->up_pos += k;
        // Bytes arriving are progress, even before the block is whole: a slow but
        // steady server is not a stall.
        if (d->progress) d->progress(d->opaque);
    }
    for (int done = 0; !err && done < len;) {
        ssize_t w = pwrite(d->file, d->scratch + done, (size_t)(len - done), off + done);
        if (w < 0) { if (errno != EINTR) err = AVERROR(errno); } else done += (int)w;
    }
    d->interrupt = NULL;
    d->progress = NULL;
    d->opaque = NULL;
    if (err) {
        // The connection's position is unknown after a failed read: seek next time.
        d->up_pos = -1;
        return err;
    }
    d->have[b] = 1;
    return 0;
}

static int read_shared(void *opaque, uint8_t *buf, int n) {
    reader *r = opaque;
    download *d = r->d;
    if (r->pos >= d->size) return AVERROR_EOF;
    int64_t b = r->pos / BLOCK;
    pthread_mutex_lock(&d->lock);
    int err = d->have[b] ? 0 : fetch(d, b, r);
    pthread_mutex_unlock(&d->lock);
    if (err) return err;
    int64_t end = (b + 1) * BLOCK < d->size ? (b + 1) * BLOCK : d->size;
    if ((int64_t)n > end - r->pos) n = (int)(end - r->pos);
    ssize_t got;
    do { got = pread(d->file, buf, (size_t)n, r->pos); } while (got < 0 && errno == EINTR);
    if (got <= 0) return got < 0 ? AVERROR(errno) : AVERROR(EIO);
    r->pos += got;
    return (int)got;
}

static int64_t seek_shared(void *opaque, int64_t offset, int whence) {
    reader *r = opaque;
    int64_t size = r->d->size;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return size;
    case SEEK_SET: break;
    case SEEK_CUR: offset += r->pos; break;
    case SEEK_END: offset += size; break;
    default: return AVERROR(EINVAL);
    }
    if (offset < 0) return AVERROR(EINVAL);
    r->pos = offset;
    return offset;
}

static void *new_reader(download *d, int (*interrupt)(void *), void (*progress)(void *), void *opaque) {
    enum { BUFFER = 1 << 15 };
    reader *r = calloc(1, sizeof *r);
    unsigned char *buffer = av_malloc(BUFFER);
    AVIOContext *io = r && buffer ? avio_alloc_context(buffer, BUFFER, 0, r, read_shared, NULL, seek_shared) : NULL;
    if (!io) { free(r); av_free(buffer); return NULL; }
    r->d = d;
    r->interrupt = interrupt;
    r->progress = progress;
    r->opaque = opaque;
    io->seekable = AVIO_SEEKABLE_NORMAL;
    return io;
}

static void release(download *d) {
    if (d && __atomic_sub_fetch(&d->holders, 1, __ATOMIC_ACQ_REL) == 0) download_free(d);
}

vfx_download *vfx_download_open(const char *url, void *options, int (*interrupt)(void *), void *opaque, int *error) {
    *error = 0;
    download *d = calloc(1, sizeof *d);
    if (!d) { *error = AVERROR(ENOMEM); return NULL; }
    d->file = -1;
    pthread_mutex_init(&d->lock, NULL);
    d->scratch = malloc(BLOCK);
    if (!d->scratch) { download_free(d); *error = AVERROR(ENOMEM); return NULL; }

    // The opener's interrupt covers the connection while it is made.
    d->interrupt = interrupt;
    d->opaque = opaque;
    AVIOInterruptCB cb = { connection_interrupt, d };
    int r = avio_open2(&d->up, url, AVIO_FLAG_READ, &cb, (AVDictionary **)options);
    d->interrupt = NULL;
    d->opaque = NULL;
    if (r < 0) { download_free(d); *error = r; return NULL; }
    d->size = avio_size(d->up);
    if (d->size <= 0 || !(d->up->seekable & AVIO_SEEKABLE_NORMAL)) {
        download_free(d);  // a live or chunked stream: nothing to share safely
        return NULL;
    }
    d->up_pos = 0;
    d->have = calloc((size_t)((d->size + BLOCK - 1) / BLOCK), 1);
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/vidfx-download-XXXXXX", dir && *dir ? dir : "/tmp");
    d->file = d->have ? mkstemp(path) : -1;
    if (d->file < 0) { download_free(d); return NULL; }  // no cache: read it the ordinary way
    unlink(path);
    d->holders = 1;
    return d;
}

void *vfx_download_reader(vfx_download *d, int (*interrupt)(void *), void (*progress)(void *), void *opaque) {
    void *io = new_reader(d, interrupt, progress, opaque);
    if (io) __atomic_add_fetch(&d->holders, 1, __ATOMIC_ACQ_REL);
    return io;
}

void vfx_download_release(vfx_download *d) { release(d); }

void vfx_reader_free(void *avio) {
    if (!avio) return;
    AVIOContext *io = avio;
    if (io->read_packet != read_shared) { vfx_stdin_reader_free(avio); return; }
    reader *r = io->opaque;
    download *d = r->d;
    av_freep(&io->buffer);
    avio_context_free(&io);
    free(r);
    release(d);
}
