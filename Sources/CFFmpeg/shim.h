// What Swift cannot import from FFmpeg's headers directly (function-like macros,
// compound literals, MKTAG-based error codes) and the fields whose names moved
// between FFmpeg releases, as static constants and inline functions.
#ifndef VIDFX_CFFMPEG_SHIM_H
#define VIDFX_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libavdevice/avdevice.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/pixdesc.h>
#include <libavutil/channel_layout.h>
#include <libavutil/mathematics.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/samplefmt.h>
#include <libavutil/mastering_display_metadata.h>
#include <errno.h>

static const int VFX_AVERROR_EOF = AVERROR_EOF;
static const int VFX_AVERROR_EAGAIN = AVERROR(EAGAIN);
static const int VFX_AVERROR_INVALIDDATA = AVERROR_INVALIDDATA;
static const int VFX_AVERROR_DECODER_NOT_FOUND = AVERROR_DECODER_NOT_FOUND;
static const int VFX_AVERROR_STREAM_NOT_FOUND = AVERROR_STREAM_NOT_FOUND;
static const int VFX_AVERROR_EXIT = AVERROR_EXIT;
static const int VFX_AVERROR_ENOENT = AVERROR(ENOENT);
static const int VFX_AVERROR_EACCES = AVERROR(EACCES);
static const int VFX_AVERROR_ETIMEDOUT = AVERROR(ETIMEDOUT);
static const int VFX_AVERROR_EIO = AVERROR(EIO);
static const int VFX_AVERROR_HTTP_BAD_REQUEST = AVERROR_HTTP_BAD_REQUEST;
static const int VFX_AVERROR_HTTP_UNAUTHORIZED = AVERROR_HTTP_UNAUTHORIZED;
static const int VFX_AVERROR_HTTP_FORBIDDEN = AVERROR_HTTP_FORBIDDEN;
static const int VFX_AVERROR_HTTP_NOT_FOUND = AVERROR_HTTP_NOT_FOUND;
static const int VFX_AVERROR_HTTP_OTHER_4XX = AVERROR_HTTP_OTHER_4XX;
static const int VFX_AVERROR_HTTP_SERVER_ERROR = AVERROR_HTTP_SERVER_ERROR;
static const int64_t VFX_AV_NOPTS_VALUE = AV_NOPTS_VALUE;

static inline int vfx_averror(int e) { return AVERROR(e); }

static inline AVRational vfx_time_base_q(void) {
    AVRational q = AV_TIME_BASE_Q;
    return q;
}

static inline void vfx_err2str(int err, char *buf, size_t size) {
    av_make_error_string(buf, size, err);
}

/// Duration of a decoded frame in its stream time base (0 when unknown).
static inline int64_t vfx_frame_duration(const AVFrame *f) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return f->duration;
#else
    return f->pkt_duration;
#endif
}

/// The stream's display matrix (9 int32), or NULL.
static inline const int32_t *vfx_stream_display_matrix(const AVStream *st) {
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data,
                                                         st->codecpar->nb_coded_side_data,
                                                         AV_PKT_DATA_DISPLAYMATRIX);
    return sd && sd->size >= 36 ? (const int32_t *)sd->data : NULL;
#else
    size_t size = 0;
    const uint8_t *p = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    return p && size >= 36 ? (const int32_t *)p : NULL;
#endif
}

/// The brightest an HDR stream gets in nits: its content light level (MaxCLL), else its
/// mastering display's peak; 0 when it says neither.
static inline double vfx_stream_peak_nits(const AVStream *st) {
    size_t size = 0;
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    const AVPacketSideData *cl = av_packet_side_data_get(st->codecpar->coded_side_data, st->codecpar->nb_coded_side_data,
                                                         AV_PKT_DATA_CONTENT_LIGHT_LEVEL);
    const AVPacketSideData *md = av_packet_side_data_get(st->codecpar->coded_side_data, st->codecpar->nb_coded_side_data,
                                                         AV_PKT_DATA_MASTERING_DISPLAY_METADATA);
    const uint8_t *light = cl ? cl->data : NULL, *mastering = md ? md->data : NULL;
    size_t light_size = cl ? cl->size : 0, mastering_size = md ? md->size : 0;
#else
    const uint8_t *light = av_stream_get_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size);
    size_t light_size = size;
    const uint8_t *mastering = av_stream_get_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size);
    size_t mastering_size = size;
#endif
    if (light && light_size >= sizeof(AVContentLightMetadata)) {
        unsigned cll = ((const AVContentLightMetadata *)light)->MaxCLL;
        if (cll > 0) return cll;
    }
    if (mastering && mastering_size >= sizeof(AVMasteringDisplayMetadata)) {
        const AVMasteringDisplayMetadata *m = (const AVMasteringDisplayMetadata *)mastering;
        if (m->has_luminance && m->max_luminance.den > 0) return av_q2d(m->max_luminance);
    }
    return 0;
}

/// Number of channels of an audio stream, across the channel-layout API change.
static inline int vfx_channel_count(const AVCodecParameters *par) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(59, 24, 100)
    return par->ch_layout.nb_channels;
#else
    return par->channels;
#endif
}

/// Whether a decoded picture is flagged interlaced, and top field first.
static inline int vfx_frame_interlaced(const AVFrame *f) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    return (f->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    return f->interlaced_frame;
#endif
}

/// Plane pointer `i` of a frame (the data field is an 8-tuple in Swift).
static inline uint8_t *vfx_frame_plane(const AVFrame *f, int i) { return f->data[i]; }
static inline int vfx_frame_linesize(const AVFrame *f, int i) { return f->linesize[i]; }

/// Gives `f` (format, width and height set) its planes from one buffer of `pool`, laid out
/// with rows aligned to `align` bytes. The pool's buffers must hold
/// av_image_get_buffer_size(format, width, height, align) bytes. 0 or an AVERROR.
static inline int vfx_frame_pooled_buffer(AVFrame *f, AVBufferPool *pool, int align) {
    f->buf[0] = av_buffer_pool_get(pool);
    if (!f->buf[0]) return AVERROR(ENOMEM);
    int r = av_image_fill_arrays(f->data, f->linesize, f->buf[0]->data, (enum AVPixelFormat)f->format,
                                 f->width, f->height, align);
    return r < 0 ? r : 0;
}

#endif
