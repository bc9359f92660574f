// The blur passes, included once per instruction set by vidfx_blur.c: K(name) gives each
// copy its own names and KERNEL_TARGET its target, so the same loops are compiled for
// SSE2 and for AVX2 (picked at run time). A line is `count` elements of `lanes` floats:
// one pixel's four channels in a row pass, a strip of pixels across in a column pass,
// so every inner loop runs over contiguous floats and vectorises.

/// One extended-box pass: out[i] for i in [lo, hi), the sum of in[i − r … i + r] plus
/// `alpha` times in[i ± (r + 1)], times `scale`. A running sum: the cost does not
/// depend on r.
KERNEL_TARGET __attribute__((always_inline)) static inline void K(box_pass)(const float *restrict in, float *restrict out,
                                                                          int lanes, int r, float alpha, float scale,
                                                                          int lo, int hi, float *restrict acc) {
    for (int l = 0; l < lanes; l++) acc[l] = 0;
    for (int j = lo - r; j <= lo + r; j++) {
        const float *e = in + (ptrdiff_t)j * lanes;
        for (int l = 0; l < lanes; l++) acc[l] += e[l];
    }
    for (int i = lo; i < hi; i++) {
        const float *before = in + (ptrdiff_t)(i - r - 1) * lanes, *after = in + (ptrdiff_t)(i + r + 1) * lanes;
        const float *first = in + (ptrdiff_t)(i - r) * lanes;
        float *o = out + (ptrdiff_t)i * lanes;
        for (int l = 0; l < lanes; l++) {
            o[l] = (acc[l] + alpha * (before[l] + after[l])) * scale;
            acc[l] += after[l] - first[l];
        }
    }
}

/// One symmetric kernel pass: out[i] for i in [lo, hi) = Σ w[|k|]·in[i + k], |k| ≤ r.
KERNEL_TARGET __attribute__((always_inline)) static inline void K(kernel_pass)(const float *restrict in, float *restrict out,
                                                                             int lanes, int r, const float *restrict w,
                                                                             int lo, int hi) {
    for (int i = lo; i < hi; i++) {
        float *o = out + (ptrdiff_t)i * lanes;
        const float *c = in + (ptrdiff_t)i * lanes;
        for (int l = 0; l < lanes; l++) o[l] = w[0] * c[l];
        for (int k = 1; k <= r; k++) {
            const float *a = c - (ptrdiff_t)k * lanes, *b = c + (ptrdiff_t)k * lanes;
            const float wk = w[k];
            for (int l = 0; l < lanes; l++) o[l] += wk * (a[l] + b[l]);
        }
    }
}

/// Every pass of `axis` over a padded line of `count` elements in `a`, ping-ponging with
/// `b`; returns the buffer holding the result, valid in [reach, count − reach).
KERNEL_TARGET __attribute__((always_inline)) static inline float *K(line)(const vfx_blur_axis *axis, float *a, float *b,
                                                                        int count, int lanes, float *acc) {
    if (axis->passes == 0) {
        K(kernel_pass)(a, b, lanes, axis->radius, axis->weights, axis->radius, count - axis->radius);
        return b;
    }
    const int r = axis->radius, step = r + 1;
    const float scale = 1.0f / ((float)(2 * r + 1) + 2.0f * axis->alpha);
    for (int p = 1; p <= axis->passes; p++) {
        K(box_pass)(a, b, lanes, r, axis->alpha, scale, p * step, count - p * step, acc);
        float *t = a; a = b; b = t;
    }
    return a;
}

KERNEL_TARGET static void K(rows)(const vfx_blur_axis *axis, const uint32_t *src, ptrdiff_t src_stride, float *dst,
                                  ptrdiff_t dst_stride, int width, int row_begin, int row_end, const float *decode,
                                  float *scratch) {
    const int reach = vfx_blur_reach(axis), count = width + 2 * reach;
    float *a = scratch, *b = scratch + (size_t)count * 4;
    float acc[4];
    for (int y = row_begin; y < row_end; y++) {
        const uint32_t *s = src + (ptrdiff_t)y * src_stride;
        for (int j = 0; j < count; j++) {
            int x = j - reach;
            x = x < 0 ? 0 : (x >= width ? width - 1 : x);
            const uint32_t p = s[x];
            float *e = a + (size_t)j * 4;
            if (decode) {
                e[0] = decode[p & 0xFF]; e[1] = decode[(p >> 8) & 0xFF]; e[2] = decode[(p >> 16) & 0xFF];
            } else {
                e[0] = (float)(p & 0xFF); e[1] = (float)((p >> 8) & 0xFF); e[2] = (float)((p >> 16) & 0xFF);
            }
            e[3] = (float)(p >> 24);
        }
        const float *out = K(line)(axis, a, b, count, 4, acc);
        memcpy(dst + (ptrdiff_t)y * dst_stride, out + (size_t)reach * 4, (size_t)width * 4 * sizeof(float));
    }
}

