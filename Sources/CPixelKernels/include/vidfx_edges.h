// Edges as PySceneDetect's content detector draws them for its delta_edges score:
// OpenCV's Canny (3×3 Sobel, L1 gradient) on the value plane, then a dilation.
#ifndef VIDFX_EDGES_H
#define VIDFX_EDGES_H

#include <stdint.h>

/// cv::Canny(src, low, high) (aperture 3, L1 magnitude) on a `width`×`height` 8-bit plane,
/// then cv::dilate with a `kernel`×`kernel` square of ones (kernel odd): `dst` (width·height
/// bytes) is 255 on the grown edges, 0 elsewhere. Returns 0, or -1 when memory ran out.
int vfx_canny_dilate(const uint8_t *src, int width, int height, int low, int high, int kernel, uint8_t *dst);

/// The median of a plane of n bytes as numpy.median gives it: for an even n, the mean of
/// the two middle values.
double vfx_plane_median(const uint8_t *plane, int64_t n);

#endif
