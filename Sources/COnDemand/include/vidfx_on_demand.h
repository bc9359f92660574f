// Shared libraries that vidfx loads when a job first needs them instead of at start:
// FFmpeg's filter and device libraries, zimg, SDL2, zbar. Most pull in libraries of their own
// (libavfilter alone: speech voices, OpenGL, Vulkan, TLS...); linked, they cost every run
// about 18 MiB of resident memory and part of its start-up, though only HDR, interlaced
// and captured input, the preview window and code detection use them (zimg: the HDR table).
//
// A target that loads a library defines, for each function vidfx calls, a function of
// the same name and signature that loads the library (vfx_library_need) and calls the
// real one through a pointer. The linker takes those definitions, so the binary has no
// NEEDED entry for the library, and the compiler checks each against the library's own
// declaration. Code that can report an error calls vfx_library_load first.
#ifndef VIDFX_ON_DEMAND_H
#define VIDFX_ON_DEMAND_H

#include <pthread.h>
#include <stddef.h>

/// One library loaded on demand: its file name, the functions to find in it and where
/// their addresses go. Define one per library, statically, with VFX_LIBRARY_INIT.
typedef struct {
    const char *soname;
    const char *const *names;
    void **slots;
    size_t count;
    int state;  // 0: not tried; 1: loaded; -1: failed (atomic loads and stores)
    pthread_mutex_t lock;
    char reason[480];
} vfx_library;

#define VFX_LIBRARY_INIT(soname, names, slots) \
    { (soname), (names), (void **)&(slots), sizeof(names) / sizeof(*(names)), 0, PTHREAD_MUTEX_INITIALIZER, "" }

/// Loads `library` once (later calls report the first outcome): NULL when it is loaded,
/// else why not, naming the file (kept by `library`, valid for good).
const char *vfx_library_load(vfx_library *library);

/// Loads `library`, or ends the process with the reason on standard error (status 70):
/// for the forwarding functions, which have no way to return an error.
void vfx_library_need(vfx_library *library);

// Helpers for a target's forwarding functions: a list macro LIST(X, V) names each
// function as X(return type, name, (parameters), (arguments)), or V(name, (parameters),
// (arguments)) when it returns nothing.
#define VFX_ON_DEMAND_SLOT(type, name, params, args) type (*name) params;
#define VFX_ON_DEMAND_VOID_SLOT(name, params, args) void (*name) params;
#define VFX_ON_DEMAND_NAME(type, name, params, args) #name,
#define VFX_ON_DEMAND_VOID_NAME(name, params, args) #name,

#endif
