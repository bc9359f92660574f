// zbar, loaded when the first code detector is made (vidfx_on_demand.h), not at start.
#ifndef VIDFX_CZBAR_SHIM_H
#define VIDFX_CZBAR_SHIM_H

#include <zbar.h>
#include <stddef.h>

/// Loads zbar. 0 when it is loaded, else -1 with why in `message` (`size` bytes).
int vfx_load_zbar(char *message, size_t size);

#endif
