#include "vidfx_reorient.h"

enum { TILE = 32 };

void vfx_reorient_rows(const uint32_t *src, long origin, long step_x, long step_y, uint32_t *out, long out_stride,
                       long width, long row_start, long row_end) {
    for (long ty = row_start; ty < row_end; ty += TILE) {
        long y_end = ty + TILE < row_end ? ty + TILE : row_end;
        for (long tx = 0; tx < width; tx += TILE) {
            long x_end = tx + TILE < width ? tx + TILE : width;
            for (long y = ty; y < y_end; y++) {
                const uint32_t *s = src + origin + y * step_y;
                uint32_t *o = out + y * out_stride;
                for (long x = tx; x < x_end; x++) o[x] = s[x * step_x];
            }
        }
    }
}
