#include "vidfx_table3d.h"
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline int sample(const uint8_t *row, int x, int bytes) {
    return bytes == 2 ? (row[2 * x] | (row[2 * x + 1] << 8)) : row[x];
}

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// One chroma plane brought to luma row `y` at full width, as 16-bit codes. `blend`
/// holds a chroma row's width + 1 ints.
static void chroma_row(const vfx_planes *s, int p, int y, uint16_t *out, int *blend) {
    const int cw = (s->width + (1 << s->log2_cw) - 1) >> s->log2_cw;
    const int ch = (s->height + (1 << s->log2_ch) - 1) >> s->log2_ch;
    // Vertically, in quarters: 4:2:0 chroma centred between luma rows 2j and 2j+1 weighs
    // 3:1 towards the nearer chroma row; top-sited chroma sits on row 2j.
    int r0, r1, w0, w1, j = y >> s->log2_ch;
    if (s->log2_ch == 0) { r0 = r1 = y; w0 = w1 = 2; }
    else if (s->top_sited) {
        r0 = j; r1 = (y & 1) ? clampi(j + 1, 0, ch - 1) : j; w0 = w1 = 2;
    } else if ((y & 1) == 0) { r0 = clampi(j - 1, 0, ch - 1); r1 = j; w0 = 1; w1 = 3; }
    else { r0 = j; r1 = clampi(j + 1, 0, ch - 1); w0 = 3; w1 = 1; }
    const uint8_t *a = s->plane[p] + (long)r0 * s->stride[p];
    const uint8_t *b = s->plane[p] + (long)r1 * s->stride[p];
    if (s->bytes == 2) {
        const uint16_t *a16 = (const uint16_t *)a, *b16 = (const uint16_t *)b;  // little-endian hosts
        for (int k = 0; k < cw; k++) blend[k] = w0 * a16[k] + w1 * b16[k];  // 4 × the sample
    } else {
        for (int k = 0; k < cw; k++) blend[k] = w0 * a[k] + w1 * b[k];
    }
    blend[cw] = blend[cw - 1];
    const int up = 16 - s->depth;
    if (s->log2_cw == 0) {
        for (int x = 0; x < s->width; x++) out[x] = (uint16_t)(((blend[x] << up) + 2) >> 2);
    } else if (!s->centre_sited) {
        // Left-sited: even columns sit on a chroma sample, odd ones halfway to the next.
        for (int k = 0; k < cw; k++) {
            int even = 2 * blend[k], odd = blend[k] + blend[k + 1];  // 8 × the sample
            out[2 * k] = (uint16_t)(((even << up) + 4) >> 3);
            if (2 * k + 1 < s->width) out[2 * k + 1] = (uint16_t)(((odd << up) + 4) >> 3);
        }
    } else {
        // Centred: 3:1 towards the nearer chroma sample, as vertically.
        for (int k = 0; k < cw; k++) {
            int even = blend[k > 0 ? k - 1 : 0] + 3 * blend[k], odd = 3 * blend[k] + blend[k + 1];  // 16 × the sample
            out[2 * k] = (uint16_t)(((even << up) + 8) >> 4);
            if (2 * k + 1 < s->width) out[2 * k + 1] = (uint16_t)(((odd << up) + 8) >> 4);
        }
    }
}

/// The floor's bits as the transfer index counts them.
static inline int transfer_base(void) {
    union { float f; int32_t i; } floor = { VFX_TABLE3D_TRANSFER_FLOOR };
    return floor.i >> (23 - VFX_TABLE3D_TRANSFER_BITS);
}

static inline void cell(float g, int *i, float *f) {
    const float top = (float)(VFX_TABLE3D_POINTS - 1);
    g = g < 0.0f ? 0.0f : (g > top ? top : g);
    int k = (int)g;
    if (k > VFX_TABLE3D_POINTS - 2) k = VFX_TABLE3D_POINTS - 2;
    *i = k;
    *f = g - (float)k;
}

