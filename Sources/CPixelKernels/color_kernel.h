// The colour kernels, included once per instruction set by vidfx_color.c: K(name) gives
// each copy its own names, KERNEL_TARGET its target. Plain loops with no branches per
// pixel, written for the vectoriser; KERNEL_AVX2 only picks a quicker floor.

/// clamp(v, 0, 255) rounded half to even, by adding 2^23: the whole number lands in the
/// low mantissa bits (Swift's `roundedByte`).
KERNEL_TARGET static inline uint32_t K(byte_even)(float v) {
    float c = v < 0 ? 0 : (v > 255 ? 255 : v);
    union { float f; uint32_t u; } t = { c + 8388608.0f };
    return t.u & 0x1FF;
}

/// clamp(⌊v + ½⌋, 0, 255): half up (the spec's Q). With AVX a floor is one instruction;
/// baseline SSE2 has none, so there the floor comes from the 2^23 rounding, one less
/// where that rounded up. Both give the same bytes.
KERNEL_TARGET static inline uint32_t K(byte_half_up)(float v) {
#if KERNEL_AVX2
    float r = __builtin_floorf(v + 0.5f);
    float c = r < 0 ? 0 : (r > 255 ? 255 : r);
    union { float f; uint32_t u; } t = { c + 8388608.0f };
    return t.u & 0xFF;
#else
    float x0 = v + 0.5f;
    float x = x0 < 0 ? 0 : (x0 > 255 ? 255 : x0);
    float m = x + 8388608.0f;
    union { float f; uint32_t u; } t = { m };
    uint32_t up = (m - 8388608.0f) > x ? 1 : 0;
    return (t.u & 0xFF) - up;
#endif
}

/// A byte channel as a float (via int: unsigned → float costs more on x86).
#define CH(p, s) ((float)(int32_t)(((p) >> (s)) & 0xFF))

KERNEL_TARGET static void K(affine_rgb)(uint32_t *restrict px, long n, const float *m, float o) {
    const float m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7], m8 = m[8];
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        float r = CH(p, 16), g = CH(p, 8), b = CH(p, 0);
        uint32_t nr = K(byte_even)(m0 * r + m1 * g + m2 * b + o);
        uint32_t ng = K(byte_even)(m3 * r + m4 * g + m5 * b + o);
        uint32_t nb = K(byte_even)(m6 * r + m7 * g + m8 * b + o);
        px[i] = (p & 0xFF000000u) | nr << 16 | ng << 8 | nb;
    }
}

KERNEL_TARGET static void K(sepia)(uint32_t *restrict px, long n, uint32_t a) {
    // The matrix ×4096. Full sepia in floats: every sum is a whole number below 2^24, so
    // exact, and SSE2 has float multiplies where it lacks 32-bit integer ones.
    const float cap = 255 << 12;
    if (a == 1024) {
        for (long i = 0; i < n; i++) {
            uint32_t p = px[i];
            float r = CH(p, 16), g = CH(p, 8), b = CH(p, 0);
            float sr = 1610 * r + 3150 * g + 774 * b + 2048, sg = 1430 * r + 2810 * g + 688 * b + 2048;
            float sb = 1114 * r + 2187 * g + 537 * b + 2048;
            sr = sr < cap ? sr : cap;
            sg = sg < cap ? sg : cap;
            sb = sb < cap ? sb : cap;
            px[i] = (p & 0xFF000000u) | ((uint32_t)(int32_t)sr >> 12) << 16 | ((uint32_t)(int32_t)sg >> 12) << 8
                | (uint32_t)(int32_t)sb >> 12;
        }
        return;
    }
    // A mix: (c·4096·keep + s·a) / 2^22, too wide for exact floats; 32-bit integers.
    const uint32_t keep = 1024 - a, icap = 255u << 12, half = 1u << 21;
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        uint32_t b = p & 0xFF, g = (p >> 8) & 0xFF, r = (p >> 16) & 0xFF;
        uint32_t sr = 1610 * r + 3150 * g + 774 * b, sg = 1430 * r + 2810 * g + 688 * b, sb = 1114 * r + 2187 * g + 537 * b;
        sr = sr < icap ? sr : icap;
        sg = sg < icap ? sg : icap;
        sb = sb < icap ? sb : icap;
        uint32_t orr = ((r << 12) * keep + sr * a + half) >> 22;
        uint32_t og = ((g << 12) * keep + sg * a + half) >> 22;
        uint32_t ob = ((b << 12) * keep + sb * a + half) >> 22;
        px[i] = (p & 0xFF000000u) | orr << 16 | og << 8 | ob;
    }
}

