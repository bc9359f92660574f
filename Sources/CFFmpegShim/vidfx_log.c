#include "vidfx_log.h"
#include <libavutil/log.h>
#include <stdatomic.h>
#include <stdarg.h>

static _Atomic(vfx_log_sink) current_sink;
static atomic_int current_max = AV_LOG_WARNING;

static void forward(void *avcl, int level, const char *fmt, va_list vl) {
    if (level > atomic_load(&current_max)) return;
    vfx_log_sink sink = atomic_load(&current_sink);
    if (!sink) return;
    char line[1024];
    int print_prefix = 0;  // no "[mov,mp4 @ 0x…]" context prefix: messages name the input themselves
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
    sink(level, line);
}

void vfx_install_log_sink(vfx_log_sink sink, int max_level) {
    atomic_store(&current_max, max_level);
    atomic_store(&current_sink, sink);
    av_log_set_callback(forward);
}
