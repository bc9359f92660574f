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

// One plane's rows as 8-bit samples: its own rows when it is 8-bit; else a ring of the
// five rows a measured row reads (two above, two below), narrowed as the walk reaches
// them, so that a 10-bit picture costs a few rows of memory and not a copy of itself.
typedef struct {
    const uint8_t *plane;
    ptrdiff_t stride;
    int width, bytes, shift;
    uint8_t *ring;  // 5 rows of `width`, when 16-bit
    int next;       // the next row to narrow into the ring
} rows8;

enum { RING_ROWS = 5 };

// Row `y`, which must lie within the five rows before `next` or at or after it; rows
// are reached in increasing order.
static const uint8_t *row8(rows8 *r, int y) {
    if (r->bytes == 1) return r->plane + (ptrdiff_t)y * r->stride;
    for (; r->next <= y; r->next++) {
        const uint8_t *src = r->plane + (ptrdiff_t)r->next * r->stride;
        uint8_t *dst = r->ring + (size_t)(r->next % RING_ROWS) * (size_t)r->width;
        for (int x = 0; x < r->width; x++) {
            unsigned v = ((unsigned)src[2 * x] | ((unsigned)src[2 * x + 1] << 8)) >> r->shift;
            dst[x] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
    return r->ring + (size_t)(y % RING_ROWS) * (size_t)r->width;
}

vfx_field_comb_counts vfx_field_comb(const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride,
                                     int width, int height, int bytes, int depth) {
    vfx_field_comb_counts counts = {0, 0, 0, 0};
    if (width <= 0 || height < 5) return counts;
    const int shift = bytes == 2 && depth > 8 ? depth - 8 : 0;
    rows8 ra = {a, a_stride, width, bytes, shift, NULL, 0}, rb = {b, b_stride, width, bytes, shift, NULL, 0};
    // One block: the motion row, then the two rings when the samples are 16-bit.
    uint8_t *block = malloc((size_t)width * (bytes == 1 ? 1 : 1 + 2 * RING_ROWS));
    if (!block) return counts;
    uint8_t *motion = block;
    if (bytes != 1) {
        ra.ring = block + width;
        rb.ring = block + (size_t)width * (1 + RING_ROWS);
    }
    for (int y = 2; y < height - 2; y++) {
        // The lowest row this step reads first, so the ring holds rows y-2 to y+2.
        row8(&ra, y + 2);
        row8(&rb, y + 2);
        const uint8_t *ar = row8(&ra, y), *br = row8(&rb, y);
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
        const uint8_t *a_up2 = row8(&ra, y - 2), *a_up = row8(&ra, y - 1), *a_down = row8(&ra, y + 1), *a_down2 = row8(&ra, y + 2);
        const uint8_t *b_up2 = row8(&rb, y - 2), *b_up = row8(&rb, y - 1), *b_down = row8(&rb, y + 1), *b_down2 = row8(&rb, y + 2);
        // Row y with its own field from one picture and the other field's lines
        // from the same picture or the other one.
        uint64_t aa = comb_row(ar, a_up2, a_down2, a_up, a_down, motion, width);
        uint64_t ab = comb_row(ar, a_up2, a_down2, b_up, b_down, motion, width);
        uint64_t ba = comb_row(br, b_up2, b_down2, a_up, a_down, motion, width);
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
    free(block);
    return counts;
}