/// Luma ×10⁴ with BT.709's weights on bytes: below 2^24, so exact as a float.
#define LUMA4(p) (2126 * CH(p, 16) + 7152 * CH(p, 8) + 722 * CH(p, 0))

KERNEL_TARGET static void K(luma_threshold)(uint32_t *restrict px, long n, uint32_t limit) {
    const float l = (float)limit;  // ≤ 2 550 001: exact
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        px[i] = (p & 0xFF000000u) | (LUMA4(p) >= l ? 0x00FFFFFFu : 0);
    }
}

KERNEL_TARGET static void K(luma_solarize)(uint32_t *restrict px, long n, uint32_t limit) {
    const float l = (float)limit;
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        px[i] = LUMA4(p) <= l ? p ^ 0x00FFFFFFu : p;
    }
}

#define FMAX(x, y) ((y) >= (x) ? (y) : (x))
#define FMIN(x, y) ((y) < (x) ? (y) : (x))

KERNEL_TARGET static void K(vibrance)(uint32_t *restrict px, long n, float a, float k) {
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        float r = CH(p, 16), g = CH(p, 8), b = CH(p, 0);
        float s = FMAX(r, FMAX(g, b)) - FMIN(r, FMIN(g, b));
        float l = 0.2126f * r + 0.7152f * g + 0.0722f * b;
        float f = 1 + a - k * s;
        px[i] = (p & 0xFF000000u) | K(byte_even)(l + (r - l) * f) << 16 | K(byte_even)(l + (g - l) * f) << 8
            | K(byte_even)(l + (b - l) * f);
    }
}

/// The overlay blend of luma l with colour c, both in 0…1.
#define OVERLAY(l, c) ((l) < 0.5f ? 2 * (l) * (c) : 1 - 2 * (1 - (l)) * (1 - (c)))

KERNEL_TARGET static void K(monochrome)(uint32_t *restrict px, long n, float cr, float cg, float cb, float k) {
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        float r = CH(p, 16), g = CH(p, 8), b = CH(p, 0);
        float l = (0.2126f * r + 0.7152f * g + 0.0722f * b) * (1.0f / 255.0f);
        float ob = OVERLAY(l, cb) * 255, og = OVERLAY(l, cg) * 255, orr = OVERLAY(l, cr) * 255;
        px[i] = (p & 0xFF000000u) | K(byte_even)(r + (orr - r) * k) << 16 | K(byte_even)(g + (og - g) * k) << 8
            | K(byte_even)(b + (ob - b) * k);
    }
}

KERNEL_TARGET static void K(falsecolor)(uint32_t *restrict px, long n, const float *o, const float *d) {
    const float or0 = o[0], og0 = o[1], ob0 = o[2], dr = d[0], dg = d[1], db = d[2];
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        float r = CH(p, 16), g = CH(p, 8), b = CH(p, 0);
        float l = 0.2126f * r + 0.7152f * g + 0.0722f * b;
        px[i] = (p & 0xFF000000u) | K(byte_even)(or0 + dr * l) << 16 | K(byte_even)(og0 + dg * l) << 8
            | K(byte_even)(ob0 + db * l);
    }
}

/// A linear value clamped to 0…1, encoded through the 65536-entry table (index rounded
/// by the 2^23 trick).
KERNEL_TARGET static inline uint32_t K(encode)(float v, const uint8_t *table) {
    float c = v < 0 ? 0 : (v > 1 ? 1 : v);
    union { float f; uint32_t u; } t = { c * 65535 + 8388608.0f };
    return table[t.u & 0xFFFF];
}

