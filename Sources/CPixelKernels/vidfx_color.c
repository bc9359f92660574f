#include "vidfx_color.h"
#include <stddef.h>

// Both copies must give the same bytes: no multiply-add fusing in the AVX2+FMA copy.
#pragma STDC FP_CONTRACT OFF

// Every kernel of one copy, by name.
#define KERNEL_TABLE(suffix) { \
    .affine_rgb = affine_rgb_##suffix, \
    .sepia = sepia_##suffix, \
    .luma_threshold = luma_threshold_##suffix, \
    .luma_solarize = luma_solarize_##suffix, \
    .vibrance = vibrance_##suffix, \
    .monochrome = monochrome_##suffix, \
    .falsecolor = falsecolor_##suffix, \
    .linear_affine_rgb = linear_affine_rgb_##suffix, \
    .linear_matrix_rgba = linear_matrix_rgba_##suffix, \
    .add_scaled = add_scaled_##suffix, \
    .column_sums = column_sums_##suffix, \
    .blend_rows = blend_rows_##suffix, \
    .add_tap = add_tap_##suffix, \
    .planar_to_bgra = planar_to_bgra_##suffix, \
    .yuv420_row_pair = yuv420_row_pair_##suffix, \
    .oldtimes_row = oldtimes_row_##suffix, \
    .luma_row = luma_row_##suffix, \
    .highlight_shadow_row = highlight_shadow_row_##suffix, \
    .map_row = map_row_##suffix, \
    .fill = fill_##suffix, \
}

#define K(name) name##_baseline
#define KERNEL_TARGET
#define KERNEL_AVX2 0
#include "color_kernel.h"
#undef K
#undef KERNEL_TARGET
#undef KERNEL_AVX2

static const vfx_color_kernels baseline = KERNEL_TABLE(baseline);

#if defined(__x86_64__) && defined(__clang__)
#define VFX_COLOR_HAVE_AVX2 1
#define K(name) name##_avx2
#define KERNEL_TARGET __attribute__((target("avx2,fma")))
#define KERNEL_AVX2 1
#include "color_kernel.h"
#undef K
#undef KERNEL_TARGET
#undef KERNEL_AVX2

static const vfx_color_kernels avx2 = KERNEL_TABLE(avx2);
#endif

const vfx_color_kernels *vfx_color_kernels_for(int isa) {
    switch (isa) {
    case VFX_COLOR_BASELINE:
        return &baseline;
    case VFX_COLOR_AVX2:
#if defined(VFX_COLOR_HAVE_AVX2)
        // Reads what the compiler's runtime found at start-up (cpuid): two loads.
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2;
#endif
        return NULL;
    default:
        return NULL;
    }
}

const vfx_color_kernels *vfx_color_kernels_best(void) {
    const vfx_color_kernels *k = vfx_color_kernels_for(VFX_COLOR_AVX2);
    return k ? k : &baseline;
}
