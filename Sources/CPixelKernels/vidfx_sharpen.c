#include "vidfx_sharpen.h"

#include <string.h>

size_t vfx_sharpen_scratch(int width, int radius) {
    // The ring, a padded row, the row's values, 32-bit sums, then 64-bit sums (2 each).
    return (size_t)(2 * radius + 1) * (size_t)width + (size_t)(width + 2 * radius) + (size_t)width + (size_t)width + 1
        + 2 * (size_t)width + 2;
}

#define K(name) name##_sse2
#define KERNEL_TARGET
#include "sharpen_kernel.h"
#undef K
#undef KERNEL_TARGET

#if defined(__x86_64__) && defined(__clang__)
#define VFX_SHARPEN_HAVE_AVX2 1
#define K(name) name##_avx2
#define KERNEL_TARGET __attribute__((target("avx2")))
#include "sharpen_kernel.h"
#undef K
#undef KERNEL_TARGET
#endif

void vfx_sharpen_rows(const uint32_t *src, ptrdiff_t src_stride, uint32_t *dst, ptrdiff_t dst_stride, int width, int height,
                      int row_begin, int row_end, int radius, int32_t amount, int32_t threshold, int luma, int32_t *scratch) {
    if (width <= 0 || height <= 0 || row_begin >= row_end || radius < 1 || radius > VFX_SHARPEN_MAX_RADIUS) return;
#if defined(VFX_SHARPEN_HAVE_AVX2)
    if (__builtin_cpu_supports("avx2")) {
        sharpen_avx2(src, src_stride, dst, dst_stride, width, height, row_begin, row_end, radius, amount, threshold, luma, scratch);
        return;
    }
#endif
    sharpen_sse2(src, src_stride, dst, dst_stride, width, height, row_begin, row_end, radius, amount, threshold, luma, scratch);
}