KERNEL_TARGET static inline uint32_t K(byte)(float v) {
    return v <= 0 ? 0u : (v >= 255 ? 255u : (uint32_t)(v + 0.5f));
}

KERNEL_TARGET static inline uint32_t K(encoded)(float v, const uint8_t *encode) {
    float i = v * 65535.0f + 0.5f;
    return encode[i <= 0 ? 0 : (i >= 65535 ? 65535 : (int)i)];
}

/// Writes `n` pixels of 4 floats as BGRA, through `encode` (not alpha) when it is not NULL.
KERNEL_TARGET static inline void K(store)(const float *e, uint32_t *d, int n, const uint8_t *encode) {
    if (encode) {
        for (int x = 0; x < n; x++) {
            const float *p = e + 4 * x;
            d[x] = K(encoded)(p[0], encode) | K(encoded)(p[1], encode) << 8 | K(encoded)(p[2], encode) << 16 | K(byte)(p[3]) << 24;
        }
    } else {
        // Byte by byte, as the pixels lie in memory (B, G, R, A): a loop that vectorises.
        uint8_t *restrict bytes = (uint8_t *)d;
        for (int i = 0; i < 4 * n; i++) {
            float v = e[i];
            v = v < 0 ? 0 : (v > 255 ? 255 : v);
            bytes[i] = (uint8_t)(int)(v + 0.5f);
        }
    }
}

KERNEL_TARGET static void K(sparse)(const float *src, ptrdiff_t src_stride, int width, int height, uint32_t *dst,
                                    ptrdiff_t dst_stride, int row_begin, int row_end, int count, const int *dx,
                                    const int *dy, const float *weights, const uint8_t *encode, float *restrict acc) {
    for (int y = row_begin; y < row_end; y++) {
        for (int i = 0; i < 4 * width; i++) acc[i] = 0;
        for (int k = 0; k < count; k++) {
            int sy = y + dy[k];
            sy = sy < 0 ? 0 : (sy >= height ? height - 1 : sy);
            const float *restrict row = src + (ptrdiff_t)sy * src_stride;
            const float w = weights[k];
            const int shift = dx[k];
            // Columns whose read falls inside the row, then the clamped ones at each end.
            int lo = shift < 0 ? -shift : 0, hi = width - (shift > 0 ? shift : 0);
            if (lo > width) lo = width;
            if (hi < lo) hi = lo;
            const float *restrict shifted = row + 4 * (ptrdiff_t)shift;
            for (int i = 4 * lo; i < 4 * hi; i++) acc[i] += w * shifted[i];
            for (int x = 0; x < lo; x++) for (int c = 0; c < 4; c++) acc[4 * x + c] += w * row[c];
            for (int x = hi; x < width; x++) for (int c = 0; c < 4; c++) acc[4 * x + c] += w * row[4 * (width - 1) + c];
        }
        K(store)(acc, dst + (ptrdiff_t)y * dst_stride, width, encode);
    }
}

/// A strip of columns from `c0`, `lanes` floats wide: the `count` rows from `first`
/// (clamped to the picture's `height` rows) loaded into `scratch` and blurred. Row
/// `reach + i` of the result is output row `first + reach + i`.
KERNEL_TARGET __attribute__((always_inline)) static inline const float *K(strip)(const vfx_blur_axis *axis, const float *src,
                                                                               ptrdiff_t src_stride, int height, int c0, int lanes,
                                                                               int first, int count, float *scratch, float *acc) {
    float *a = scratch, *b = scratch + (size_t)count * lanes;
    for (int j = 0; j < count; j++) {
        int y = first + j;
        y = y < 0 ? 0 : (y >= height ? height - 1 : y);
        memcpy(a + (size_t)j * lanes, src + (ptrdiff_t)y * src_stride + (ptrdiff_t)c0 * 4, (size_t)lanes * sizeof(float));
    }
    return K(line)(axis, a, b, count, lanes, acc);
}

