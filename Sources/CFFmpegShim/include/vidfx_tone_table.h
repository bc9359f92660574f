// The HDR tone map's table, filled without libavfilter: zimg (the library behind
// libavfilter's zscale) for the transfer and the primaries, then the tone curve of
// libavfilter's `tonemap` filter with the same float and double steps, so the table holds
// what the reference chain gives for each point (ToneMapTableTests checks it against the
// chain). zimg is loaded on demand (libzimg.so.2, one small library) where libavfilter
// pulls in some eighty.
#ifndef VIDFX_TONE_TABLE_H
#define VIDFX_TONE_TABLE_H

#include <stddef.h>

/// The tone curves, as the `tonemap` filter numbers them.
enum {
    VFX_TONE_CLIP = 3,
    VFX_TONE_REINHARD = 4,
    VFX_TONE_HABLE = 5,
    VFX_TONE_MOBIUS = 6,
};

/// Loads zimg once: NULL when it is there, else why not (naming the file).
const char *vfx_load_zimg(void);

/// Fills `table` (points³ entries of R, G, B and a spare 0, R slowest) with linear-light
/// BT.709 for the R'G'B' grid point (low + i·step for each axis) of a signal with H.273
/// `transfer` and `primaries`: to linear light with `reference_white` nits as 1.0, to
/// BT.709 primaries, then `curve` with the signal peak `peak` (in reference whites).
/// Non-finite results are stored as 0. Returns 0, or -1 with why in `reason`.
int vfx_tone_table(float *table, int points, double low, double step, int transfer, int primaries,
                   double reference_white, int curve, double peak, char *reason, size_t reason_size);

#endif
