#include "vidfx_resize.h"

#include <math.h>

// OpenCV's INTER_RESIZE_COEF_BITS: weights are fractions of 2048.
enum { coef_bits = 11, coef_scale = 1 << coef_bits };

static inline int16_t weight(float f) {
    // saturate_cast<short>(float): rounded to nearest, ties to even (cvRound).
    return (int16_t)lrintf(f * (float)coef_scale);
}

// Where one output coordinate reads, and with which weights: OpenCV's linear
// coefficients (a float position, clamped to the picture's edge).
static void coordinate(int d, double scale, int size, int *first, int16_t *w0, int16_t *w1) {
    float f = (float)((d + 0.5) * scale - 0.5);
    int s = (int)floorf(f);
    f -= (float)s;
    if (s < 0) { f = 0; s = 0; }
    if (s >= size - 1) { f = 0; s = size - 1; }
    *first = s;
    *w0 = weight(1.f - f);
    *w1 = weight(f);
}

// One source row through the horizontal weights: `first[dx]` is the left pixel,
// `weights[dx]` its weight in the low 16 bits and the right one's in the high.
static void horizontal(const uint8_t *row, int src_width, int dst_width, const int32_t *first,
                       const int32_t *weights, int32_t *out) {
    for (int dx = 0; dx < dst_width; dx++) {
        int sx = first[dx];
        int32_t a0 = (int16_t)(weights[dx] & 0xffff), a1 = (int16_t)(weights[dx] >> 16);
        const uint8_t *p = row + 3 * sx;
        const uint8_t *q = sx + 1 < src_width ? p + 3 : p;
        for (int c = 0; c < 3; c++) out[3 * dx + c] = p[c] * a0 + q[c] * a1;
    }
}

static void area_halving(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst, ptrdiff_t dst_stride,
                         int dst_width, int dst_height) {
    for (int y = 0; y < dst_height; y++) {
        const uint8_t *a = src + 2 * y * src_stride, *b = a + src_stride;
        uint8_t *o = dst + y * dst_stride;
        for (int x = 0; x < dst_width; x++, o += 4) {
            for (int c = 0; c < 3; c++)
                o[c] = (uint8_t)((a[6 * x + c] + a[6 * x + 3 + c] + b[6 * x + c] + b[6 * x + 3 + c] + 2) >> 2);
            o[3] = 255;
        }
    }
}

void vfx_resize_bgr_linear(const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                           uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int dst_height,
                           int32_t *rows) {
    double scale_x = (double)src_width / dst_width, scale_y = (double)src_height / dst_height;
    if (scale_x == 2.0 && scale_y == 2.0 && src_width == 2 * dst_width && src_height == 2 * dst_height) {
        area_halving(src, src_stride, dst, dst_stride, dst_width, dst_height);
        return;
    }
    int n = 3 * dst_width;
    int32_t *r0 = rows, *r1 = rows + n, *first = rows + 2 * n, *weights = first + dst_width;
    for (int dx = 0; dx < dst_width; dx++) {
        int16_t a0, a1;
        coordinate(dx, scale_x, src_width, &first[dx], &a0, &a1);
        weights[dx] = (int32_t)(uint16_t)a0 | (int32_t)((uint32_t)(uint16_t)a1 << 16);
    }
    int held0 = -1, held1 = -1;
    for (int dy = 0; dy < dst_height; dy++) {
        int sy; int16_t b0, b1;
        coordinate(dy, scale_y, src_height, &sy, &b0, &b1);
        int sy1 = sy + 1 < src_height ? sy + 1 : sy;
        // Rows already made horizontally are reused, as OpenCV's ring of rows does.
        if (held0 != sy) {
            if (held1 == sy) { int32_t *t = r0; r0 = r1; r1 = t; held0 = sy; held1 = -1; }
            else { horizontal(src + sy * src_stride, src_width, dst_width, first, weights, r0); held0 = sy; }
        }
        if (held1 != sy1) { horizontal(src + sy1 * src_stride, src_width, dst_width, first, weights, r1); held1 = sy1; }
        uint8_t *o = dst + dy * dst_stride;
        // OpenCV's vector rounding (every pixel, its tail included): each row's sum
        // shifted to 16 bits, multiplied keeping the high half, then rounded by 2 bits.
        for (int i = 0; i < n; i++) {
            int16_t s0 = (int16_t)(r0[i] >> 4), s1 = (int16_t)(r1[i] >> 4);
            int v = ((((int32_t)s0 * b0) >> 16) + (((int32_t)s1 * b1) >> 16) + 2) >> 2;
            o[4 * (i / 3) + i % 3] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        for (int x = 0; x < dst_width; x++) o[4 * x + 3] = 255;
    }
}

void vfx_resize_source_rows(int src_width, int src_height, int dst_width, int dst_height, uint8_t *needed) {
    for (int y = 0; y < src_height; y++) needed[y] = 0;
    double scale_y = (double)src_height / dst_height;
    if ((double)src_width / dst_width == 2.0 && scale_y == 2.0 && src_width == 2 * dst_width && src_height == 2 * dst_height) {
        for (int y = 0; y < src_height; y++) needed[y] = 1;
        return;
    }
    for (int dy = 0; dy < dst_height; dy++) {
        int sy; int16_t b0, b1;
        coordinate(dy, scale_y, src_height, &sy, &b0, &b1);
        needed[sy] = 1;
        if (sy + 1 < src_height) needed[sy + 1] = 1;
    }
}

void vfx_walk_bgr(const uint8_t *src, ptrdiff_t src_stride, long x0, long y0, long xx, long xy, long yx, long yy,
                  uint8_t *dst, ptrdiff_t dst_stride, int width, int height) {
    for (int y = 0; y < height; y++) {
        uint8_t *o = dst + y * dst_stride;
        long sx = x0 + y * yx, sy = y0 + y * yy;
        for (int x = 0; x < width; x++, o += 3, sx += xx, sy += xy) {
            const uint8_t *p = src + sy * src_stride + 3 * sx;
            o[0] = p[0]; o[1] = p[1]; o[2] = p[2];
        }
    }
}