KERNEL_TARGET static void K(columns)(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, int height,
                                     uint32_t *dst, ptrdiff_t dst_stride, int col_begin, int col_end, int row_begin,
                                     int row_end, const uint8_t *encode, float *scratch) {
    const int reach = vfx_blur_reach(axis), rows = row_end - row_begin, count = rows + 2 * reach;
    float acc[4 * VFX_BLUR_STRIP];
    for (int c0 = col_begin; c0 < col_end; c0 += VFX_BLUR_STRIP) {
        const int cw = col_end - c0 < VFX_BLUR_STRIP ? col_end - c0 : VFX_BLUR_STRIP, lanes = 4 * cw;
        const float *out = K(strip)(axis, src, src_stride, height, c0, lanes, row_begin - reach, count, scratch, acc);
        for (int i = 0; i < rows; i++) {
            const float *e = out + (size_t)(reach + i) * lanes;
            K(store)(e, dst + (ptrdiff_t)(row_begin + i) * dst_stride + c0, cw, encode);
        }
    }
}

/// Rows [row_begin, row_end) of the float picture `src` (`width` pixels of 4 floats)
/// blurred horizontally into `dst`: the float twin of K(rows), for a reduced picture.
KERNEL_TARGET static void K(rows_float)(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, float *dst,
                                        ptrdiff_t dst_stride, int width, int row_begin, int row_end, float *scratch) {
    const int reach = vfx_blur_reach(axis), count = width + 2 * reach;
    float *a = scratch, *b = scratch + (size_t)count * 4;
    float acc[4];
    for (int y = row_begin; y < row_end; y++) {
        const float *s = src + (ptrdiff_t)y * src_stride;
        for (int j = 0; j < reach; j++) memcpy(a + (size_t)j * 4, s, 4 * sizeof(float));
        memcpy(a + (size_t)reach * 4, s, (size_t)width * 4 * sizeof(float));
        for (int j = reach + width; j < count; j++) memcpy(a + (size_t)j * 4, s + (size_t)(width - 1) * 4, 4 * sizeof(float));
        const float *out = K(line)(axis, a, b, count, 4, acc);
        memcpy(dst + (ptrdiff_t)y * dst_stride, out + (size_t)reach * 4, (size_t)width * 4 * sizeof(float));
    }
}

/// Columns [col_begin, col_end) of the float picture `src` blurred vertically, output rows
/// [row_begin, row_end) written as floats to `dst`: the float twin of K(columns).
KERNEL_TARGET static void K(columns_float)(const vfx_blur_axis *axis, const float *src, ptrdiff_t src_stride, int height,
                                           float *dst, ptrdiff_t dst_stride, int col_begin, int col_end, int row_begin,
                                           int row_end, float *scratch) {
    const int reach = vfx_blur_reach(axis), rows = row_end - row_begin, count = rows + 2 * reach;
    float acc[4 * VFX_BLUR_STRIP];
    for (int c0 = col_begin; c0 < col_end; c0 += VFX_BLUR_STRIP) {
        const int cw = col_end - c0 < VFX_BLUR_STRIP ? col_end - c0 : VFX_BLUR_STRIP, lanes = 4 * cw;
        const float *out = K(strip)(axis, src, src_stride, height, c0, lanes, row_begin - reach, count, scratch, acc);
        for (int i = 0; i < rows; i++)
            memcpy(dst + (ptrdiff_t)(row_begin + i) * dst_stride + (ptrdiff_t)c0 * 4, out + (size_t)(reach + i) * lanes,
                   (size_t)lanes * sizeof(float));
    }
}

