#include "vidfx_field_comb.h"

#include <stdlib.h>

// 8-bit thresholds: combing must exceed the grain of ordinary footage; motion, the
// noise of a clean encode.
enum { COMB_THRESHOLD = 10, MOTION_THRESHOLD = 8 };

static inline uint8_t sub_sat(uint8_t a, uint8_t b) { return a > b ? (uint8_t)(a - b) : 0; }
static inline uint8_t min8(uint8_t a, uint8_t b) { return a < b ? a : b; }
static inline uint8_t max8(uint8_t a, uint8_t b) { return a > b ? a : b; }

// Combed pixels of row `c` (own field, with `up2`/`down2` its field's neighbours)
// against the other field's lines `up`/`down`, where `motion` is 1. Written for the
// compiler to vectorise 8-bit lanes: no branches, saturating differences, counted in
// chunks a byte can hold.
static uint64_t comb_row(const uint8_t *restrict c, const uint8_t *restrict up2, const uint8_t *restrict down2,
                         const uint8_t *restrict up, const uint8_t *restrict down, const uint8_t *restrict motion, int width) {
    uint64_t total = 0;
    for (int begin = 0; begin < width; begin += 255) {
        int end = width - begin > 255 ? begin + 255 : width;
        uint8_t count = 0;
        for (int x = begin; x < end; x++) {
            // How far c stands out from both other-field lines, on one side (0 if not).
            uint8_t above = min8(sub_sat(c[x], up[x]), sub_sat(c[x], down[x]));
            uint8_t below = min8(sub_sat(up[x], c[x]), sub_sat(down[x], c[x]));
            uint8_t out = max8(above, below);
            // Its distance to its own field's lines, which must be under half that.
            uint8_t own = max8(max8(sub_sat(c[x], up2[x]), sub_sat(up2[x], c[x])), max8(sub_sat(c[x], down2[x]), sub_sat(down2[x], c[x])));
            uint8_t half = (uint8_t)((out + 1) >> 1);
            count += (uint8_t)((out > COMB_THRESHOLD) & (own < half) & motion[x]);
        }
        total += count;
    }
    return total;
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
            uint64_t moving = 0;
            for (int begin = 0; begin < width; begin += 255) {
                int end = width - begin > 255 ? begin + 255 : width;
                uint8_t chunk = 0;
                for (int x = begin; x < end; x++) {
                    motion[x] = (uint8_t)(max8(sub_sat(ar[x], br[x]), sub_sat(br[x], ar[x])) > MOTION_THRESHOLD);
                    chunk += motion[x];
                }
                moving += chunk;
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
