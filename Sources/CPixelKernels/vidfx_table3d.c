#include "vidfx_table3d.h"
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#endif

// The same kernel twice: for any x86-64 (SSE2), and for CPUs with AVX2 and FMA, which also
// take eight pixels at a time through the table (KERNEL_AVX2).
#define K(name) name##_sse2
#define KERNEL_TARGET
#define KERNEL_AVX2 0
#include "table3d_kernel.h"
#undef K
#undef KERNEL_TARGET
#undef KERNEL_AVX2

#if defined(__x86_64__) && defined(__clang__)
#define VFX_HAVE_AVX2 1
#define K(name) name##_avx2
#define KERNEL_TARGET __attribute__((target("avx2,fma")))
#define KERNEL_AVX2 1
#include "table3d_kernel.h"
#undef K
#undef KERNEL_TARGET
#undef KERNEL_AVX2
#endif

/// The kernel for `isa` over rows [row_begin, row_end), row y at dst + (y − dst_row0)·dst_stride; 0 when this CPU lacks it.
static int rows_isa(int isa, const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                    uint8_t *dst, int dst_stride, int dst_row0, int row_begin, int row_end, uint16_t *scratch) {
    if (isa == VFX_TABLE3D_AVX2) {
#if defined(VFX_HAVE_AVX2)
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
            rows_avx2(table, transfer, to_grid, src, dst, dst_stride, dst_row0, row_begin, row_end, scratch);
            return 1;
        }
#endif
        return 0;
    }
    rows_sse2(table, transfer, to_grid, src, dst, dst_stride, dst_row0, row_begin, row_end, scratch);
    return 1;
}

int vfx_table3d_rows_isa(int isa, const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                         uint8_t *dst, int dst_stride, int row_begin, int row_end, uint16_t *scratch) {
    return rows_isa(isa, table, transfer, to_grid, src, dst, dst_stride, 0, row_begin, row_end, scratch);
}

void vfx_table3d_rows(const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                      uint8_t *dst, int dst_stride, int row_begin, int row_end, uint16_t *scratch) {
    if (!rows_isa(VFX_TABLE3D_AVX2, table, transfer, to_grid, src, dst, dst_stride, 0, row_begin, row_end, scratch)) {
        rows_isa(VFX_TABLE3D_BASELINE, table, transfer, to_grid, src, dst, dst_stride, 0, row_begin, row_end, scratch);
    }
}

void vfx_table3d_rows_placed(const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                             const vfx_walk *walk, uint32_t *out, long out_stride, int row_begin, int row_end,
                             uint32_t *band, uint16_t *scratch) {
#if defined(VFX_HAVE_AVX2)
    const int isa = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? VFX_TABLE3D_AVX2 : VFX_TABLE3D_BASELINE;
#else
    const int isa = VFX_TABLE3D_BASELINE;
#endif
    for (int r = row_begin; r < row_end; r += VFX_TABLE3D_BAND) {
        const int e = r + VFX_TABLE3D_BAND < row_end ? r + VFX_TABLE3D_BAND : row_end;
        rows_isa(isa, table, transfer, to_grid, src, (uint8_t *)band, 4 * src->width, r, r, e, scratch);
        vfx_reorient_band(band, src->width, r, e - r, walk, out, out_stride);
    }
}
