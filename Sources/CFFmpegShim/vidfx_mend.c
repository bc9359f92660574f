#include "vidfx_mend.h"
#include <libavcodec/packet.h>
#include <libavutil/avutil.h>
#include <libavutil/mathematics.h>
#include <stdint.h>
#include <stdlib.h>
#include <libavformat/avformat.h>

enum { BACKWARD_US = 100000, FORWARD_US = 10000000 };

struct vfx_mender {
    int streams;
    int master;           // the stream whose continuity decides the offset (the video)
    int jumps;
    int pending;          // another stream jumped first: the master's next packet decides
    int64_t offset;       // µs added to every timestamp
    int64_t *last_dts;    // per stream, mended µs; INT64_MIN before any
    int64_t *end;         // per stream, latest mended packet end, µs
};

static vfx_mender *mender_new(int streams, int master) {
    vfx_mender *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->streams = streams > 0 ? streams : 1;
    m->master = master;
    m->last_dts = malloc(sizeof *m->last_dts * (size_t)m->streams);
    m->end = malloc(sizeof *m->end * (size_t)m->streams);
    if (!m->last_dts || !m->end) { vfx_mender_free(m); return NULL; }
    vfx_mender_reset(m);
    return m;
}

void vfx_mender_free(vfx_mender *m) {
    if (!m) return;
    free(m->last_dts);
    free(m->end);
    free(m);
}

void vfx_mender_reset(vfx_mender *m) {
    m->offset = 0;
    m->pending = 0;
    for (int i = 0; i < m->streams; i++) m->last_dts[i] = m->end[i] = INT64_MIN;
}

int vfx_mender_jumps(const vfx_mender *m) { return m->jumps; }

int vfx_mender_mend(vfx_mender *m, void *packet, int tb_num, int tb_den) {
    AVPacket *p = packet;
    if (p->stream_index < 0 || p->stream_index >= m->streams || tb_num <= 0 || tb_den <= 0) return 0;
    AVRational tb = { tb_num, tb_den }, us = { 1, 1000000 };
    int64_t when = p->dts != AV_NOPTS_VALUE ? p->dts : p->pts;
    if (when == AV_NOPTS_VALUE) return 0;
    // Where a jumping packet is placed: its presentation time (a keyframe's dts lies
    // before it by the B-frame delay, which is no gap on screen).
    int64_t first = p->pts != AV_NOPTS_VALUE ? p->pts : when;
    int64_t raw = av_rescale_q(when, tb, us);
    int64_t dts = raw + m->offset;
    int s = p->stream_index;
    int master = s == m->master || m->master < 0 || m->master >= m->streams;
    int64_t *last = &m->last_dts[s];
    int jumped = 0;
    int jump = *last != INT64_MIN && (dts < *last - BACKWARD_US || dts > *last + FORWARD_US);
    if ((jump || (master && m->pending)) && m->end[s] != INT64_MIN) {
        // This packet's earliest time goes where its stream left off. Decided by the
        // master stream; another stream that notices first sets a provisional offset,
        // which the master's next packet replaces.
        m->offset = m->end[s] - av_rescale_q(first, tb, us);
        dts = raw + m->offset;
        if (!m->pending) m->jumps++, jumped = 1;
        m->pending = !master;
    }
    *last = dts;
    int64_t shift = av_rescale_q(m->offset, us, tb);
    if (p->pts != AV_NOPTS_VALUE) p->pts += shift;
    if (p->dts != AV_NOPTS_VALUE) p->dts += shift;
    int64_t start = p->pts != AV_NOPTS_VALUE ? p->pts : p->dts;
    int64_t end = av_rescale_q(start + (p->duration > 0 ? p->duration : 0), tb, us);
    if (end > m->end[s]) m->end[s] = end;
    return jumped;
}

int vfx_best_video_stream(void *format) {
    AVFormatContext *ctx = format;
    int best = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (best >= 0 && ctx->streams[best]->disposition & AV_DISPOSITION_ATTACHED_PIC) {
        for (unsigned i = 0; i < ctx->nb_streams; i++) {
            AVStream *st = ctx->streams[i];
            if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && !(st->disposition & AV_DISPOSITION_ATTACHED_PIC)) return (int)i;
        }
    }
    return best < 0 ? -1 : best;
}

vfx_mender *vfx_mender_for(void *format, int *video, int *audio) {
    AVFormatContext *ctx = format;
    *video = vfx_best_video_stream(ctx);
    *audio = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
    if (*audio < 0) *audio = -1;
    if (!ctx->iformat || !(ctx->iformat->flags & AVFMT_TS_DISCONT)) return NULL;
    return mender_new((int)ctx->nb_streams, *video);
}
