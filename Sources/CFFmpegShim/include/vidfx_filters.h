// libavfilter and libavdevice, loaded when a job first needs them (vidfx_on_demand.h):
// only HDR and interlaced pictures go through libavfilter, only capture through
// libavdevice.
#ifndef VIDFX_FILTERS_H
#define VIDFX_FILTERS_H

/// Loads libavfilter: NULL when it is loaded, else why not.
const char *vfx_load_avfilter(void);
/// Loads libavdevice: NULL when it is loaded, else why not.
const char *vfx_load_avdevice(void);

#endif
