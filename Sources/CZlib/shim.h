#include <zlib.h>

// deflateInit2 is a macro; Swift sees only deflateInit2_, which wants these.
static inline int vfx_deflate_init(z_stream *s, int level) {
    return deflateInit2(s, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY);
}