/// Rows [row_begin, row_end) of the reduced picture, written from `dst` on (row
/// `row_begin` first): each pixel the mean of a 2^shift-square block of `src` (BGRA),
/// through `decode` when it is not NULL, as 4 floats. Reduced pixel (i, j) is the block
/// from ((i − 1)·2^shift, (j − 1)·2^shift): a margin of one block around the picture, so
/// the blocks past an edge hold its pixels repeated (as the full picture's blur would
/// read them), not the mean of the block at the edge.
KERNEL_TARGET static void K(shrink)(const uint32_t *src, ptrdiff_t src_stride, int width, int height, int shift, float *dst,
                                    ptrdiff_t dst_stride, int row_begin, int row_end, const float *decode, float *restrict column) {
    const int factor = 1 << shift, reduced = vfx_blur_reduced_size(width, shift), whole = width >> shift;
    const float scale = 1.0f / (float)(factor * factor);
    for (int sy = row_begin; sy < row_end; sy++) {
        // The block's rows summed down each column (bytes as they lie: B, G, R, A), then
        // each block's columns summed across.
        for (int i = 0; i < 4 * width; i++) column[i] = 0;
        for (int j = 0; j < factor; j++) {
            int y = ((sy - 1) << shift) + j;
            y = y < 0 ? 0 : (y >= height ? height - 1 : y);
            const uint8_t *restrict bytes = (const uint8_t *)(src + (ptrdiff_t)y * src_stride);
            if (decode) {
                for (int i = 0; i < 4 * width; i += 4) {
                    column[i] += decode[bytes[i]]; column[i + 1] += decode[bytes[i + 1]];
                    column[i + 2] += decode[bytes[i + 2]]; column[i + 3] += (float)bytes[i + 3];
                }
            } else {
                for (int i = 0; i < 4 * width; i++) column[i] += (float)bytes[i];
            }
        }
        float *o = dst + (ptrdiff_t)(sy - row_begin) * dst_stride;
        for (int sx = 0; sx < reduced; sx++) {
            float sum[4] = {0, 0, 0, 0};
            if (sx >= 1 && sx <= whole) {
                const float *c = column + (size_t)((sx - 1) << shift) * 4;
                for (int k = 0; k < 4 * factor; k += 4)
                    for (int l = 0; l < 4; l++) sum[l] += c[k + l];
            } else {
                // Blocks past an edge, or over it: its last column repeated.
                for (int k = 0; k < factor; k++) {
                    int x = ((sx - 1) << shift) + k;
                    x = x < 0 ? 0 : (x >= width ? width - 1 : x);
                    for (int l = 0; l < 4; l++) sum[l] += column[4 * x + l];
                }
            }
            for (int l = 0; l < 4; l++) o[4 * sx + l] = sum[l] * scale;
        }
    }
}

/// Output rows [row_begin, row_end) of a `width`-pixel picture interpolated (bilinear)
/// from its reduced float picture (as K(shrink) lays it out: reduced pixel i stands at
/// (i − ½)·2^shift − ½). `small` holds the reduced rows from `small_first` on;
/// `small_height` is the whole reduced picture's height. Written as K(store) writes.
/// `scratch` holds vfx_blur_expand_scratch floats.
KERNEL_TARGET static void K(expand)(const float *small, ptrdiff_t small_stride, int small_first, int small_height, int shift,
                                    uint32_t *dst, ptrdiff_t dst_stride, int width, int row_begin, int row_end,
                                    const uint8_t *encode, float *scratch) {
    const int factor = 1 << shift, reduced = vfx_blur_reduced_size(width, shift);
    const float inverse = 1.0f / (float)factor;
    float *line = scratch, *out = line + 4 * (size_t)reduced, *fraction = out + 4 * (size_t)width;
    int *left = (int *)(fraction + width), *right = left + width;
    for (int x = 0; x < width; x++) {
        const float at = ((float)x + 0.5f) * inverse + 0.5f;
        const int x0 = (int)floorf(at);
        fraction[x] = at - (float)x0;
        left[x] = x0 >= reduced ? reduced - 1 : x0;
        right[x] = x0 + 1 >= reduced ? reduced - 1 : x0 + 1;
    }
    for (int y = row_begin; y < row_end; y++) {
        const float at = ((float)y + 0.5f) * inverse + 0.5f;
        const int y0 = (int)floorf(at);
        const float t = at - (float)y0;
        const int ya = y0 >= small_height ? small_height - 1 : y0;
        const int yb = y0 + 1 >= small_height ? small_height - 1 : y0 + 1;
        const float *restrict a = small + (ptrdiff_t)(ya - small_first) * small_stride;
        const float *restrict b = small + (ptrdiff_t)(yb - small_first) * small_stride;
        for (int i = 0; i < 4 * reduced; i++) line[i] = a[i] + t * (b[i] - a[i]);
        for (int x = 0; x < width; x++) {
            const float *l = line + 4 * left[x], *r = line + 4 * right[x];
            const float s = fraction[x];
            float *o = out + 4 * x;
            for (int c = 0; c < 4; c++) o[c] = l[c] + s * (r[c] - l[c]);
        }
        K(store)(out, dst + (ptrdiff_t)y * dst_stride, width, encode);
    }
}
