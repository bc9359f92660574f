#include "vidfx_hsv.h"

#include <pthread.h>

// 255·2¹² / v and 180·2¹² / (6·d), rounded: the divisions OpenCV does by table.
static int32_t saturation_table[256], hue_table[256];
// Scene scans run decoders (and this) on several threads at once: pthread_once makes the
// tables once and orders their writes before any reader's loads.
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_tables(void) {
    for (int i = 1; i < 256; i++) {
        saturation_table[i] = (int32_t)((255.0 * 4096.0) / i + 0.5);
        hue_table[i] = (int32_t)((180.0 * 4096.0) / (6.0 * i) + 0.5);
    }
}

void vfx_bgra_to_hsv(const uint8_t *bgra, ptrdiff_t stride, int width, int height,
                     uint8_t *hue, uint8_t *saturation, uint8_t *value) {
    pthread_once(&tables_once, make_tables);
    for (int y = 0; y < height; y++) {
        const uint8_t *p = bgra + y * stride;
        size_t row = (size_t)y * (size_t)width;
        for (int x = 0; x < width; x++, p += 4) {
            int32_t b = p[0], g = p[1], r = p[2];
            int32_t v = b > g ? b : g;
            v = v > r ? v : r;
            int32_t m = b < g ? b : g;
            m = m < r ? m : r;
            int32_t diff = v - m;
            value[row + x] = (uint8_t)v;
            saturation[row + x] = (uint8_t)((diff * saturation_table[v] + (1 << 11)) >> 12);
            int32_t h = 0;
            if (diff > 0) {
                int32_t t = v == r ? g - b : v == g ? b - r + 2 * diff : r - g + 4 * diff;
                h = (t * hue_table[diff] + (1 << 11)) >> 12;
                if (h < 0) h += 180;
                if (h > 255) h = 255;
            }
            hue[row + x] = (uint8_t)h;
        }
    }
}

uint64_t vfx_abs_diff_sum(const uint8_t *a, const uint8_t *b, size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        int d = (int)a[i] - (int)b[i];
        sum += (uint64_t)(d < 0 ? -d : d);
    }
    return sum;
}
