#include "vidfx_log.h"
#include <libavutil/log.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <string.h>

static _Atomic(vfx_log_sink) current_sink;
static atomic_int current_max = AV_LOG_WARNING;

// Error lines from the network protocols (resolver, TCP, TLS), counted per thread: the
// thread that opens an input is the one FFmpeg logs on, and its interrupt callback can
// then stop the retries that would otherwise hide "connection refused" until a timeout.
static _Thread_local int network_errors;
static _Thread_local char last_network_error[512];
static _Thread_local int has_last_network_error;

static int is_network_context(void *avcl) {
    if (!avcl) return 0;
    const AVClass *cls = *(const AVClass **)avcl;
    if (!cls) return 0;
    // Protocols log through their URLContext, whose item name is the protocol's.
    const char *n = cls->item_name ? cls->item_name(avcl) : cls->class_name;
    if (!n) return 0;
    return !strcmp(n, "tcp") || !strcmp(n, "tls") || !strcmp(n, "udp") || !strcmp(n, "unix");
}

int vfx_network_errors(void) { return network_errors; }

const char *vfx_last_network_error(void) { return has_last_network_error ? last_network_error : NULL; }

void vfx_forget_network_error(void) { has_last_network_error = 0; }

// The HLS demuxer's word on each segment it asks for and each it gives up on, and HTTP's
// on why: below the chosen level (verbose, warning), yet the only place that says which
// URI a playlist lost and why. Recognised by their format strings, so other lines at
// those levels cost nothing.
static int is_segment_line(const char *fmt) {
    return fmt && (!strncmp(fmt, "HLS request for url '", 21) || !strncmp(fmt, "Failed to open segment ", 23)
                   || !strncmp(fmt, "HTTP error ", 11));
}

static void forward(void *avcl, int level, const char *fmt, va_list vl) {
    int network = level <= AV_LOG_ERROR && is_network_context(avcl);
    vfx_log_sink sink = atomic_load(&current_sink);
    int wanted = sink && (level <= atomic_load(&current_max) || (level <= AV_LOG_VERBOSE && is_segment_line(fmt)));
    if (!network && !wanted) return;
    char line[1024];
    int print_prefix = 0;  // no "[mov,mp4 @ 0x…]" context prefix: messages name the input themselves
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
    if (network) {
        network_errors++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) n--;
        if (n >= sizeof last_network_error) n = sizeof last_network_error - 1;
        memcpy(last_network_error, line, n);
        last_network_error[n] = 0;
        has_last_network_error = 1;
    }
    if (wanted) sink(level, line);
}

void vfx_install_log_sink(vfx_log_sink sink, int max_level) {
    atomic_store(&current_max, max_level);
    atomic_store(&current_sink, sink);
    av_log_set_callback(forward);
}
