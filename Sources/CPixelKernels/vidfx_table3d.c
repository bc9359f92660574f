#include "vidfx_table3d.h"
#include <math.h>

static inline int sample(const uint8_t *row, int x, int bytes) {
    return bytes == 2 ? (row[2 * x] | (row[2 * x + 1] << 8)) : row[x];
}

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// Weights (in quarters) of the two chroma samples nearest luma position `x` along an
/// axis halved by subsampling: `centred` chroma sits between luma 2k and 2k+1,
/// otherwise on luma 2k (co-sited: left, or top).
static inline void taps(int x, int count, int centred, int *a, int *b, int *wa, int *wb) {
    int k = x >> 1;
    if (!centred) {
        *a = k; *b = (x & 1) ? clampi(k + 1, 0, count - 1) : k; *wa = 2; *wb = 2;
    } else if ((x & 1) == 0) {
        *a = clampi(k - 1, 0, count - 1); *b = clampi(k, 0, count - 1); *wa = 1; *wb = 3;
    } else {
        *a = clampi(k, 0, count - 1); *b = clampi(k + 1, 0, count - 1); *wa = 3; *wb = 1;
    }
}

/// One chroma plane brought to luma row `y` at full width, as 16-bit codes.
static void chroma_row(const vfx_planes *s, int p, int y, uint16_t *out) {
    const int cw = (s->width + (1 << s->log2_cw) - 1) >> s->log2_cw;
    const int ch = (s->height + (1 << s->log2_ch) - 1) >> s->log2_ch;
    int r0, r1, w0, w1;
    if (s->log2_ch == 1) taps(y, ch, !s->top_sited, &r0, &r1, &w0, &w1);
    else { r0 = r1 = clampi(y, 0, ch - 1); w0 = w1 = 2; }
    const uint8_t *a = s->plane[p] + (long)r0 * s->stride[p];
    const uint8_t *b = s->plane[p] + (long)r1 * s->stride[p];
    const int up = 16 - s->depth;
    for (int x = 0; x < s->width; x++) {
        int c0, c1, u0, u1;
        if (s->log2_cw == 1) taps(x, cw, s->centre_sited, &c0, &c1, &u0, &u1);
        else { c0 = c1 = x; u0 = u1 = 2; }
        int v = w0 * (u0 * sample(a, c0, s->bytes) + u1 * sample(a, c1, s->bytes))
              + w1 * (u0 * sample(b, c0, s->bytes) + u1 * sample(b, c1, s->bytes));  // 16 × the sample
        out[x] = (uint16_t)clampi(((v << up) + 8) >> 4, 0, 65535);
    }
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
    for (int y = row_begin; y < row_end; y++) {
        chroma_row(src, 1, y, cbrow);
        chroma_row(src, 2, y, crrow);
        const uint8_t *luma = src->plane[0] + (long)y * src->stride[0];
        uint8_t *out = dst + (long)y * dst_stride;
        for (int x = 0; x < src->width; x++) {
            const float vy = (float)(sample(luma, x, src->bytes) << up), vb = (float)cbrow[x], vr = (float)crrow[x];
            int ir, ig, ib;
            float fr, fg, fb;
            cell(m[0] * vy + m[1] * vb + m[2] * vr + m[9], &ir, &fr);
            cell(m[3] * vy + m[4] * vb + m[5] * vr + m[10], &ig, &fg);
            cell(m[6] * vy + m[7] * vb + m[8] * vr + m[11], &ib, &fb);
            const float *c000 = table + ir * sr + ig * sg + ib * sb;
            // Tetrahedral interpolation: the cell's tetrahedron that holds the point,
            // walked from c000 to c111 along the axes in order of their fractions. Its
            // faces lie on the planes R' = G', G' = B', R' = B', where the tone curve's
            // max(R, G, B) has its kinks.
            int s1, s2, s3;
            float f1, f2, f3;
            if (fr >= fg) {
                if (fg >= fb)      { s1 = sr; s2 = sg; s3 = sb; f1 = fr; f2 = fg; f3 = fb; }
                else if (fr >= fb) { s1 = sr; s2 = sb; s3 = sg; f1 = fr; f2 = fb; f3 = fg; }
                else               { s1 = sb; s2 = sr; s3 = sg; f1 = fb; f2 = fr; f3 = fg; }
            } else {
                if (fb >= fg)      { s1 = sb; s2 = sg; s3 = sr; f1 = fb; f2 = fg; f3 = fr; }
                else if (fb >= fr) { s1 = sg; s2 = sb; s3 = sr; f1 = fg; f2 = fb; f3 = fr; }
                else               { s1 = sg; s2 = sr; s3 = sb; f1 = fg; f2 = fr; f3 = fb; }
            }
            const float *p1 = c000 + s1, *p2 = p1 + s2, *p3 = p2 + s3;
            const float w0 = 1.0f - f1, w1 = f1 - f2, w2 = f2 - f3, w3 = f3;
            for (int c = 0; c < 3; c++) {
                float v = w0 * c000[c] + w1 * p1[c] + w2 * p2[c] + w3 * p3[c];
                v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
                // The transfer table is indexed by the square root of linear light:
                // fine steps where the curve is steepest, next to black.
                out[4 * x + 2 - c] = transfer[(int)(sqrtf(v) * (float)VFX_TABLE3D_TRANSFER_STEPS + 0.5f)];
            }
            out[4 * x + 3] = 255;
        }
    }
}
