#include "shim.h"
#include "vidfx_on_demand.h"

// The SDL functions vidfx and its tests call (see vidfx_on_demand.h for the form).
#define SDL_FUNCTIONS(X, V) \
    X(int, SDL_Init, (Uint32 flags), (flags)) \
    V(SDL_Quit, (void), ()) \
    X(const char *, SDL_GetError, (void), ()) \
    X(SDL_bool, SDL_SetHint, (const char *name, const char *value), (name, value)) \
    X(const char *, SDL_GetCurrentVideoDriver, (void), ()) \
    X(SDL_Window *, SDL_CreateWindow, (const char *title, int x, int y, int w, int h, Uint32 flags), (title, x, y, w, h, flags)) \
    V(SDL_DestroyWindow, (SDL_Window *window), (window)) \
    X(Uint32, SDL_GetWindowFlags, (SDL_Window *window), (window)) \
    X(SDL_Renderer *, SDL_CreateRenderer, (SDL_Window *window, int index, Uint32 flags), (window, index, flags)) \
    V(SDL_DestroyRenderer, (SDL_Renderer *renderer), (renderer)) \
    X(int, SDL_GetRendererOutputSize, (SDL_Renderer *renderer, int *w, int *h), (renderer, w, h)) \
    X(int, SDL_SetRenderDrawColor, (SDL_Renderer *renderer, Uint8 r, Uint8 g, Uint8 b, Uint8 a), (renderer, r, g, b, a)) \
    X(int, SDL_RenderClear, (SDL_Renderer *renderer), (renderer)) \
    X(int, SDL_RenderCopy, (SDL_Renderer *renderer, SDL_Texture *texture, const SDL_Rect *from, const SDL_Rect *to), \
      (renderer, texture, from, to)) \
    V(SDL_RenderPresent, (SDL_Renderer *renderer), (renderer)) \
    X(int, SDL_RenderReadPixels, (SDL_Renderer *renderer, const SDL_Rect *rect, Uint32 format, void *pixels, int pitch), \
      (renderer, rect, format, pixels, pitch)) \
    X(SDL_Texture *, SDL_CreateTexture, (SDL_Renderer *renderer, Uint32 format, int access, int w, int h), \
      (renderer, format, access, w, h)) \
    V(SDL_DestroyTexture, (SDL_Texture *texture), (texture)) \
    X(int, SDL_LockTexture, (SDL_Texture *texture, const SDL_Rect *rect, void **pixels, int *pitch), (texture, rect, pixels, pitch)) \
    V(SDL_UnlockTexture, (SDL_Texture *texture), (texture)) \
    X(int, SDL_PollEvent, (SDL_Event *event), (event)) \
    X(int, SDL_PushEvent, (SDL_Event *event), (event))

static struct { SDL_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } sdl;
static const char *const sdl_names[] = { SDL_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library sdl_library = VFX_LIBRARY_INIT("libSDL2-2.0.so.0", sdl_names, sdl);

const char *vfx_load_sdl(void) { return vfx_library_load(&sdl_library); }

#define FORWARD(type, name, params, args) type SDLCALL name params { vfx_library_need(&sdl_library); return sdl.name args; }
#define VOID_FORWARD(name, params, args) void SDLCALL name params { vfx_library_need(&sdl_library); sdl.name args; }
SDL_FUNCTIONS(FORWARD, VOID_FORWARD)
