// Unsharp mask over BGRA pictures with ffmpeg's `unsharp` arithmetic, bit for bit: a
// binomial blur of 2·radius + 1 taps each way (edges replicated), rounded
// `(sum + half) >> 4·radius`, and each pixel moved by `((value − blur)·amount) >> 16`.
// The Effects target's `sharpen` drives it.
#ifndef VIDFX_SHARPEN_H
#define VIDFX_SHARPEN_H

#include <stddef.h>
#include <stdint.h>

/// The largest radius taken (unsharp's largest matrix, 23 taps).
#define VFX_SHARPEN_MAX_RADIUS 11

/// 32-bit integers of scratch `vfx_sharpen_rows` needs for rows `width` pixels long.
size_t vfx_sharpen_scratch(int width, int radius);

/// Sharpens rows [row_begin, row_end) of `src` (`width` × `height` BGRA, `src_stride`
/// pixels a row) into the same rows of `dst`. `amount` is 16.16 fixed point; changes
/// whose difference is at most `threshold` levels are left out. With `luma`, the BT.709
/// luma is sharpened and its change added to red, green and blue alike; otherwise each
/// channel is sharpened on its own. Alpha is kept.
void vfx_sharpen_rows(const uint32_t *src, ptrdiff_t src_stride, uint32_t *dst, ptrdiff_t dst_stride, int width, int height,
                      int row_begin, int row_end, int radius, int32_t amount, int32_t threshold, int luma, int32_t *scratch);

#endif
