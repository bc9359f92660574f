// libavfilter and libavdevice, loaded when a job first needs them (vidfx_on_demand.h):
// only HDR and interlaced pictures go through libavfilter, only capture through
// libavdevice.
#ifndef VIDFX_FILTERS_H
#define VIDFX_FILTERS_H

#include <stddef.h>

/// Loads libavfilter. 0 when it is loaded, else -1 with why in `message`.
int vfx_load_avfilter(char *message, size_t size);
/// Loads libavdevice. 0 when it is loaded, else -1 with why in `message`.
int vfx_load_avdevice(char *message, size_t size);

#endif
