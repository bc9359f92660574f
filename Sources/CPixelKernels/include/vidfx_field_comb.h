// Whether a picture's two fields were taken at one instant or at two: measured from the
// combing that weaving its fields, and the fields of the next picture, leaves where
// things move. FrameSource's Deinterlacer uses it where a stream's flags say
// "progressive" (or nothing) but may be wrong.
#ifndef VIDFX_FIELD_COMB_H
#define VIDFX_FIELD_COMB_H

#include <stddef.h>
#include <stdint.h>

/// Combed pixels, counted only where the luma changes between two consecutive pictures
/// A and B. A pixel combs when it stands out from both lines of the other field, on the
/// same side, by more than a threshold, and is at least twice as close to the lines of
/// its own field: a moving edge seen at two instants, not a thin line or detail.
typedef struct {
    uint64_t moving;      ///< pixels that change from A to B
    uint64_t as_is;       ///< combed in A as it is (its own two fields)
    uint64_t next_top;    ///< combed in B's top field woven with A's bottom field
    uint64_t next_bottom; ///< combed in A's top field woven with B's bottom field
} vfx_field_comb_counts;

/// Measures two consecutive pictures' luma planes (`width` × `height` samples; 8-bit
/// when `bytes` is 1, else 16-bit little-endian with `depth` significant bits).
/// Row 0 belongs to the top field. Progressive pictures comb little as they are and a
/// lot in both mixed weaves; interlaced ones comb as they are about as much as in the
/// weave of the nearer field and less than in the other: top first when `next_top`
/// combs less than `next_bottom`.
vfx_field_comb_counts vfx_field_comb(const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride,
                                     int width, int height, int bytes, int depth);

#endif
