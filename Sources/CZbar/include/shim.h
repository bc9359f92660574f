// zbar, loaded when the first code detector is made (vidfx_on_demand.h), not at start.
#ifndef VIDFX_CZBAR_SHIM_H
#define VIDFX_CZBAR_SHIM_H

#include <zbar.h>

/// Loads zbar: NULL when it is loaded, else why not.
const char *vfx_load_zbar(void);

#endif