void vfx_table3d_rows(const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                      uint8_t *dst, int dst_stride, int row_begin, int row_end, uint16_t *scratch) {
    const int n = VFX_TABLE3D_POINTS;
    const int sr = n * n * 4, sg = n * 4, sb = 4;  // steps along R', G', B'
    const int up = 16 - src->depth;
    const float *m = to_grid;
    uint16_t *cbrow = scratch, *crrow = scratch + src->width;
    int *blend = (int *)(scratch + 2 * src->width);
    for (int y = row_begin; y < row_end; y++) {
        chroma_row(src, 1, y, cbrow, blend);
        chroma_row(src, 2, y, crrow, blend);
        const uint8_t *luma = src->plane[0] + (long)y * src->stride[0];
        uint8_t *out = dst + (long)y * dst_stride;
        int x = 0;
#if defined(__SSE2__)
        // Four pixels at a time for everything up to the table reads.
        const __m128 top = _mm_set1_ps((float)(VFX_TABLE3D_POINTS - 1) - 1e-4f), zero = _mm_setzero_ps();
        const __m128 stepR = _mm_set1_ps((float)sr), stepG = _mm_set1_ps((float)sg), stepB = _mm_set1_ps((float)sb);
        for (; x + 4 <= src->width; x += 4) {
            __m128i y16;
            if (src->bytes == 2) y16 = _mm_unpacklo_epi16(_mm_slli_epi16(_mm_loadl_epi64((const __m128i *)(luma + 2 * x)), up), _mm_setzero_si128());
            else y16 = _mm_set_epi32(luma[x + 3] << up, luma[x + 2] << up, luma[x + 1] << up, luma[x] << up);
            const __m128 Y = _mm_cvtepi32_ps(y16);
            const __m128 B = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(cbrow + x)), _mm_setzero_si128()));
            const __m128 R = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(crrow + x)), _mm_setzero_si128()));
            #define GRID(i) _mm_min_ps(_mm_max_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(m[i]), Y), \
                _mm_mul_ps(_mm_set1_ps(m[i + 1]), B)), _mm_add_ps(_mm_mul_ps(_mm_set1_ps(m[i + 2]), R), _mm_set1_ps(m[9 + i / 3]))), zero), top)
            const __m128 gr = GRID(0), gg = GRID(3), gb = GRID(6);
            #undef GRID
            // Non-negative, so truncation is the floor.
            const __m128 kr = _mm_cvtepi32_ps(_mm_cvttps_epi32(gr)), kg = _mm_cvtepi32_ps(_mm_cvttps_epi32(gg)), kb = _mm_cvtepi32_ps(_mm_cvttps_epi32(gb));
            const __m128 fr = _mm_sub_ps(gr, kr), fg = _mm_sub_ps(gg, kg), fb = _mm_sub_ps(gb, kb);
            const __m128 hi = _mm_max_ps(_mm_max_ps(fr, fg), fb), lo = _mm_min_ps(_mm_min_ps(fr, fg), fb);
            const __m128 mid = _mm_sub_ps(_mm_sub_ps(_mm_add_ps(_mm_add_ps(fr, fg), fb), hi), lo);
            // The axis of the largest fraction (ties to R, then G) and of the smallest
            // (ties to B), as table steps; as in the scalar code below.
            const __m128 rBig = _mm_and_ps(_mm_cmpge_ps(fr, fg), _mm_cmpge_ps(fr, fb));
            const __m128 gBig = _mm_andnot_ps(rBig, _mm_cmpge_ps(fg, fb));
            const __m128 big = _mm_or_ps(_mm_or_ps(_mm_and_ps(rBig, stepR), _mm_and_ps(gBig, stepG)),
                                         _mm_andnot_ps(_mm_or_ps(rBig, gBig), stepB));
            const __m128 rSmall = _mm_and_ps(_mm_cmplt_ps(fr, fg), _mm_cmplt_ps(fr, fb));
            const __m128 gSmall = _mm_andnot_ps(rSmall, _mm_cmplt_ps(fg, fb));
            const __m128 small = _mm_or_ps(_mm_or_ps(_mm_and_ps(rSmall, stepR), _mm_and_ps(gSmall, stepG)),
                                           _mm_andnot_ps(_mm_or_ps(rSmall, gSmall), stepB));
            const __m128 base = _mm_add_ps(_mm_add_ps(_mm_mul_ps(kr, stepR), _mm_mul_ps(kg, stepG)), _mm_mul_ps(kb, stepB));
            int o0[4], o1[4], o2[4];
            _mm_storeu_si128((__m128i *)o0, _mm_cvttps_epi32(base));
            _mm_storeu_si128((__m128i *)o1, _mm_cvttps_epi32(big));
            _mm_storeu_si128((__m128i *)o2, _mm_cvttps_epi32(small));
            float w0[4], w1[4], w2[4], w3[4];
            _mm_storeu_ps(w0, _mm_sub_ps(_mm_set1_ps(1.0f), hi));
            _mm_storeu_ps(w1, _mm_sub_ps(hi, mid));
            _mm_storeu_ps(w2, _mm_sub_ps(mid, lo));
            _mm_storeu_ps(w3, lo);
            for (int l = 0; l < 4; l++) {
                const float *c000 = table + o0[l], *c111 = c000 + sr + sg + sb;
                __m128 v = _mm_mul_ps(_mm_set1_ps(w0[l]), _mm_loadu_ps(c000));
                v = _mm_add_ps(v, _mm_mul_ps(_mm_set1_ps(w1[l]), _mm_loadu_ps(c000 + o1[l])));
                v = _mm_add_ps(v, _mm_mul_ps(_mm_set1_ps(w2[l]), _mm_loadu_ps(c111 - o2[l])));
                v = _mm_add_ps(v, _mm_mul_ps(_mm_set1_ps(w3[l]), _mm_loadu_ps(c111)));
                v = _mm_min_ps(_mm_max_ps(v, _mm_set1_ps(VFX_TABLE3D_TRANSFER_FLOOR)), _mm_set1_ps(1.0f));
                __m128i i = _mm_sub_epi32(_mm_srli_epi32(_mm_castps_si128(v), 23 - VFX_TABLE3D_TRANSFER_BITS),
                                          _mm_set1_epi32(transfer_base()));
                int idx[4];
                _mm_storeu_si128((__m128i *)idx, i);
                const uint32_t bgra = (uint32_t)transfer[idx[2]] | (uint32_t)transfer[idx[1]] << 8
                                    | (uint32_t)transfer[idx[0]] << 16 | 0xFF000000u;
                memcpy(out + 4 * (x + l), &bgra, 4);  // little-endian: B, G, R, A in memory
            }
        }