KERNEL_TARGET static void K(linear_affine_rgb)(uint32_t *restrict px, long n, const float *m, const float *lin,
                                               const uint8_t *enc) {
    const float m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7], m8 = m[8];
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        float r = lin[(p >> 16) & 0xFF], g = lin[(p >> 8) & 0xFF], b = lin[p & 0xFF];
        float nr = m0 * r + m1 * g + m2 * b, ng = m3 * r + m4 * g + m5 * b, nb = m6 * r + m7 * g + m8 * b;
        px[i] = (p & 0xFF000000u) | K(encode)(nr, enc) << 16 | K(encode)(ng, enc) << 8 | K(encode)(nb, enc);
    }
}

KERNEL_TARGET static void K(linear_matrix_rgba)(uint32_t *restrict px, long n, const float *m, const float *bias,
                                                const float *lin, const uint8_t *enc) {
    float k[16];
    for (int i = 0; i < 16; i++) k[i] = m[i];
    const float b0 = bias[0], b1 = bias[1], b2 = bias[2], b3 = bias[3];
    for (long i = 0; i < n; i++) {
        uint32_t p = px[i];
        float a = (float)(int32_t)(p >> 24) / 255;
        float r = lin[(p >> 16) & 0xFF], g = lin[(p >> 8) & 0xFF], b = lin[p & 0xFF];
        float nr = k[0] * r + k[1] * g + k[2] * b + k[3] * a + b0;
        float ng = k[4] * r + k[5] * g + k[6] * b + k[7] * a + b1;
        float nb = k[8] * r + k[9] * g + k[10] * b + k[11] * a + b2;
        float na = k[12] * r + k[13] * g + k[14] * b + k[15] * a + b3;
        px[i] = K(byte_even)(na * 255) << 24 | K(encode)(nr, enc) << 16 | K(encode)(ng, enc) << 8 | K(encode)(nb, enc);
    }
}

KERNEL_TARGET static void K(add_scaled)(float *restrict out, const float *restrict in, long n, float weight) {
    for (long x = 0; x < n; x++) out[x] += weight * in[x];
}

KERNEL_TARGET static void K(column_sums)(const uint32_t *restrict top, long stride, long rows, long width,
                                         uint32_t *restrict sb, uint32_t *restrict sg, uint32_t *restrict sr,
                                         uint32_t *restrict sa) {
    for (long x = 0; x < width; x++) sb[x] = sg[x] = sr[x] = sa[x] = 0;
    for (long y = 0; y < rows; y++) {
        const uint32_t *row = top + y * stride;
        for (long x = 0; x < width; x++) {
            uint32_t p = row[x];
            sb[x] += p & 0xFF;
            sg[x] += (p >> 8) & 0xFF;
            sr[x] += (p >> 16) & 0xFF;
            sa[x] += p >> 24;
        }
    }
}

KERNEL_TARGET static void K(blend_rows)(const uint32_t *restrict r0, const uint32_t *restrict r1, float f,
                                        float *restrict br, float *restrict bg, float *restrict bb, long w) {
    for (long x = 0; x < w; x++) {
        uint32_t p = r0[x], q = r1[x];
        float pr = CH(p, 16), qr = CH(q, 16), pg = CH(p, 8), qg = CH(q, 8), pb = CH(p, 0), qb = CH(q, 0);
        br[x] = pr + (qr - pr) * f;
        bg[x] = pg + (qg - pg) * f;
        bb[x] = pb + (qb - pb) * f;
    }
}

KERNEL_TARGET static void K(add_tap)(float *restrict ar, float *restrict ag, float *restrict ab, const float *inr,
                                     const float *ing, const float *inb, const int32_t *restrict i0,
                                     const int32_t *restrict i1, const float *restrict f, float weight, long w) {
    for (long x = 0; x < w; x++) {
        int32_t a0 = i0[x], a1 = i1[x];
        float t = f[x];
        ar[x] += weight * (inr[a0] + (inr[a1] - inr[a0]) * t);
        ag[x] += weight * (ing[a0] + (ing[a1] - ing[a0]) * t);
        ab[x] += weight * (inb[a0] + (inb[a1] - inb[a0]) * t);
    }
}

