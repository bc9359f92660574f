// The table kernel, included once per instruction set by vidfx_table3d.c: K(name) gives each
// copy its own names and KERNEL_TARGET its target, so the same source is compiled for SSE2
// and for AVX2 with FMA (picked at run time).
KERNEL_TARGET static inline int K(sample)(const uint8_t *row, int x, int bytes) {
    return bytes == 2 ? (row[2 * x] | (row[2 * x + 1] << 8)) : row[x];
}

KERNEL_TARGET static inline int K(clampi)(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// One chroma plane brought to luma row `y` at full width, as 16-bit codes. `blend`
/// holds a chroma row's width + 1 ints. `general`: never the 16-bit shortcut (tests).
KERNEL_TARGET static void K(chroma_row)(const vfx_planes *s, int p, int y, uint16_t *out, int *blend, int general) {
    const int cw = (s->width + (1 << s->log2_cw) - 1) >> s->log2_cw;
    const int ch = (s->height + (1 << s->log2_ch) - 1) >> s->log2_ch;
    // Vertically, in quarters: 4:2:0 chroma centred between luma rows 2j and 2j+1 weighs
    // 3:1 towards the nearer chroma row; top-sited chroma sits on row 2j.
    int r0, r1, w0, w1, j = y >> s->log2_ch;
    if (s->log2_ch == 0) { r0 = r1 = y; w0 = w1 = 2; }
    else if (s->top_sited) {
        r0 = j; r1 = (y & 1) ? K(clampi)(j + 1, 0, ch - 1) : j; w0 = w1 = 2;
    } else if ((y & 1) == 0) { r0 = K(clampi)(j - 1, 0, ch - 1); r1 = j; w0 = 1; w1 = 3; }
    else { r0 = j; r1 = K(clampi)(j + 1, 0, ch - 1); w0 = 3; w1 = 1; }
    const uint8_t *a = s->plane[p] + (long)r0 * s->stride[p];
    const uint8_t *b = s->plane[p] + (long)r1 * s->stride[p];
    const int up = 16 - s->depth;
    if (!general && s->log2_cw == 1 && !s->centre_sited && up >= 3 && s->width >= 2) {
        // Left-sited 4:2:0 or 4:2:2, the usual case, in 16 bits: 4 × a sample is at most
        // 4·(2^depth − 1), and ((2e << up) + 4) >> 3 is e << (up − 2) exactly (likewise the
        // odd columns' sum of two, << (up − 3)), so no value leaves 16 bits and the loops
        // take sixteen columns a step. A tenth of the kernel's time at 1080p 10-bit.
        uint16_t *e = (uint16_t *)blend;
        if (s->bytes == 2) {
            const uint16_t *a16 = (const uint16_t *)a, *b16 = (const uint16_t *)b;
            for (int k = 0; k < cw; k++) e[k] = (uint16_t)(w0 * a16[k] + w1 * b16[k]);
        } else {
            for (int k = 0; k < cw; k++) e[k] = (uint16_t)(w0 * a[k] + w1 * b[k]);
        }
        e[cw] = e[cw - 1];
        const int pairs = s->width / 2, even = up - 2, odd = up - 3;
        for (int k = 0; k < pairs; k++) {
            out[2 * k] = (uint16_t)(e[k] << even);
            out[2 * k + 1] = (uint16_t)((e[k] + e[k + 1]) << odd);
        }
        if (s->width & 1) out[2 * pairs] = (uint16_t)(e[pairs] << even);
        return;
    }
    if (s->bytes == 2) {
        const uint16_t *a16 = (const uint16_t *)a, *b16 = (const uint16_t *)b;  // little-endian hosts
        for (int k = 0; k < cw; k++) blend[k] = w0 * a16[k] + w1 * b16[k];  // 4 × the sample
    } else {
        for (int k = 0; k < cw; k++) blend[k] = w0 * a[k] + w1 * b[k];
    }
    blend[cw] = blend[cw - 1];
    if (s->log2_cw == 0) {
        for (int x = 0; x < s->width; x++) out[x] = (uint16_t)(((blend[x] << up) + 2) >> 2);
    } else if (!s->centre_sited) {
        // Left-sited: even columns sit on a chroma sample, odd ones halfway to the next.
        // The loop covers whole pairs (no test inside, so the compiler vectorises it);
        // an odd width's last column is a lone even one.
        const int pairs = s->width / 2;
        for (int k = 0; k < pairs; k++) {
            int even = 2 * blend[k], odd = blend[k] + blend[k + 1];  // 8 × the sample
            out[2 * k] = (uint16_t)(((even << up) + 4) >> 3);
            out[2 * k + 1] = (uint16_t)(((odd << up) + 4) >> 3);
        }
        if (s->width & 1) out[2 * pairs] = (uint16_t)(((2 * blend[pairs] << up) + 4) >> 3);
    } else {
        // Centred: 3:1 towards the nearer chroma sample, as vertically. The first column
        // has no left neighbour (it repeats itself); then whole pairs, then an odd one.
        const int pairs = s->width / 2;
        out[0] = (uint16_t)(((4 * blend[0] << up) + 8) >> 4);
        if (pairs > 0) out[1] = (uint16_t)((((3 * blend[0] + blend[1]) << up) + 8) >> 4);
        for (int k = 1; k < pairs; k++) {
            int even = blend[k - 1] + 3 * blend[k], odd = 3 * blend[k] + blend[k + 1];  // 16 × the sample
            out[2 * k] = (uint16_t)(((even << up) + 8) >> 4);
            out[2 * k + 1] = (uint16_t)(((odd << up) + 8) >> 4);
        }
        if ((s->width & 1) && pairs > 0) out[2 * pairs] = (uint16_t)((((blend[pairs - 1] + 3 * blend[pairs]) << up) + 8) >> 4);
    }
}

/// The floor's bits as the transfer index counts them.
KERNEL_TARGET static inline int K(transfer_base)(void) {
    union { float f; int32_t i; } floor = { VFX_TABLE3D_TRANSFER_FLOOR };
    return floor.i >> (23 - VFX_TABLE3D_TRANSFER_BITS);
}

KERNEL_TARGET static inline void K(cell)(float g, int *i, float *f) {
    const float top = (float)(VFX_TABLE3D_POINTS - 1);
    g = g < 0.0f ? 0.0f : (g > top ? top : g);
    int k = (int)g;
    if (k > VFX_TABLE3D_POINTS - 2) k = VFX_TABLE3D_POINTS - 2;
    *i = k;
    *f = g - (float)k;
}

/// Rows [row_begin, row_end) of `src`; pixel (x, y) is written to dst[origin + y·row_step +
/// x·col_step] (in pixels), which places it upright, rotated or mirrored as it is made.
KERNEL_TARGET static void K(rows)(const float *table, const uint8_t *transfer, const float *to_grid, const vfx_planes *src,
                      uint32_t *dst, long origin, long col_step, long row_step, int row_begin, int row_end, uint16_t *scratch) {
    const int n = VFX_TABLE3D_POINTS;
    const int sr = n * n * 4, sg = n * 4, sb = 4;  // steps along R', G', B'
    const int up = 16 - src->depth;
    const float *m = to_grid;
    uint16_t *cbrow = scratch, *crrow = scratch + src->width;
    int *blend = (int *)(scratch + 2 * src->width);
    for (int y = row_begin; y < row_end; y++) {
        K(chroma_row)(src, 1, y, cbrow, blend, 0);
        K(chroma_row)(src, 2, y, crrow, blend, 0);
        const uint8_t *luma = src->plane[0] + (long)y * src->stride[0];
        uint32_t *out = dst + origin + (long)y * row_step;
        int x = 0;
#if KERNEL_AVX2
        // Eight pixels at a time; the corners two pixels to a register (a pixel's R, G, B
        // and a spare lane per half); the output curve is read a byte at a time. Gathers,
        // for the corners or the curve, were slower on the machines measured (11.9 against
        // 8.4 ms a 1080p picture on one core).
        {
            const __m256 top8 = _mm256_set1_ps((float)(VFX_TABLE3D_POINTS - 1) - 1e-4f), zero8 = _mm256_setzero_ps();
            const __m256 sR = _mm256_set1_ps((float)sr), sG = _mm256_set1_ps((float)sg), sB = _mm256_set1_ps((float)sb);
            const __m128i upBits = _mm_cvtsi32_si128(up);
            const __m256 floor8 = _mm256_set1_ps(VFX_TABLE3D_TRANSFER_FLOOR), one8 = _mm256_set1_ps(1.0f);
            const __m256i tbase = _mm256_set1_epi32(K(transfer_base)());
            __m256i pairLanes[4];
            for (int q = 0; q < 4; q++) pairLanes[q] = _mm256_setr_epi32(2 * q, 2 * q, 2 * q, 2 * q, 2 * q + 1, 2 * q + 1, 2 * q + 1, 2 * q + 1);
            for (; x + 8 <= src->width; x += 8) {
                __m256i y32 = src->bytes == 2 ? _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(luma + 2 * x)))
                                              : _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(luma + x)));
                const __m256 Y = _mm256_cvtepi32_ps(_mm256_sll_epi32(y32, upBits));
                const __m256 Cb = _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(cbrow + x))));
                const __m256 Cr = _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(crrow + x))));
                #define GRID8(i) _mm256_min_ps(_mm256_max_ps(_mm256_fmadd_ps(_mm256_set1_ps(m[i]), Y, _mm256_fmadd_ps(_mm256_set1_ps(m[i + 1]), Cb, \
                    _mm256_fmadd_ps(_mm256_set1_ps(m[i + 2]), Cr, _mm256_set1_ps(m[9 + i / 3])))), zero8), top8)
                const __m256 gr = GRID8(0), gg = GRID8(3), gb = GRID8(6);
                #undef GRID8
                const __m256 kr = _mm256_floor_ps(gr), kg = _mm256_floor_ps(gg), kb = _mm256_floor_ps(gb);
                const __m256 fr = _mm256_sub_ps(gr, kr), fg = _mm256_sub_ps(gg, kg), fb = _mm256_sub_ps(gb, kb);
                const __m256 hi = _mm256_max_ps(_mm256_max_ps(fr, fg), fb), lo = _mm256_min_ps(_mm256_min_ps(fr, fg), fb);
                const __m256 mid = _mm256_sub_ps(_mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(fr, fg), fb), hi), lo);
                // The same tetrahedron choice as the SSE2 and scalar code.
                const __m256 rBig = _mm256_and_ps(_mm256_cmp_ps(fr, fg, _CMP_GE_OQ), _mm256_cmp_ps(fr, fb, _CMP_GE_OQ));
                const __m256 gBig = _mm256_andnot_ps(rBig, _mm256_cmp_ps(fg, fb, _CMP_GE_OQ));
                const __m256 big = _mm256_blendv_ps(_mm256_blendv_ps(sB, sG, gBig), sR, rBig);
                const __m256 rSmall = _mm256_and_ps(_mm256_cmp_ps(fr, fg, _CMP_LT_OQ), _mm256_cmp_ps(fr, fb, _CMP_LT_OQ));
                const __m256 gSmall = _mm256_andnot_ps(rSmall, _mm256_cmp_ps(fg, fb, _CMP_LT_OQ));
                const __m256 small = _mm256_blendv_ps(_mm256_blendv_ps(sB, sG, gSmall), sR, rSmall);
                const __m256 base = _mm256_fmadd_ps(kr, sR, _mm256_fmadd_ps(kg, sG, _mm256_mul_ps(kb, sB)));
                // Each corner's offset, whole: a pixel's four corners are four loads.
                const __m256i i0 = _mm256_cvttps_epi32(base);
                const __m256i i3 = _mm256_add_epi32(i0, _mm256_set1_epi32(sr + sg + sb));
                int o0[8], o1[8], o2[8], o3[8];
                _mm256_storeu_si256((__m256i *)o0, i0);
                _mm256_storeu_si256((__m256i *)o1, _mm256_add_epi32(i0, _mm256_cvttps_epi32(big)));
                _mm256_storeu_si256((__m256i *)o2, _mm256_sub_epi32(i3, _mm256_cvttps_epi32(small)));
                _mm256_storeu_si256((__m256i *)o3, i3);
                const __m256 w0 = _mm256_sub_ps(one8, hi), w1 = _mm256_sub_ps(hi, mid), w2 = _mm256_sub_ps(mid, lo), w3 = lo;
                for (int q = 0; q < 4; q++) {
                    const int a = 2 * q, b = 2 * q + 1;
                    #define PAIR(o) _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(table + o[a])), _mm_loadu_ps(table + o[b]), 1)
                    __m256 v = _mm256_mul_ps(_mm256_permutevar8x32_ps(w0, pairLanes[q]), PAIR(o0));
                    v = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(w1, pairLanes[q]), PAIR(o1), v);
                    v = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(w2, pairLanes[q]), PAIR(o2), v);
                    v = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(w3, pairLanes[q]), PAIR(o3), v);
                    #undef PAIR
                    v = _mm256_min_ps(_mm256_max_ps(v, floor8), one8);
                    const __m256i index = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(v), 23 - VFX_TABLE3D_TRANSFER_BITS), tbase);
                    int idx[8];
                    _mm256_storeu_si256((__m256i *)idx, index);
                    // Lanes R, G, B, spare per pixel → bytes B, G, R, alpha.
                    const uint32_t pa = (uint32_t)transfer[idx[2]] | (uint32_t)transfer[idx[1]] << 8 | (uint32_t)transfer[idx[0]] << 16 | 0xFF000000u;
                    const uint32_t pb = (uint32_t)transfer[idx[6]] | (uint32_t)transfer[idx[5]] << 8 | (uint32_t)transfer[idx[4]] << 16 | 0xFF000000u;
                    out[(x + a) * col_step] = pa;
                    out[(x + b) * col_step] = pb;
                }
            }
        }
