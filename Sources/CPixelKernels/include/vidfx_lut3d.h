// A 3-D colour LUT applied to BGRA bytes by interpolation, in C: the `lut` effect's
// arithmetic (Effects' LUTTable, which keeps the reference in Swift), the same floats in
// the same order, so the bytes are the same; directly, or through a cache of the colours
// already mapped.
#ifndef VIDFX_LUT3D_H
#define VIDFX_LUT3D_H

#include <stdint.h>

/// How the grid is read between points.
enum { VFX_LUT_NEAREST = 0, VFX_LUT_TRILINEAR = 1, VFX_LUT_TETRAHEDRAL = 2 };

/// The LUT: `size`³ entries of R, G, B floats, R fastest (the .cube order); for each byte
/// value its lower grid index and fraction (v/255·(size − 1)).
typedef struct {
    const float *values;
    int size;
    int interpolation;
    const int32_t *index;
    const float *fraction;
} vfx_lut3d;

/// Maps `n` BGRA pixels in place, each mixed with the original by `intensity` and
/// rounded half up; alpha kept.
void vfx_lut3d_apply(const vfx_lut3d *lut, float intensity, uint32_t *px, long n);

/// The same, through a cache of mapped colours: `slots` holds 2^`bits` 64-bit slots, zeroed
/// before first use, shared by every thread mapping with this LUT and intensity (slots are
/// read and written atomically, whole). A real video's colours repeat: 2^19 slots (4 MiB)
/// answer 97–99% of the pixels of a 1080p clip, where every 8-bit colour mapped ahead took
/// 64 MiB and a sixth of a second.
void vfx_lut3d_apply_cached(const vfx_lut3d *lut, float intensity, uint64_t *slots, int bits, uint32_t *px, long n);

#endif
