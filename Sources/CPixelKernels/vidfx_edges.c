// OpenCV's Canny, rewritten for one small plane at a time (a scene scan's 256-wide
// picture): the same Sobel, magnitudes, non-maximum suppression in fixed point and
// hysteresis, so the edge map is OpenCV's bit for bit (checked against cv2.Canny in
// EdgeMapTests). Then the dilation PySceneDetect applies.
#include "vidfx_edges.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// tan(22.5°) in 15-bit fixed point, as OpenCV rounds it.
#define CANNY_SHIFT 15
#define TG22 ((int)(0.4142135623730950488016887242097 * (1 << CANNY_SHIFT) + 0.5))

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

int vfx_canny_dilate(const uint8_t *src, int width, int height, int low, int high, int kernel, uint8_t *dst) {
    if (width <= 0 || height <= 0) return 0;
    if (low > high) { int t = low; low = high; high = t; }
    const size_t n = (size_t)width * height;
    const int mapstep = width + 2;
    int16_t *dx = malloc(n * sizeof(int16_t)), *dy = malloc(n * sizeof(int16_t));
    int *mag = calloc((size_t)(height + 2) * (width + 2), sizeof(int));  // zero border all round
    uint8_t *map = malloc((size_t)(height + 2) * mapstep);
    uint8_t **stack = malloc(n * sizeof(uint8_t *));
    uint8_t *rowmax = malloc(n);
    if (!dx || !dy || !mag || !map || !stack || !rowmax) {
        free(dx); free(dy); free(mag); free(map); free(stack); free(rowmax);
        return -1;
    }
    // 3×3 Sobel, edges replicated; L1 magnitudes into a frame of zeros.
    for (int y = 0; y < height; y++) {
        const uint8_t *a = src + (size_t)clampi(y - 1, 0, height - 1) * width;
        const uint8_t *b = src + (size_t)y * width;
        const uint8_t *c = src + (size_t)clampi(y + 1, 0, height - 1) * width;
        for (int x = 0; x < width; x++) {
            int l = clampi(x - 1, 0, width - 1), r = clampi(x + 1, 0, width - 1);
            int gx = (a[r] - a[l]) + 2 * (b[r] - b[l]) + (c[r] - c[l]);
            int gy = (c[l] + 2 * c[x] + c[r]) - (a[l] + 2 * a[x] + a[r]);
            dx[(size_t)y * width + x] = (int16_t)gx;
            dy[(size_t)y * width + x] = (int16_t)gy;
            mag[(size_t)(y + 1) * (width + 2) + x + 1] = abs(gx) + abs(gy);
        }
    }
    // The map: 1 not an edge, 0 maybe, 2 an edge; its border is 1.
    memset(map, 1, (size_t)(height + 2) * mapstep);
    size_t top = 0;
    for (int y = 0; y < height; y++) {
        const int *mp = mag + (size_t)y * (width + 2) + 1;       // row above
        const int *ma = mag + (size_t)(y + 1) * (width + 2) + 1; // this row
        const int *mn = mag + (size_t)(y + 2) * (width + 2) + 1; // row below
        uint8_t *pm = map + (size_t)(y + 1) * mapstep + 1;
        const int16_t *rx = dx + (size_t)y * width, *ry = dy + (size_t)y * width;
        for (int j = 0; j < width; j++) {
            int m = ma[j];
            int keep = 0;
            if (m > low) {
                int xs = rx[j], ys = ry[j];
                int x = abs(xs), yy = abs(ys) << CANNY_SHIFT;
                int tg22x = x * TG22;
                if (yy < tg22x) {
                    keep = m > ma[j - 1] && m >= ma[j + 1];
                } else {
                    int tg67x = tg22x + (x << (CANNY_SHIFT + 1));
                    if (yy > tg67x) {
                        keep = m > mp[j] && m >= mn[j];
                    } else {
                        int s = (xs ^ ys) < 0 ? -1 : 1;
                        keep = m > mp[j - s] && m > mn[j + s];
                    }
                }
            }
            if (keep && m > high) {
                pm[j] = 2;
                stack[top++] = pm + j;
            } else {
                pm[j] = keep ? 0 : 1;
            }
        }
    }
    // Hysteresis: every maybe joined to an edge through its eight neighbours is one.
    while (top > 0) {
        uint8_t *m = stack[--top];
        const ptrdiff_t around[8] = {-mapstep - 1, -mapstep, -mapstep + 1, -1, 1, mapstep - 1, mapstep, mapstep + 1};
        for (int k = 0; k < 8; k++) {
            if (!m[around[k]]) { m[around[k]] = 2; stack[top++] = m + around[k]; }
        }
    }
    // Dilation by a square of ones (a max filter, the window clipped to the plane):
    // along rows, then along columns.
    const int half = kernel / 2;
    for (int y = 0; y < height; y++) {
        const uint8_t *pm = map + (size_t)(y + 1) * mapstep + 1;
        uint8_t *out = rowmax + (size_t)y * width;
        // Runs of edge pixels: each marks its neighbourhood.
        memset(out, 0, (size_t)width);
        for (int x = 0; x < width; x++) {
            if (pm[x] != 2) continue;
            int a = clampi(x - half, 0, width - 1), b = clampi(x + half, 0, width - 1);
            memset(out + a, 255, (size_t)(b - a + 1));
        }
    }
    for (int y = 0; y < height; y++) {
        int a = clampi(y - half, 0, height - 1), b = clampi(y + half, 0, height - 1);
        uint8_t *out = dst + (size_t)y * width;
        memcpy(out, rowmax + (size_t)a * width, (size_t)width);
        for (int k = a + 1; k <= b; k++) {
            const uint8_t *r = rowmax + (size_t)k * width;
            for (int x = 0; x < width; x++) out[x] |= r[x];
        }
    }
    free(dx); free(dy); free(mag); free(map); free(stack); free(rowmax);
    return 0;
}

double vfx_plane_median(const uint8_t *plane, int64_t n) {
    if (n <= 0) return 0;
    int64_t count[256] = {0};
    for (int64_t i = 0; i < n; i++) count[plane[i]]++;
    // The values at sorted positions (n-1)/2 and n/2.
    int64_t want[2] = {(n - 1) / 2, n / 2};
    int found[2] = {0, 0};
    int64_t seen = 0;
    for (int v = 0, k = 0; v < 256 && k < 2; v++) {
        seen += count[v];
        while (k < 2 && want[k] < seen) found[k++] = v;
    }
    return ((double)found[0] + (double)found[1]) / 2;
}
