// No pkgConfig for SDL2: its cflags carry -D_REENTRANT, which SwiftPM refuses.
#include <SDL2/SDL.h>

// Function-like macros Swift cannot import.
static const int VFX_SDL_WINDOWPOS_CENTERED = SDL_WINDOWPOS_CENTERED;
