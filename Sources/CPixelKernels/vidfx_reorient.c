#include "vidfx_reorient.h"

enum { TILE = 32 };

/// out[Y][X] = src[base + Y·step_y + X·step_x] over [x_begin, x_end) × [y_begin, y_end), in tiles.
static void walk_rect(const uint32_t *src, long base, long step_x, long step_y, uint32_t *out, long out_stride,
                      long x_begin, long x_end, long y_begin, long y_end) {
    for (long ty = y_begin; ty < y_end; ty += TILE) {
        long ty_end = ty + TILE < y_end ? ty + TILE : y_end;
        for (long tx = x_begin; tx < x_end; tx += TILE) {
            long tx_end = tx + TILE < x_end ? tx + TILE : x_end;
            for (long y = ty; y < ty_end; y++) {
                const uint32_t *s = src + base + y * step_y;
                uint32_t *o = out + y * out_stride;
                for (long x = tx; x < tx_end; x++) o[x] = s[x * step_x];
            }
        }
    }
}

void vfx_reorient_rows(const uint32_t *src, long origin, long step_x, long step_y, uint32_t *out, long out_stride,
                       long width, long row_start, long row_end) {
    walk_rect(src, origin, step_x, step_y, out, out_stride, 0, width, row_start, row_end);
}

/// The outputs [begin, end) along one axis whose source row, first + i·step (step ±1),
/// lies in [row0, row0 + rows), clipped to [0, n).
static void span(long first, long step, long row0, long rows, long n, long *begin, long *end) {
    long b, e;
    if (step > 0) { b = row0 - first; e = row0 + rows - first; }
    else { b = first - (row0 + rows) + 1; e = first - row0 + 1; }
    *begin = b < 0 ? 0 : (b > n ? n : b);
    *end = e < *begin ? *begin : (e > n ? n : e);
}

void vfx_reorient_band(const uint32_t *band, long width, long row0, long rows, const vfx_walk *w, uint32_t *out,
                       long out_stride) {
    long xb = 0, xe = w->out_width, yb = 0, ye = w->out_height;
    if (w->xy != 0) span(w->y0, w->xy, row0, rows, w->out_width, &xb, &xe);
    else span(w->y0, w->yy, row0, rows, w->out_height, &yb, &ye);
    if (xb >= xe || yb >= ye) return;
    // Indices into the band: the source row less row0.
    const long base = w->x0 + (w->y0 - row0) * width;
    walk_rect(band, base, w->xx + w->xy * width, w->yx + w->yy * width, out, out_stride, xb, xe, yb, ye);
}
