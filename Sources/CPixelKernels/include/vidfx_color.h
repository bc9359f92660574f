// Per-pixel colour kernels and the BGRA → 4:2:0 conversion, in C so that every build of
// vidfx (a dependent's portable one included) runs them with the widest vectors the CPU
// has: each is compiled for baseline x86-64 and for AVX2, and picked at run time.
//
// Pixels are BGRA8 packed in a uint32_t (b | g << 8 | r << 16 | a << 24); alpha is kept
// unless a kernel says otherwise. Every kernel gives the same bytes on every instruction
// set (no fused multiply-adds, the same operations in the same order), and the same bytes
// as the Swift loops they replaced.
#ifndef VIDFX_COLOR_H
#define VIDFX_COLOR_H

#include <stdint.h>

/// Instruction sets a kernel is compiled for.
enum {
    VFX_COLOR_BASELINE = 0,  ///< any x86-64 (SSE2), or the target's baseline elsewhere
    VFX_COLOR_AVX2 = 1,      ///< AVX2 with FMA (Haswell and later)
};

/// Limited-range YCbCr coefficients ×2^16 (rows Y, Cb, Cr on R, G, B).
typedef struct {
    int32_t yr, yg, yb, ur, ug, ub, vr, vg, vb;
} vfx_yuv_matrix;

/// What one row of the old-film look needs besides its pixels (see Effects' OldTimes).
typedef struct {
    uint32_t seed, tick, row_seed;  ///< the grain is hash(seed, tick, 5, row_seed + x)
    float tone, grain, lift;        ///< warm-tone mix, grain strength, flicker offset (0…1 units)
    float half_w, dyc, inverse_diagonal, vignette, amount;  ///< the vignette's geometry; the final mix
} vfx_oldtimes_row_params;

/// One instruction set's kernels.
typedef struct {
    /// out = M·(r, g, b) + offset on bytes, M row-major, rounded half to even and clamped.
    void (*affine_rgb)(uint32_t *px, long n, const float *m, float offset);
    /// The W3C sepia matrix in fixed point, mixed with the input by amount/1024.
    void (*sepia)(uint32_t *px, long n, uint32_t amount);
    /// White where the luma ×10⁴ (BT.709 weights on bytes) is ≥ limit, black elsewhere.
    void (*luma_threshold)(uint32_t *px, long n, uint32_t limit);
    /// The colour inverted where the luma ×10⁴ is ≤ limit.
    void (*luma_solarize)(uint32_t *px, long n, uint32_t limit);
    /// Vibrance on bytes: l + (c − l)·(1 + a − k·s), s the spread of r, g, b.
    void (*vibrance)(uint32_t *px, long n, float a, float k);
    /// Overlay-blend of the luma with a colour (0…1), mixed by `intensity`.
    void (*monochrome)(uint32_t *px, long n, float cr, float cg, float cb, float intensity);
    /// out = origin + span·luma per channel, in bytes (origin ×255, span in 0…1 units).
    void (*falsecolor)(uint32_t *px, long n, const float *origin, const float *span);
    /// Linear light: decode each channel through `decode` (256 floats), apply M, encode
    /// through `encode` (65536 bytes over 0…1).
    void (*linear_affine_rgb)(uint32_t *px, long n, const float *m, const float *decode, const uint8_t *encode);
    /// Linear light with alpha: (r, g, b) decoded, a = alpha/255; out = M·(r, g, b, a) +
    /// bias (M row-major 4×4); colour encoded, alpha rounded from out·255.
    void (*linear_matrix_rgba)(uint32_t *px, long n, const float *m, const float *bias, const float *decode,
                               const uint8_t *encode);
    /// out[x] += weight·in[x]: one tap of a separable blur over a row of floats.
    void (*add_scaled)(float *out, const float *in, long n, float weight);
    /// Per column x of `rows` BGRA rows from `top` (`stride` pixels apart): the sums of
    /// each channel, into four planes of `width` (b, g, r, a).
    void (*column_sums)(const uint32_t *top, long stride, long rows, long width, uint32_t *b, uint32_t *g, uint32_t *r,
                        uint32_t *a);
    /// Two rows mixed vertically, row0 + (row1 − row0)·f, into planar floats (r, g, b).
    void (*blend_rows)(const uint32_t *row0, const uint32_t *row1, float f, float *r, float *g, float *b, long w);
    /// One resampling tap over planar rows: out[x] += weight·lerp(in[i0[x]], in[i1[x]], f[x])
    /// for each of (r, g, b).
    void (*add_tap)(float *r, float *g, float *b, const float *inr, const float *ing, const float *inb, const int32_t *i0,
                    const int32_t *i1, const float *f, float weight, long w);
    /// Planar floats (0…255 units) → BGRA, rounded half up, alpha from `alpha`.
    void (*planar_to_bgra)(const float *r, const float *g, const float *b, const uint32_t *alpha, uint32_t *out, long w);
    /// Two BGRA rows → two luma rows and one row each of Cb and Cr (2×2 means), `half`
    /// pixel pairs across.
    void (*yuv420_row_pair)(const uint32_t *r0, const uint32_t *r1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                            long half, const vfx_yuv_matrix *m);
    /// One row of the old-film look: `from` (the jittered source row) toned, grained, then
    /// scratched by out = c·mul[x] + add[x], vignetted and mixed with `original`.
    void (*oldtimes_row)(const uint32_t *from, const uint32_t *original, uint32_t *out, long w, const float *mul,
                         const float *add, const vfx_oldtimes_row_params *p);
    /// Y709 of a row in 0…1: of the decoded values (`lin`, 256 floats) when given, else of
    /// the bytes.
    void (*luma_row)(const uint32_t *row, float *luma, long n, const float *lin);
    /// Highlight and shadow: each channel scaled by table(l)/l (the table read linearly at
    /// l·steps, `steps + 1` entries; gain 1 where l ≤ 1/1024). In linear light through
    /// `lin` and `enc` when `lin` is given, else on the bytes.
    void (*highlight_shadow_row)(const uint32_t *from, uint32_t *out, const float *luma, long n, const float *table,
                                 int32_t steps, const float *lin, const uint8_t *enc);
    /// One row of a distortion's source map (Effects' SourceMap: x0, y0, fx, fy in 16 bits
    /// each, x0 = 0xFFFF outside, which gives a clear pixel). Bilinear taps that are not
    /// all opaque are not written: their columns go to `translucent` (room for `w`) and
    /// their count is returned, for the caller's premultiplied mix.
    long (*map_row)(const uint64_t *entries, const uint32_t *base, long stride, uint32_t *out, long w, int nearest,
                    int32_t *translucent);
    /// Every pixel set to `value` (the widest stores the CPU has).
    void (*fill)(uint32_t *px, long n, uint32_t value);
} vfx_color_kernels;

/// The kernels for `isa` (VFX_COLOR_*), or NULL when this build or this CPU lacks it.
const vfx_color_kernels *vfx_color_kernels_for(int isa);

/// The widest kernels this CPU runs (a check of what the CPU reported at start-up).
const vfx_color_kernels *vfx_color_kernels_best(void);

#endif
