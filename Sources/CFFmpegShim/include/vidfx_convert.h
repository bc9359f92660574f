#ifndef VIDFX_CONVERT_H
#define VIDFX_CONVERT_H

#include <stdint.h>

/// A swscale context converting `sw`×`sh` pictures of `src_format` to `dw`×`dh` of
/// `dst_format` with `flags`, in `threads` horizontal slices on as many threads (1: none).
/// sws_getContext cannot be given threads: they must be set before the context is
/// initialised. NULL when swscale cannot make the conversion. Free with sws_freeContext.
void *vfx_sws_context(int sw, int sh, int src_format, int dw, int dh, int dst_format, int flags, int threads);

/// Converts the decoded picture `src` (an AVFrame) into the packed picture at `dst`
/// (`stride` bytes a row, `height` rows) with swscale's frame API, the one that runs a
/// threaded context's slices in parallel (sws_scale runs the first slice context only).
/// `dst` stays the caller's: it is wrapped, never freed. Returns ≥ 0, or an AVERROR.
int vfx_sws_convert(void *sws, const void *src, uint8_t *dst, int stride, int width, int height, int format);

#endif
