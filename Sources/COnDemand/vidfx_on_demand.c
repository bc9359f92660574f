#include "vidfx_on_demand.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int open_library(vfx_library *library) {
    // RTLD_LOCAL: the library's symbols stay out of the global scope, where the
    // forwarding functions already answer to the same names.
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(library->reason, sizeof library->reason, "cannot load %s (%s)", library->soname, why ? why : "not found");
        return -1;
    }
    for (size_t i = 0; i < library->count; i++) {
        void *symbol = dlsym(handle, library->names[i]);
        if (!symbol) {
            snprintf(library->reason, sizeof library->reason, "cannot load %s (it has no %s)", library->soname, library->names[i]);
            return -1;
        }
        library->slots[i] = symbol;
    }
    return 0;
}

const char *vfx_library_load(vfx_library *library) {
    // Once loaded, the slots are only read: the acquire pairs with the release below.
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&library->lock);
        state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
        if (state == 0) {
            state = open_library(library) == 0 ? 1 : -1;
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&library->lock);
    }
    return state == 1 ? NULL : library->reason;
}

void vfx_library_need(vfx_library *library) {
    const char *reason = vfx_library_load(library);
    if (!reason) return;
    fprintf(stderr, "vidfx: %s\n", reason);
    exit(70);  // EX_SOFTWARE
}