#endif
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
                                          _mm_set1_epi32(K(transfer_base)()));
                int idx[4];
                _mm_storeu_si128((__m128i *)idx, i);
                const uint32_t bgra = (uint32_t)transfer[idx[2]] | (uint32_t)transfer[idx[1]] << 8
                                    | (uint32_t)transfer[idx[0]] << 16 | 0xFF000000u;
                out[(x + l) * col_step] = bgra;  // little-endian: B, G, R, A in memory
            }
        }
#endif
        for (; x < src->width; x++) {
            const float vy = (float)(K(sample)(luma, x, src->bytes) << up), vb = (float)cbrow[x], vr = (float)crrow[x];
            int ir, ig, ib;
            float fr, fg, fb;
            K(cell)(m[0] * vy + m[1] * vb + m[2] * vr + m[9], &ir, &fr);
            K(cell)(m[3] * vy + m[4] * vb + m[5] * vr + m[10], &ig, &fg);
            K(cell)(m[6] * vy + m[7] * vb + m[8] * vr + m[11], &ib, &fb);
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
            uint32_t bgra = 0xFF000000u;
            for (int c = 0; c < 3; c++) {
                float v = w0 * c000[c] + w1 * p1[c] + w2 * p2[c] + w3 * c111[c];
                v = v < VFX_TABLE3D_TRANSFER_FLOOR ? VFX_TABLE3D_TRANSFER_FLOOR : (v > 1.0f ? 1.0f : v);
                bgra |= (uint32_t)transfer[vfx_table3d_transfer_index(v)] << (8 * (2 - c));
            }
            out[x * col_step] = bgra;
        }
    }
}
