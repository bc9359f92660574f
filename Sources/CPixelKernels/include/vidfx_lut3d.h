// A 3-D colour LUT applied to BGRA bytes by interpolation, in C: the `lut` effect's
// arithmetic (Effects' LUTTable, which keeps the reference in Swift), the same floats in
// the same order, so the bytes are the same. It fills the dense 2²⁴-entry table a quarter
// of a second sooner, and maps small frames.
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

#endif
