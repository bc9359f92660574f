// Scene analysis' per-pixel work (Scenes' ContentDetector), in C: the Swift loop it
// replaced spent more time than the decoder's scaling on a 256-wide picture.
#ifndef VIDFX_HSV_H
#define VIDFX_HSV_H

#include <stddef.h>
#include <stdint.h>

/// OpenCV's 8-bit BGR→HSV in its fixed-point form (hue 0–179), from BGRA rows of `stride`
/// bytes into three planes of width·height bytes.
void vfx_bgra_to_hsv(const uint8_t *bgra, ptrdiff_t stride, int width, int height,
                     uint8_t *hue, uint8_t *saturation, uint8_t *value);

/// Σ|a[i] − b[i]| over n bytes.
uint64_t vfx_abs_diff_sum(const uint8_t *a, const uint8_t *b, size_t n);

#endif