#endif
        for (; x < src->width; x++) {
            const float vy = (float)(sample(luma, x, src->bytes) << up), vb = (float)cbrow[x], vr = (float)crrow[x];
            int ir, ig, ib;
            float fr, fg, fb;
            cell(m[0] * vy + m[1] * vb + m[2] * vr + m[9], &ir, &fr);
            cell(m[3] * vy + m[4] * vb + m[5] * vr + m[10], &ig, &fg);
            cell(m[6] * vy + m[7] * vb + m[8] * vr + m[11], &ib, &fb);
            const float *c000 = table + ir * sr + ig * sg + ib * sb;
            const float *c111 = c000 + sr + sg + sb;
            // Tetrahedral interpolation, without branches: the tetrahedron that holds
            // the point runs c000 → c000 + (step of the largest fraction) → c111 − (step
            // of the smallest) → c111. Its faces lie on the planes R' = G', G' = B',
            // R' = B', where the tone curve's max(R, G, B) has its kinks.
            const float hi = fr > fg ? (fr > fb ? fr : fb) : (fg > fb ? fg : fb);
            const float lo = fr < fg ? (fr < fb ? fr : fb) : (fg < fb ? fg : fb);
            const float mid = fr + fg + fb - hi - lo;
            const int big = fr >= fg ? (fr >= fb ? sr : sb) : (fg >= fb ? sg : sb);
            const int small = fr < fg ? (fr < fb ? sr : sb) : (fg < fb ? sg : sb);
            const float *p1 = c000 + big, *p2 = c111 - small;
            const float w0 = 1.0f - hi, w1 = hi - mid, w2 = mid - lo, w3 = lo;
            for (int c = 0; c < 3; c++) {
                float v = w0 * c000[c] + w1 * p1[c] + w2 * p2[c] + w3 * c111[c];
                v = v < VFX_TABLE3D_TRANSFER_FLOOR ? VFX_TABLE3D_TRANSFER_FLOOR : (v > 1.0f ? 1.0f : v);
                out[4 * x + 2 - c] = transfer[vfx_table3d_transfer_index(v)];
            }
            out[4 * x + 3] = 255;
        }
    }
}