KERNEL_TARGET static void K(planar_to_bgra)(const float *restrict r, const float *restrict g, const float *restrict b,
                                            const uint32_t *restrict alpha, uint32_t *restrict out, long w) {
    for (long x = 0; x < w; x++) {
        out[x] = (alpha[x] & 0xFF000000u) | K(byte_half_up)(r[x]) << 16 | K(byte_half_up)(g[x]) << 8 | K(byte_half_up)(b[x]);
    }
}

KERNEL_TARGET static void K(yuv420_row_pair)(const uint32_t *restrict r0, const uint32_t *restrict r1,
                                             uint8_t *restrict y0, uint8_t *restrict y1, uint8_t *restrict uo,
                                             uint8_t *restrict vo, long half, const vfx_yuv_matrix *mp) {
    const vfx_yuv_matrix m = *mp;
    const int32_t yoff = (16 << 16) + (1 << 15);   // +16, rounded
    const int32_t coff = (128 << 18) + (1 << 17);  // +128 on a sum of four pixels, rounded
    for (long i = 0; i < half; i++) {
        uint32_t a = r0[2 * i], b = r0[2 * i + 1], c = r1[2 * i], d = r1[2 * i + 1];
        int32_t ra = (a >> 16) & 0xFF, ga = (a >> 8) & 0xFF, ba = a & 0xFF;
        int32_t rb = (b >> 16) & 0xFF, gb = (b >> 8) & 0xFF, bb = b & 0xFF;
        int32_t rc = (c >> 16) & 0xFF, gc = (c >> 8) & 0xFF, bc = c & 0xFF;
        int32_t rd = (d >> 16) & 0xFF, gd = (d >> 8) & 0xFF, bd = d & 0xFF;
        y0[2 * i] = (uint8_t)((m.yr * ra + m.yg * ga + m.yb * ba + yoff) >> 16);
        y0[2 * i + 1] = (uint8_t)((m.yr * rb + m.yg * gb + m.yb * bb + yoff) >> 16);
        y1[2 * i] = (uint8_t)((m.yr * rc + m.yg * gc + m.yb * bc + yoff) >> 16);
        y1[2 * i + 1] = (uint8_t)((m.yr * rd + m.yg * gd + m.yb * bd + yoff) >> 16);
        int32_t sr = ra + rb + rc + rd, sg = ga + gb + gc + gd, sb = ba + bb + bc + bd;
        uo[i] = (uint8_t)((m.ur * sr + m.ug * sg + m.ub * sb + coff) >> 18);
        vo[i] = (uint8_t)((m.vr * sr + m.vg * sg + m.vb * sb + coff) >> 18);
    }
}

