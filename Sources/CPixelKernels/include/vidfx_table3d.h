// A 3-D lookup from an HDR picture's samples to BGRA: the shipped HDR → SDR path. The
// table holds what libavfilter's own conversion gives, filled once per clip (see FrameSource's
// ToneMap), so this only interpolates; it never decides what a colour should become.
#ifndef VIDFX_TABLE3D_H
#define VIDFX_TABLE3D_H

#include <stdint.h>
#include "vidfx_reorient.h"

/// Points per axis of the table. The axes are the HDR signal's R', G', B' (before any
/// linearisation), grid point i at VFX_TABLE3D_LOW + i * VFX_TABLE3D_STEP: 0 and 1 are
/// grid points, so the transfer curves' kinks at black fall on cell faces.
#define VFX_TABLE3D_POINTS 65
static const double VFX_TABLE3D_LOW = -8.0 / 48.0;
static const double VFX_TABLE3D_STEP = 1.0 / 48.0;
/// The transfer table is indexed by a float's exponent and its top mantissa bits:
/// steps of 1/1024 of an octave from VFX_TABLE3D_TRANSFER_FLOOR (2^-24, dark enough
/// to be code 0) to 1, fine where the output curve is steepest, and no square root or
/// logarithm per pixel.
#define VFX_TABLE3D_TRANSFER_BITS 10
#define VFX_TABLE3D_TRANSFER_FLOOR 5.9604644775390625e-08f
#define VFX_TABLE3D_TRANSFER_SIZE 24577  /* 24 octaves of 1024 steps, and 1 */

/// Index into the transfer table of linear light `v` in [FLOOR, 1].
static inline int vfx_table3d_transfer_index(float v) {
    union { float f; int32_t i; } u = { v }, floor = { VFX_TABLE3D_TRANSFER_FLOOR };
    return (u.i >> (23 - VFX_TABLE3D_TRANSFER_BITS)) - (floor.i >> (23 - VFX_TABLE3D_TRANSFER_BITS));
}

/// One picture's planes: Y, Cb, Cr, each `bytes` (1 or 2, little-endian) per sample
/// with `depth` significant bits; chroma subsampled by 1 << log2_cw across and
/// 1 << log2_ch down (4:2:0 is 1, 1). Subsampled chroma sits on even luma columns
/// (left) unless `centre_sited`, and between luma rows unless `top_sited`.
typedef struct {
    const uint8_t *plane[3];
    int stride[3];
    int width, height;
    int log2_cw, log2_ch;
    int bytes, depth;
    int centre_sited, top_sited;
} vfx_planes;

/// Converts rows [row_begin, row_end) of `src` to BGRA rows of `dst`:
/// - `to_grid` (12 floats: a 3×3 matrix by rows, then an offset) takes a pixel's
///   16-bit Y, Cb, Cr codes to its R', G', B' grid coordinates;
/// - `table` (VFX_TABLE3D_POINTS³ entries of 4 floats, indexed [r][g][b]) holds linear
///   light at the grid points; it is interpolated tetrahedrally. Linear light, because
///   it is smooth where the output is not: colours outside BT.709 cross 0 inside a cell
///   and the output curve is steep next to black, so the clip to [0, 1] and the curve
///   come after interpolation, exactly;
/// - `transfer` (VFX_TABLE3D_TRANSFER_SIZE entries) takes light to 8-bit codes.
/// Chroma is brought to full size bilinearly. `scratch` holds 4 * width + 8 uint16.
/// Instruction sets of the kernel: SSE2 (any x86-64; plain C elsewhere), AVX2 with FMA.
enum { VFX_TABLE3D_BASELINE = 0, VFX_TABLE3D_AVX2 = 1 };

/// The kernel for one instruction set; 0 (nothing done) when this CPU lacks it.
int vfx_table3d_rows_isa(int isa, const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                         uint8_t *dst, int dst_stride, int row_begin, int row_end, uint16_t *scratch);

/// Rows [row_begin, row_end) of `src` through the table into BGRA, with the fastest kernel here.
void vfx_table3d_rows(const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                      uint8_t *dst, int dst_stride, int row_begin, int row_end, uint16_t *scratch);

/// Rows [row_begin, row_end) of `src` through the table, each pixel stored straight at its
/// place in `out` (`out_stride` pixels a row) rotated or mirrored as `walk` says: the
/// same pixels as vfx_table3d_rows then vfx_reorient_rows, without the upright picture.
void vfx_table3d_rows_placed(const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                             const vfx_walk *walk, uint32_t *out, long out_stride, int row_begin, int row_end,
                             uint16_t *scratch);

/// Chroma plane `plane` (1 or 2) of `src` brought to luma row `y` at full width as 16-bit
/// codes, as the kernels do it (`blend`: room for a chroma row's width + 1 ints). With
/// `general`, never by the 16-bit shortcut of left-sited chroma: for the tests that
/// compare the two.
void vfx_table3d_chroma_row(const vfx_planes *src, int plane, int y, uint16_t *out, int *blend, int general);

#endif
