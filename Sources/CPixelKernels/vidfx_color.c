#include "vidfx_color.h"
#include <stddef.h>

// Both copies must give the same bytes: no multiply-add fusing in the AVX2+FMA copy.
#pragma STDC FP_CONTRACT OFF

#define K(name) name##_baseline
#define KERNEL_TARGET
#define KERNEL_AVX2 0
#include "color_kernel.h"
#undef K
#undef KERNEL_TARGET
#undef KERNEL_AVX2

static const vfx_color_kernels baseline = {
    affine_rgb_baseline, sepia_baseline, luma_threshold_baseline, luma_solarize_baseline, vibrance_baseline,
    monochrome_baseline, falsecolor_baseline, linear_affine_rgb_baseline, linear_matrix_rgba_baseline, add_scaled_baseline,
    yuv420_row_pair_baseline,
    oldtimes_row_baseline,
};

#if defined(__x86_64__) && defined(__clang__)
#define VFX_COLOR_HAVE_AVX2 1
#define K(name) name##_avx2
#define KERNEL_TARGET __attribute__((target("avx2,fma")))
#define KERNEL_AVX2 1
#include "color_kernel.h"
#undef K
#undef KERNEL_TARGET
#undef KERNEL_AVX2

static const vfx_color_kernels avx2 = {
    affine_rgb_avx2, sepia_avx2, luma_threshold_avx2, luma_solarize_avx2, vibrance_avx2,
    monochrome_avx2, falsecolor_avx2, linear_affine_rgb_avx2, linear_matrix_rgba_avx2, add_scaled_avx2,
    yuv420_row_pair_avx2, oldtimes_row_avx2,
};
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
