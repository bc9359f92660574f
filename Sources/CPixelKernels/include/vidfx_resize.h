#ifndef VIDFX_RESIZE_H
#define VIDFX_RESIZE_H

#include <stddef.h>
#include <stdint.h>

/// Shrinks a packed BGR picture into a BGRA one (alpha 255) exactly as OpenCV's
/// `cv::resize(..., INTER_LINEAR)` does on 8-bit pictures (4.x, byte for byte): its
/// float coordinates, its 11-bit fixed-point weights, its vector rounding of the
/// vertical pass, and its switch to area averaging for an exact halving. Growing a
/// picture may differ from OpenCV by a level at a few pixels.
/// `rows` is scratch of at least 8 × dst_width int32 values.
void vfx_resize_bgr_linear(const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                           uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int dst_height,
                           int32_t *rows);

/// Marks in `needed` (src_height bytes) the source rows `vfx_resize_bgr_linear` reads
/// for these sizes: a picture converted only there shrinks to the same bytes.
void vfx_resize_source_rows(int src_width, int src_height, int dst_width, int dst_height, uint8_t *needed);

/// A packed BGR picture turned by a right angle (or mirrored): output pixel (X, Y) is
/// source pixel (x0 + X·xx + Y·yx, y0 + X·xy + Y·yy), `width`×`height` output pixels.
void vfx_walk_bgr(const uint8_t *src, ptrdiff_t src_stride, long x0, long y0, long xx, long xy, long yx, long yy,
                  uint8_t *dst, ptrdiff_t dst_stride, int width, int height);

#endif
