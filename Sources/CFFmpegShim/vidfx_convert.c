#include "vidfx_convert.h"
#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

void *vfx_sws_context(int sw, int sh, int src_format, int dw, int dh, int dst_format, int flags, int threads) {
    struct SwsContext *c = sws_alloc_context();
    if (!c) return NULL;
    if (av_opt_set_int(c, "srcw", sw, 0) < 0 || av_opt_set_int(c, "srch", sh, 0) < 0 ||
        av_opt_set_int(c, "src_format", src_format, 0) < 0 || av_opt_set_int(c, "dstw", dw, 0) < 0 ||
        av_opt_set_int(c, "dsth", dh, 0) < 0 || av_opt_set_int(c, "dst_format", dst_format, 0) < 0 ||
        av_opt_set_int(c, "sws_flags", flags, 0) < 0 || av_opt_set_int(c, "threads", threads, 0) < 0 ||
        sws_init_context(c, NULL, NULL) < 0) {
        sws_freeContext(c);
        return NULL;
    }
    return c;
}

// The wrapped picture is the caller's memory: nothing to free.
static void keep(void *opaque, uint8_t *data) {
    (void)opaque;
    (void)data;
}

int vfx_sws_convert(void *sws, const void *src, uint8_t *dst, int stride, int width, int height, int format) {
    AVFrame *out = av_frame_alloc();
    if (!out) return AVERROR(ENOMEM);
    out->buf[0] = av_buffer_create(dst, (size_t)stride * (size_t)height, keep, NULL, 0);
    if (!out->buf[0]) {
        av_frame_free(&out);
        return AVERROR(ENOMEM);
    }
    out->data[0] = dst;
    out->linesize[0] = stride;
    out->width = width;
    out->height = height;
    out->format = format;
    int ret = sws_scale_frame(sws, out, src);
    av_frame_free(&out);
    return ret;
}
