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

/// The kernel for `isa` over rows [row_begin, row_end), pixel (x, y) at dst[origin + y·row_step
/// + x·col_step]; 0 when this CPU lacks it.
static int rows_isa(int isa, const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                    uint32_t *dst, long origin, long col_step, long row_step, int row_begin, int row_end, uint16_t *scratch) {
    if (isa == VFX_TABLE3D_AVX2) {
#if defined(VFX_HAVE_AVX2)
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
            rows_avx2(table, transfer, to_grid, src, dst, origin, col_step, row_step, row_begin, row_end, scratch);
            return 1;
        }
#endif
        return 0;
    }
    rows_sse2(table, transfer, to_grid, src, dst, origin, col_step, row_step, row_begin, row_end, scratch);
    return 1;
}

int vfx_table3d_rows_isa(int isa, const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                         uint8_t *dst, int dst_stride, int row_begin, int row_end, uint16_t *scratch) {
    return rows_isa(isa, table, transfer, to_grid, src, (uint32_t *)dst, 0, 1, dst_stride / 4, row_begin, row_end, scratch);
}

void vfx_table3d_rows(const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                      uint8_t *dst, int dst_stride, int row_begin, int row_end, uint16_t *scratch) {
    if (!vfx_table3d_rows_isa(VFX_TABLE3D_AVX2, table, transfer, to_grid, src, dst, dst_stride, row_begin, row_end, scratch)) {
        vfx_table3d_rows_isa(VFX_TABLE3D_BASELINE, table, transfer, to_grid, src, dst, dst_stride, row_begin, row_end, scratch);
    }
}

void vfx_table3d_rows_placed(const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                             const vfx_walk *w, uint32_t *out, long out_stride, int row_begin, int row_end,
                             uint16_t *scratch) {
    // The walk's inverse: a right-angle rotation or mirror is orthogonal, so source (x, y)
    // shows at X = xx·(x − x0) + xy·(y − y0), Y = yx·(x − x0) + yy·(y − y0).
    const long col_step = w->yx * out_stride + w->xx, row_step = w->yy * out_stride + w->xy;
    const long origin = -w->x0 * col_step - w->y0 * row_step;
    if (!rows_isa(VFX_TABLE3D_AVX2, table, transfer, to_grid, src, out, origin, col_step, row_step, row_begin, row_end, scratch)) {
        rows_isa(VFX_TABLE3D_BASELINE, table, transfer, to_grid, src, out, origin, col_step, row_step, row_begin, row_end, scratch);
    }
}

void vfx_table3d_chroma_row(const vfx_planes *src, int plane, int y, uint16_t *out, int *blend, int general) {
    chroma_row_sse2(src, plane, y, out, blend, general);
}
