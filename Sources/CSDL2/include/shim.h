// SDL2, loaded when the first window opens (vidfx_on_demand.h), not at start.
#ifndef VIDFX_CSDL2_SHIM_H
#define VIDFX_CSDL2_SHIM_H

#include <SDL2/SDL.h>

// Function-like macros Swift cannot import.
static const int VFX_SDL_WINDOWPOS_CENTERED = SDL_WINDOWPOS_CENTERED;

/// Loads SDL2: NULL when it is loaded, else why not.
const char *vfx_load_sdl(void);

#endif
