// The unsharp mask's loops, included once per instruction set by vidfx_sharpen.c (see
// blur_kernel.h for the form). Every inner loop runs over contiguous 32-bit integers.

/// One plane's value of each pixel of `row` (the BT.709 luma, rounded as swscale's fixed
/// point, or the channel at `shift`) into `out`, `r` replicated values beyond each edge.
KERNEL_TARGET static void K(plane_row)(const uint32_t *restrict row, int width, int r, int luma, int shift, int32_t *restrict out) {
    int32_t *o = out + r;
    if (luma) {
        for (int x = 0; x < width; x++) {
            uint32_t p = row[x];
            int32_t red = (int32_t)((p >> 16) & 0xFF), green = (int32_t)((p >> 8) & 0xFF), blue = (int32_t)(p & 0xFF);
            o[x] = (13933 * red + 46871 * green + 4732 * blue + 32768) >> 16;
        }
    } else {
        for (int x = 0; x < width; x++) o[x] = (int32_t)((row[x] >> shift) & 0xFF);
    }
    for (int i = 0; i < r; i++) { out[i] = o[0]; o[width + i] = o[width - 1]; }
}

/// A row's horizontal binomial sums: out[x] = Σ coef[k]·padded[x + k].
KERNEL_TARGET static void K(horizontal)(const int32_t *restrict padded, int width, const int32_t *coef, int taps,
                                        int32_t *restrict out) {
    for (int x = 0; x < width; x++) out[x] = 0;
    for (int k = 0; k < taps; k++) {
        const int32_t c = coef[k], *p = padded + k;
        for (int x = 0; x < width; x++) out[x] += c * p[x];
    }
}

KERNEL_TARGET static void K(sharpen)(const uint32_t *src, ptrdiff_t src_stride, uint32_t *dst, ptrdiff_t dst_stride, int width,
                                     int height, int row_begin, int row_end, int r, int32_t amount, int32_t threshold, int luma,
                                     int32_t *scratch) {
    const int taps = 2 * r + 1, bits = 4 * r;
    int32_t coef[2 * VFX_SHARPEN_MAX_RADIUS + 1];
    coef[0] = 1;
    for (int k = 0; k < 2 * r; k++) coef[k + 1] = (int32_t)((int64_t)coef[k] * (2 * r - k) / (k + 1));
    int32_t *ring = scratch;                          // taps rows of horizontal sums
    int32_t *padded = ring + (size_t)taps * width;    // one row's values, padded by r
    int32_t *values = padded + width + 2 * r;          // the output row's own values
    int32_t *narrow = values + width;                  // vertical sums, 32 bits (r ≤ 5)
    // Vertical sums, 64 bits (r > 5), on an 8-byte boundary (the scratch is 16-aligned).
    int64_t *wide = (int64_t *)(scratch + (((size_t)(narrow + width - scratch) + 1) & ~(size_t)1));
    // Up to radius 5 the vertical sums stay below 2^31 (255·4^10); beyond, 64 bits.
    const int fits = r <= 5;
    const int64_t half = (int64_t)1 << (bits - 1);
    const int planes = luma ? 1 : 3;
    if (!luma) {
        for (int y = row_begin; y < row_end; y++) memcpy(dst + y * dst_stride, src + y * src_stride, (size_t)width * 4);
    }
    for (int plane = 0; plane < planes; plane++) {
        const int shift = 16 - 8 * plane;
        const int first = row_begin - r;
        for (int j = first; j < row_end + r; j++) {
            const int clamped = j < 0 ? 0 : j >= height ? height - 1 : j;
            K(plane_row)(src + clamped * src_stride, width, r, luma, shift, padded);
            K(horizontal)(padded, width, coef, taps, ring + (size_t)((j - first) % taps) * width);
            const int y = j - r;
            if (y < row_begin) continue;
            // Rows y − r … y + r are in the ring: row (y − r + k) at slot (y − r + k − first) % taps.
            // Each pixel's blur, rounded as unsharp rounds, into `narrow`.
            if (fits) {
                for (int x = 0; x < width; x++) narrow[x] = 0;
                for (int k = 0; k < taps; k++) {
                    const int32_t c = coef[k], *h = ring + (size_t)((y - r + k - first) % taps) * width;
                    for (int x = 0; x < width; x++) narrow[x] += c * h[x];
                }
                const int32_t half32 = (int32_t)half;
                for (int x = 0; x < width; x++) narrow[x] = (narrow[x] + half32) >> bits;
            } else {
                for (int x = 0; x < width; x++) wide[x] = 0;
                for (int k = 0; k < taps; k++) {
                    const int64_t c = coef[k];
                    const int32_t *h = ring + (size_t)((y - r + k - first) % taps) * width;
                    for (int x = 0; x < width; x++) wide[x] += c * h[x];
                }
                for (int x = 0; x < width; x++) narrow[x] = (int32_t)((wide[x] + half) >> bits);
            }
            K(plane_row)(src + y * src_stride, width, 0, luma, shift, values);
            const uint32_t *in = src + y * src_stride;
            uint32_t *out = dst + y * dst_stride;
            // The changes, then the pixels: two plain loops that vectorise.
            for (int x = 0; x < width; x++) {
                const int32_t difference = values[x] - narrow[x];
                const int32_t magnitude = difference < 0 ? -difference : difference;
                // |difference| ≤ 255 and |amount| ≤ 5·2^16: the product fits in 32 bits.
                const int32_t change = (difference * amount) >> 16;
                narrow[x] = threshold > 0 && magnitude <= threshold ? 0 : change;
            }
            if (luma) {
                for (int x = 0; x < width; x++) {
                    const uint32_t p = in[x];
                    const int32_t change = narrow[x];
                    int32_t red = (int32_t)((p >> 16) & 0xFF) + change, green = (int32_t)((p >> 8) & 0xFF) + change,
                            blue = (int32_t)(p & 0xFF) + change;
                    red = red < 0 ? 0 : red > 255 ? 255 : red;
                    green = green < 0 ? 0 : green > 255 ? 255 : green;
                    blue = blue < 0 ? 0 : blue > 255 ? 255 : blue;
                    out[x] = (p & 0xFF000000u) | (uint32_t)red << 16 | (uint32_t)green << 8 | (uint32_t)blue;
                }
            } else {
                const uint32_t keep = ~(0xFFu << shift);
                for (int x = 0; x < width; x++) {
                    int32_t v = values[x] + narrow[x];
                    v = v < 0 ? 0 : v > 255 ? 255 : v;
                    out[x] = (out[x] & keep) | (uint32_t)v << shift;
                }
            }
        }
    }
}
