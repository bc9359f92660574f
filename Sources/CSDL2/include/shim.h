// SDL2, loaded when the first window opens (vidfx_on_demand.h), not at start.
#ifndef VIDFX_CSDL2_SHIM_H
#define VIDFX_CSDL2_SHIM_H

#include <SDL2/SDL.h>
#include <stddef.h>

// Function-like macros Swift cannot import.
static const int VFX_SDL_WINDOWPOS_CENTERED = SDL_WINDOWPOS_CENTERED;

/// Loads SDL2. 0 when it is loaded, else -1 with why in `message` (`size` bytes).
int vfx_load_sdl(char *message, size_t size);

#endif