/// lowbias32 (C. Wellons), as OldTimes.hash.
KERNEL_TARGET static inline uint32_t K(hash)(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

KERNEL_TARGET static void K(oldtimes_row)(const uint32_t *restrict from, const uint32_t *restrict original,
                                          uint32_t *restrict out, long w, const float *restrict mul,
                                          const float *restrict add, const vfx_oldtimes_row_params *pp) {
    const vfx_oldtimes_row_params p = *pp;
    for (long x = 0; x < w; x++) {
        uint32_t s = from[x];
        float r = CH(s, 16) * (1.0f / 255.0f), g = CH(s, 8) * (1.0f / 255.0f), b = CH(s, 0) * (1.0f / 255.0f);
        float luma = 0.299f * r + 0.587f * g + 0.114f * b;
        r += (luma - r) * p.tone;
        g += (luma * 0.92f - g) * p.tone;
        b += (luma * 0.78f - b) * p.tone;
        uint32_t h = K(hash)(p.seed ^ K(hash)(p.tick ^ K(hash)(5 ^ K(hash)(p.row_seed + (uint32_t)x))));
        float nz = p.grain * (2 * (float)(int32_t)(h >> 8) * 0x1p-24f - 1) + p.lift;
        r = FMIN(FMAX(r + nz, 0), 1);
        g = FMIN(FMAX(g + nz, 0), 1);
        b = FMIN(FMAX(b + nz, 0), 1);
        float m = mul[x], k = add[x];
        r = r * m + k;
        g = g * m + k;
        b = b * m + k;
        float dx = (float)x + 0.5f - p.half_w;
        float t = FMIN(FMAX((__builtin_sqrtf(dx * dx + p.dyc * p.dyc) * p.inverse_diagonal - 0.45f) * (1.0f / 0.55f), 0), 1);
        float shade = 1 - p.vignette * t * t * (3 - 2 * t);
        uint32_t o = original[x];
        float orr = CH(o, 16), og = CH(o, 8), ob = CH(o, 0);
        float mr = orr + (r * shade * 255 - orr) * p.amount;
        float mg = og + (g * shade * 255 - og) * p.amount;
        float mb = ob + (b * shade * 255 - ob) * p.amount;
        out[x] = (o & 0xFF000000u) | K(byte_half_up)(mr) << 16 | K(byte_half_up)(mg) << 8 | K(byte_half_up)(mb);
    }
}

/// Y709 of a row in 0…1: of the decoded values when `lin` is given, else of the bytes.
KERNEL_TARGET static void K(luma_row)(const uint32_t *restrict row, float *restrict l, long n, const float *lin) {
    if (lin) {
        for (long x = 0; x < n; x++) {
            uint32_t p = row[x];
            l[x] = 0.2126f * lin[(p >> 16) & 0xFF] + 0.7152f * lin[(p >> 8) & 0xFF] + 0.0722f * lin[p & 0xFF];
        }
    } else {
        for (long x = 0; x < n; x++) {
            uint32_t p = row[x];
            l[x] = (0.2126f * CH(p, 16) + 0.7152f * CH(p, 8) + 0.0722f * CH(p, 0)) * (1.0f / 255);
        }
    }
}

/// The gain table(l)/l, read linearly at l·steps (l in 0…1); 1 where l ≤ 1/1024. Computed
/// everywhere and selected, so the loops have no branch per pixel.
#define HS_GAIN(l) ({ \
    float c_ = (l) > 1 ? 1 : ((l) < 0 ? 0 : (l)), s_ = c_ * scale; \
    int32_t i_ = (int32_t)s_, j_ = i_ < steps ? i_ + 1 : i_; \
    float g_ = (table[i_] + (table[j_] - table[i_]) * (s_ - (float)i_)) / (l); \
    (l) > 1.0f / 1024 ? g_ : 1.0f; })

KERNEL_TARGET static void K(highlight_shadow_row)(const uint32_t *restrict from, uint32_t *restrict out,
                                                  const float *restrict luma, long n, const float *restrict table,
                                                  int32_t steps, const float *lin, const uint8_t *enc) {
    const float scale = (float)steps;
    if (lin) {
#if KERNEL_AVX2
#pragma clang loop vectorize(enable) vectorize_width(8)
#endif
        for (long x = 0; x < n; x++) {
            uint32_t p = from[x];
            float gain = HS_GAIN(luma[x]);
            out[x] = (p & 0xFF000000u) | K(encode)(lin[(p >> 16) & 0xFF] * gain, enc) << 16
                | K(encode)(lin[(p >> 8) & 0xFF] * gain, enc) << 8 | K(encode)(lin[p & 0xFF] * gain, enc);
        }
    } else {
#if KERNEL_AVX2
#pragma clang loop vectorize(enable) vectorize_width(8)
#endif
        for (long x = 0; x < n; x++) {
            uint32_t p = from[x];
            float gain = HS_GAIN(luma[x]);
            out[x] = (p & 0xFF000000u) | K(byte_even)(CH(p, 16) * gain) << 16 | K(byte_even)(CH(p, 8) * gain) << 8
                | K(byte_even)(CH(p, 0) * gain);
        }
    }
}
#undef HS_GAIN

