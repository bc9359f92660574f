#include "vidfx_blur.h"

#include <math.h>
#include <string.h>

/// Pixels across a column pass handles at once: 16 × 4 floats a row, so a strip's
/// running sums stay in L1, its rows are 256 contiguous bytes and its lines fit in L2.
#define VFX_BLUR_STRIP 16

int vfx_blur_reach(const vfx_blur_axis *axis) {
    return axis->passes == 0 ? axis->radius : axis->passes * (axis->radius + 1);
}

size_t vfx_blur_row_scratch(const vfx_blur_axis *axis, int width) {
    return 2 * (size_t)(width + 2 * vfx_blur_reach(axis)) * 4;
}

size_t vfx_blur_column_scratch(const vfx_blur_axis *axis, int rows) {
    return 2 * (size_t)(rows + 2 * vfx_blur_reach(axis)) * 4 * VFX_BLUR_STRIP;
}

#define K(name) name##_sse2
#define KERNEL_TARGET
#include "blur_kernel.h"
#undef K
#undef KERNEL_TARGET

#if defined(__x86_64__) && defined(__clang__)
#define VFX_BLUR_HAVE_AVX2 1
#define K(name) name##_avx2
#define KERNEL_TARGET __attribute__((target("avx2")))
#include "blur_kernel.h"
#undef K
#undef KERNEL_TARGET
#endif

#if defined(VFX_BLUR_HAVE_AVX2)
static int use_avx2(void) { return __builtin_cpu_supports("avx2"); }
#endif

void vfx_blur_rows(const vfx_blur_axis *axis, const uint32_t *src, ptrdiff_t src_stride, float *dst, ptrdiff_t dst_stride,
                   int width, int row_begin, int row_end, const float *decode, float *scratch) {
    if (width <= 0 || row_begin >= row_end) return;
#if defined(VFX_BLUR_HAVE_AVX2)
    if (use_avx2()) { rows_avx2(axis, src, src_stride, dst, dst_stride, width, row_begin, row_end, decode, scratch); return; }
#endif
    rows_sse2(axis, src, src_stride, dst, dst_stride, width, row_begin, row_end, decode, scratch);
}

void vfx_blur_columns(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, int height, uint32_t *dst,
                      ptrdiff_t dst_stride, int col_begin, int col_end, int row_begin, int row_end, const uint8_t *encode,
                      float *scratch) {
    if (height <= 0 || col_begin >= col_end || row_begin >= row_end) return;
#if defined(VFX_BLUR_HAVE_AVX2)
    if (use_avx2()) {
        columns_avx2(axis, src, src_stride, height, dst, dst_stride, col_begin, col_end, row_begin, row_end, encode, scratch);
        return;
    }
#endif
    columns_sse2(axis, src, src_stride, height, dst, dst_stride, col_begin, col_end, row_begin, row_end, encode, scratch);
}

void vfx_blur_sparse(const float *src, ptrdiff_t src_stride, int width, int height, uint32_t *dst, ptrdiff_t dst_stride,
                     int row_begin, int row_end, int count, const int *dx, const int *dy, const float *weights,
                     const uint8_t *encode, float *acc) {
    if (width <= 0 || height <= 0 || row_begin >= row_end) return;
#if defined(VFX_BLUR_HAVE_AVX2)
    if (use_avx2()) {
        sparse_avx2(src, src_stride, width, height, dst, dst_stride, row_begin, row_end, count, dx, dy, weights, encode, acc);
        return;
    }
#endif
    sparse_sse2(src, src_stride, width, height, dst, dst_stride, row_begin, row_end, count, dx, dy, weights, encode, acc);
}

int vfx_blur_reduced_size(int size, int shift) { return ((size + (1 << shift) - 1) >> shift) + 2; }

size_t vfx_blur_expand_scratch(int width, int shift) {
    return 4 * (size_t)vfx_blur_reduced_size(width, shift) + 4 * (size_t)width + 3 * (size_t)width;
}

void vfx_blur_shrink(const uint32_t *src, ptrdiff_t src_stride, int width, int height, int shift, float *dst,
                     ptrdiff_t dst_stride, int row_begin, int row_end, const float *decode, float *scratch) {
    if (width <= 0 || height <= 0 || row_begin >= row_end) return;
#if defined(VFX_BLUR_HAVE_AVX2)
    if (use_avx2()) { shrink_avx2(src, src_stride, width, height, shift, dst, dst_stride, row_begin, row_end, decode, scratch); return; }
#endif
    shrink_sse2(src, src_stride, width, height, shift, dst, dst_stride, row_begin, row_end, decode, scratch);
}

void vfx_blur_rows_float(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, float *dst, ptrdiff_t dst_stride,
                         int width, int row_begin, int row_end, float *scratch) {
    if (width <= 0 || row_begin >= row_end) return;
#if defined(VFX_BLUR_HAVE_AVX2)
    if (use_avx2()) { rows_float_avx2(axis, src, src_stride, dst, dst_stride, width, row_begin, row_end, scratch); return; }
#endif
    rows_float_sse2(axis, src, src_stride, dst, dst_stride, width, row_begin, row_end, scratch);
}

void vfx_blur_columns_float(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, int height, float *dst,
                            ptrdiff_t dst_stride, int col_begin, int col_end, int row_begin, int row_end, float *scratch) {
    if (height <= 0 || col_begin >= col_end || row_begin >= row_end) return;
#if defined(VFX_BLUR_HAVE_AVX2)
    if (use_avx2()) {
        columns_float_avx2(axis, src, src_stride, height, dst, dst_stride, col_begin, col_end, row_begin, row_end, scratch);
        return;
    }
#endif
    columns_float_sse2(axis, src, src_stride, height, dst, dst_stride, col_begin, col_end, row_begin, row_end, scratch);
}

void vfx_blur_expand(const float *small, ptrdiff_t small_stride, int small_first, int small_height, int shift, uint32_t *dst,
                     ptrdiff_t dst_stride, int width, int row_begin, int row_end, const uint8_t *encode, float *scratch) {
    if (width <= 0 || small_height <= 0 || row_begin >= row_end) return;
#if defined(VFX_BLUR_HAVE_AVX2)
    if (use_avx2()) {
        expand_avx2(small, small_stride, small_first, small_height, shift, dst, dst_stride, width, row_begin, row_end, encode,
                    scratch);
        return;
    }
#endif
    expand_sse2(small, small_stride, small_first, small_height, shift, dst, dst_stride, width, row_begin, row_end, encode, scratch);
}
