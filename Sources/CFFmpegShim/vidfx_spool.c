#include "vidfx_spool.h"
#include <libavformat/avio.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t grew;
    int file;       // the unlinked temporary file
    int64_t size;   // bytes of it written so far
    int done;       // standard input has ended (or failed: error)
    int error;      // errno of a failed read or write, 0 if none
} spool;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static spool *stdin_spool;  // reachable for the life of the process, by design
static int start_error;

static void *pump(void *arg) {
    spool *s = arg;
    enum { CHUNK = 1 << 16 };
    unsigned char *buf = malloc(CHUNK);
    int err = buf ? 0 : ENOMEM;
    int64_t written = 0;  // only this thread writes `size`
    while (!err) {
        ssize_t n = read(STDIN_FILENO, buf, CHUNK);
        if (n < 0) { if (errno == EINTR) continue; err = errno; break; }
        if (n == 0) break;
        for (ssize_t off = 0; off < n && !err;) {
            ssize_t w = pwrite(s->file, buf + off, (size_t)(n - off), written + off);
            if (w < 0) { if (errno != EINTR) err = errno; } else off += w;
        }
        if (err) break;
        written += n;
        pthread_mutex_lock(&s->lock);
        s->size = written;
        pthread_cond_broadcast(&s->grew);
        pthread_mutex_unlock(&s->lock);
    }
    free(buf);
    pthread_mutex_lock(&s->lock);
    s->done = 1;
    s->error = err;
    pthread_cond_broadcast(&s->grew);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void start(void) {
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/vidfx-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) { start_error = errno; return; }
    unlink(path);  // gone from the folder at once; the space returns when the process exits
    spool *s = calloc(1, sizeof *s);
    if (!s) { close(fd); start_error = ENOMEM; return; }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->grew, NULL);
    s->file = fd;
    pthread_t thread;
    if (pthread_create(&thread, NULL, pump, s) != 0) { close(fd); free(s); start_error = EAGAIN; return; }
    pthread_detach(thread);
    stdin_spool = s;
}

typedef struct {
    spool *s;
    int64_t pos;
    int (*interrupt)(void *);
    void *opaque;
} reader;

/// Waits (lock held) until more than `want` bytes have arrived or the input ended.
/// Non-zero when the interrupt callback asked to stop.
static int wait_beyond(reader *r, int64_t want) {
    spool *s = r->s;
    while (s->size <= want && !s->done) {
        if (r->interrupt && r->interrupt(r->opaque)) return 1;
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 50 * 1000 * 1000;  // wake now and then to look at the interrupt
        if (t.tv_nsec >= 1000000000) { t.tv_sec += 1; t.tv_nsec -= 1000000000; }
        pthread_cond_timedwait(&s->grew, &s->lock, &t);
    }
    return 0;
}

static int read_packet(void *opaque, uint8_t *buf, int size) {
    reader *r = opaque;
    spool *s = r->s;
    // Asked on every read, not only while waiting: input that never pauses must stop too.
    if (r->interrupt && r->interrupt(r->opaque)) return AVERROR_EXIT;
    pthread_mutex_lock(&s->lock);
    int stop = wait_beyond(r, r->pos);
    int64_t have = s->size - r->pos;
    int err = s->error;
    pthread_mutex_unlock(&s->lock);
    if (stop) return AVERROR_EXIT;
    if (have <= 0) return err ? AVERROR(err) : AVERROR_EOF;
    if (have < size) size = (int)have;
    ssize_t n = pread(s->file, buf, (size_t)size, r->pos);
    if (n < 0) return AVERROR(errno);
    if (n == 0) return AVERROR_EOF;
    r->pos += n;
    return (int)n;
}

static int64_t seek(void *opaque, int64_t offset, int whence) {
    reader *r = opaque;
    spool *s = r->s;
    pthread_mutex_lock(&s->lock);
    int64_t result;
    if (whence & AVSEEK_SIZE) {
        result = s->done && !s->error ? s->size : AVERROR(ENOSYS);  // unknown until the end
    } else {
        int64_t target = -1;
        int stop = 0;
        switch (whence & ~AVSEEK_FORCE) {
        case SEEK_SET: target = offset; break;
        case SEEK_CUR: target = r->pos + offset; break;
        case SEEK_END: stop = wait_beyond(r, INT64_MAX); target = s->size + offset; break;
        }
        if (!stop && target >= 0) stop = wait_beyond(r, target - 1);  // the bytes before it have arrived
        if (stop) result = AVERROR_EXIT;
        else if (target < 0 || target > s->size) result = AVERROR(EINVAL);
        else result = r->pos = target;
    }
    pthread_mutex_unlock(&s->lock);
    return result;
}

void *vfx_stdin_reader(int (*interrupt)(void *), void *opaque) {
    pthread_once(&once, start);
    if (!stdin_spool) { errno = start_error; return NULL; }
    reader *r = calloc(1, sizeof *r);
    enum { BUFFER = 1 << 16 };
    unsigned char *buffer = av_malloc(BUFFER);
    AVIOContext *avio = r && buffer ? avio_alloc_context(buffer, BUFFER, 0, r, read_packet, NULL, seek) : NULL;
    if (!avio) { av_free(buffer); free(r); errno = ENOMEM; return NULL; }
    r->s = stdin_spool;
    r->interrupt = interrupt;
    r->opaque = opaque;
    return avio;
}

void vfx_stdin_reader_free(void *p) {
    AVIOContext *avio = p;
    if (!avio) return;
    free(avio->opaque);
    av_freep(&avio->buffer);
    avio_context_free(&avio);
}
