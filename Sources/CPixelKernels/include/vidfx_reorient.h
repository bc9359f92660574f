// Right-angle rotations and mirrors of a BGRA picture, as one affine walk over the source.
#ifndef VIDFX_REORIENT_H
#define VIDFX_REORIENT_H

#include <stdint.h>

/// Output rows [row_start, row_end) of a `width`-pixel-wide picture: out[Y][X] =
/// src[origin + Y·step_y + X·step_x] (indices in pixels, `out_stride` pixels a row).
/// Walked in 32×32 tiles: a rotation reads the source down its columns, and a tile keeps
/// the 32 source rows it reads in the cache, where a plain row-by-row walk misses on
/// every pixel.
void vfx_reorient_rows(const uint32_t *src, long origin, long step_x, long step_y, uint32_t *out, long out_stride,
                       long width, long row_start, long row_end);

/// A right-angle rotation or mirror as source coordinates: output pixel (X, Y) shows
/// source pixel (x0 + X·xx + Y·yx, y0 + X·xy + Y·yy). Exactly one of xy, yy is ±1.
typedef struct {
    long x0, y0, xx, xy, yx, yy;
    long out_width, out_height;
} vfx_walk;

#endif