KERNEL_TARGET static long K(map_row)(const uint64_t *restrict entries, const uint32_t *base, long stride,
                                     uint32_t *restrict out, long w, int nearest, int32_t *restrict translucent) {
    // Indices are 32-bit (a frame has fewer than 2^31 pixels), so the gathers vectorise.
    const int32_t s32 = (int32_t)stride;
    if (nearest) {
#if KERNEL_AVX2
#pragma clang loop vectorize(enable) vectorize_width(8)
#endif
        for (long x = 0; x < w; x++) {
            uint64_t e = entries[x];
            int32_t x0 = (int32_t)(e & 0xFFFF), y0 = (int32_t)((e >> 16) & 0xFFFF);
            int outside = x0 == 0xFFFF;
            uint32_t p = base[outside ? 0 : y0 * s32 + x0];
            out[x] = outside ? 0 : p;
        }
        return 0;
    }
    // Every column is mixed straight, as if its taps were opaque; a second pass lists the
    // columns whose taps were not, which the caller mixes premultiplied (none in most video).
    uint32_t anyTranslucent = 0;
#if KERNEL_AVX2
#pragma clang loop vectorize(enable) vectorize_width(8)
#endif
    for (long x = 0; x < w; x++) {
        uint64_t e = entries[x];
        int32_t x0 = (int32_t)(e & 0xFFFF), y0 = (int32_t)((e >> 16) & 0xFFFF);
        int outside = x0 == 0xFFFF;
        int32_t fxi = (int32_t)((e >> 32) & 0xFFFF), fyi = (int32_t)(e >> 48);
        // A zero fraction reads no neighbour: at the right and bottom edges there is none.
        int32_t i = outside ? 0 : y0 * s32 + x0, dx = fxi ? 1 : 0, dy = fyi ? s32 : 0;
        uint32_t p00 = base[i], p10 = base[i + dx], p01 = base[i + dy], p11 = base[i + dx + dy];
        anyTranslucent |= outside ? 0 : ((p00 & p10 & p01 & p11) >> 24) ^ 0xFF;
        float fx = (float)fxi * (1.0f / 65536), fy = (float)fyi * (1.0f / 65536);
        float tr = CH(p00, 16) + (CH(p10, 16) - CH(p00, 16)) * fx, br = CH(p01, 16) + (CH(p11, 16) - CH(p01, 16)) * fx;
        float tg = CH(p00, 8) + (CH(p10, 8) - CH(p00, 8)) * fx, bg = CH(p01, 8) + (CH(p11, 8) - CH(p01, 8)) * fx;
        float tb = CH(p00, 0) + (CH(p10, 0) - CH(p00, 0)) * fx, bb = CH(p01, 0) + (CH(p11, 0) - CH(p01, 0)) * fx;
        uint32_t v = (p00 & 0xFF000000u) | K(byte_even)(tr + (br - tr) * fy) << 16
            | K(byte_even)(tg + (bg - tg) * fy) << 8 | K(byte_even)(tb + (bb - tb) * fy);
        out[x] = outside ? 0 : v;
    }
    if (!anyTranslucent) return 0;
    long count = 0;
    for (long x = 0; x < w; x++) {
        uint64_t e = entries[x];
        int32_t x0 = (int32_t)(e & 0xFFFF), y0 = (int32_t)((e >> 16) & 0xFFFF);
        if (x0 == 0xFFFF) continue;
        int32_t i = y0 * s32 + x0, dx = (e >> 32) & 0xFFFF ? 1 : 0, dy = e >> 48 ? s32 : 0;
        if ((base[i] & base[i + dx] & base[i + dy] & base[i + dx + dy]) >> 24 != 0xFF) translucent[count++] = (int32_t)x;
    }
    return count;
}

KERNEL_TARGET static void K(fill)(uint32_t *restrict px, long n, uint32_t value) {
    for (long i = 0; i < n; i++) px[i] = value;
}

#undef CH
#undef LUMA4
#undef FMAX
#undef FMIN
#undef OVERLAY
