// Separable blurs over BGRA pictures: a row pass into a float picture, then a column
// pass back to bytes. Each pass is either one symmetric kernel (a Gaussian's taps,
// for small sigmas) or a cascade of box filters with fractional ends (Gwosdek et al.'s
// "extended box"), whose cost per pixel does not depend on the radius. Edges are
// replicated, as OpenCV's BORDER_REPLICATE does. The Effects target's `blur` drives it.
#ifndef VIDFX_BLUR_H
#define VIDFX_BLUR_H

#include <stddef.h>
#include <stdint.h>

/// One axis's filter.
typedef struct {
    /// Box passes of `radius` each, with `alpha` the weight of the two taps just beyond
    /// it (0 for a plain box); 0 passes means the kernel `weights` instead.
    int passes;
    /// The box's radius, or the kernel's: `weights` holds radius + 1 values, the centre first.
    int radius;
    float alpha;
    const float *weights;
} vfx_blur_axis;

/// Picture elements beyond each edge that a line of this axis reads.
int vfx_blur_reach(const vfx_blur_axis *axis);

/// Floats of scratch `vfx_blur_rows` needs for lines `width` pixels long.
size_t vfx_blur_row_scratch(const vfx_blur_axis *axis, int width);

/// Floats of scratch `vfx_blur_columns` needs for `rows` output rows.
size_t vfx_blur_column_scratch(const vfx_blur_axis *axis, int rows);

/// Blurs rows [row_begin, row_end) of `src` (BGRA, `src_stride` pixels a row)
/// horizontally into `dst` (4 floats a pixel in B, G, R, A order, `dst_stride` floats a
/// row). Values are bytes as they are, or through `decode` (256 floats) when it is not NULL.
void vfx_blur_rows(const vfx_blur_axis *axis, const uint32_t *src, ptrdiff_t src_stride, float *dst, ptrdiff_t dst_stride,
                   int width, int row_begin, int row_end, const float *decode, float *scratch);

/// Blurs columns [col_begin, col_end) of the float picture `src` (`height` rows, each
/// `src_stride` floats) vertically, writing output rows [row_begin, row_end) to `dst`
/// (BGRA, `dst_stride` pixels a row). The rows read are those within the axis's reach
/// of the output rows, clamped to the picture. Values are rounded to bytes as they are,
/// or through `encode` (65536 bytes over 0…1) when it is not NULL; alpha is always rounded
/// as it is (it is never decoded).
void vfx_blur_columns(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, int height, uint32_t *dst,
                      ptrdiff_t dst_stride, int col_begin, int col_end, int row_begin, int row_end, const uint8_t *encode,
                      float *scratch);

/// Output rows [row_begin, row_end) of a sparse kernel over the float picture `src`
/// (`width` × `height`, 4 floats a pixel, `src_stride` floats a row): each output pixel is
/// Σ weights[i]·src(x + dx[i], y + dy[i]), coordinates clamped to the picture, written
/// to `dst` (BGRA) as `vfx_blur_columns` writes. `acc` holds 4 × width floats. A motion
/// blur's bilinear reads along its line, all at the same offsets from every pixel.
void vfx_blur_sparse(const float *src, ptrdiff_t src_stride, int width, int height, uint32_t *dst, ptrdiff_t dst_stride,
                     int row_begin, int row_end, int count, const int *dx, const int *dy, const float *weights,
                     const uint8_t *encode, float *acc);

/// Reduced pictures, for large sigmas: a blur of σ is a blur of about σ/2^shift on a
/// picture 2^shift times smaller, interpolated back. The reduced picture is
/// `vfx_blur_reduced_size` pixels each way: a pixel for each block of 2^shift, and one
/// more each side holding the edge's pixels repeated. `vfx_blur_shrink` averages blocks
/// into its rows [row_begin, row_end), written from `dst` on (`dst_stride` floats a row;
/// `scratch` holds 4 × width floats);
/// `vfx_blur_rows_float` and `vfx_blur_columns_float` blur it as `vfx_blur_rows` and
/// `vfx_blur_columns` do, float to float; `vfx_blur_expand` interpolates output rows
/// [row_begin, row_end) of the full picture from the reduced rows `small` holds (from
/// reduced row `small_first` on, of `small_height` in all) and writes them as
/// `vfx_blur_columns` does, with `vfx_blur_expand_scratch(width, shift)` floats of scratch.
int vfx_blur_reduced_size(int size, int shift);
void vfx_blur_shrink(const uint32_t *src, ptrdiff_t src_stride, int width, int height, int shift, float *dst,
                     ptrdiff_t dst_stride, int row_begin, int row_end, const float *decode, float *scratch);
void vfx_blur_rows_float(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, float *dst, ptrdiff_t dst_stride,
                         int width, int row_begin, int row_end, float *scratch);
void vfx_blur_columns_float(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, int height, float *dst,
                            ptrdiff_t dst_stride, int col_begin, int col_end, int row_begin, int row_end, float *scratch);
size_t vfx_blur_expand_scratch(int width, int shift);
void vfx_blur_expand(const float *small, ptrdiff_t small_stride, int small_first, int small_height, int shift, uint32_t *dst,
                     ptrdiff_t dst_stride, int width, int row_begin, int row_end, const uint8_t *encode, float *scratch);

#endif
