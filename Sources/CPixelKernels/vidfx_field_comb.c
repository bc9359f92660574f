#include "vidfx_field_comb.h"

#include <stdlib.h>
#include <string.h>

// 8-bit thresholds: combing must exceed the grain of ordinary footage; motion, the
// noise of a clean encode.
enum { COMB_THRESHOLD = 10, MOTION_THRESHOLD = 8 };

// Combed pixels of row `c` (own field, with `up2`/`down2` its field's neighbours)
// against the other field's lines `up`/`down`, where `motion` is set. Written for the
// compiler to vectorise: no branches, 16-bit arithmetic.
static uint64_t comb_row(const uint8_t *restrict c, const uint8_t *restrict up2, const uint8_t *restrict down2,
                         const uint8_t *restrict up, const uint8_t *restrict down, const uint8_t *restrict motion, int width) {
    uint32_t count = 0;
    for (int x = 0; x < width; x++) {
        int16_t d1 = (int16_t)c[x] - up[x], d2 = (int16_t)c[x] - down[x];
        int16_t a1 = d1 < 0 ? -d1 : d1, a2 = d2 < 0 ? -d2 : d2;
        int16_t s1 = (int16_t)c[x] - up2[x], s2 = (int16_t)c[x] - down2[x];
        s1 = s1 < 0 ? -s1 : s1;
        s2 = s2 < 0 ? -s2 : s2;
        int16_t own = s1 > s2 ? s1 : s2, other = a1 < a2 ? a1 : a2;
        int same_side = (d1 > COMB_THRESHOLD && d2 > COMB_THRESHOLD) | (d1 < -COMB_THRESHOLD && d2 < -COMB_THRESHOLD);
        count += (uint32_t)(same_side & (2 * own < other) & motion[x]);
    }
    return count;
}

// 8-bit copy of a plane of 16-bit samples, or the plane itself.
static const uint8_t *narrow(const uint8_t *p, ptrdiff_t stride, int width, int height, int bytes, int depth,
                             uint8_t **owned, ptrdiff_t *out_stride) {
    *owned = NULL;
    *out_stride = stride;
    if (bytes == 1) return p;
    uint8_t *copy = malloc((size_t)width * (size_t)height);
    if (!copy) return NULL;
    int shift = depth > 8 ? depth - 8 : 0;
    for (int y = 0; y < height; y++) {
        const uint8_t *row = p + y * stride;
        for (int x = 0; x < width; x++) {
            unsigned v = (unsigned)row[2 * x] | ((unsigned)row[2 * x + 1] << 8);
            v >>= shift;
            copy[(size_t)y * width + x] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
    *owned = copy;
    *out_stride = width;
    return copy;
}

vfx_field_comb_counts vfx_field_comb(const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride,
                                     int width, int height, int bytes, int depth) {
    vfx_field_comb_counts counts = {0, 0, 0, 0};
    if (width <= 0 || height < 5) return counts;
    uint8_t *owned_a, *owned_b;
    a = narrow(a, a_stride, width, height, bytes, depth, &owned_a, &a_stride);
    b = narrow(b, b_stride, width, height, bytes, depth, &owned_b, &b_stride);
    uint8_t *motion = malloc((size_t)width);
    if (a && b && motion) {
        for (int y = 2; y < height - 2; y++) {
            const uint8_t *ar = a + y * a_stride, *br = b + y * b_stride;
            uint32_t moving = 0;
            for (int x = 0; x < width; x++) {
                int16_t d = (int16_t)ar[x] - br[x];
                motion[x] = (uint8_t)((d > MOTION_THRESHOLD) | (d < -MOTION_THRESHOLD));
                moving += motion[x];
            }
            counts.moving += moving;
            if (!moving) continue;
            // Row y with its own field from one picture and the other field's lines
            // from the same picture or the other one.
            uint64_t aa = comb_row(ar, ar - 2 * a_stride, ar + 2 * a_stride, ar - a_stride, ar + a_stride, motion, width);
            uint64_t ab = comb_row(ar, ar - 2 * a_stride, ar + 2 * a_stride, br - b_stride, br + b_stride, motion, width);
            uint64_t ba = comb_row(br, br - 2 * b_stride, br + 2 * b_stride, ar - a_stride, ar + a_stride, motion, width);
            counts.as_is += aa;
            // B's top field with A's bottom: B's even rows against A's odd ones, and
            // A's odd rows against B's even ones. The other weave is the converse.
            if (y % 2 == 0) {
                counts.next_top += ba;
                counts.next_bottom += ab;
            } else {
                counts.next_top += ab;
                counts.next_bottom += ba;
            }
        }
    }
    free(owned_a);
    free(owned_b);
    free(motion);
    return counts;
}
