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
