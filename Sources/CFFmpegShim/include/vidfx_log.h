#ifndef VIDFX_LOG_H
#define VIDFX_LOG_H

/// Receives one formatted FFmpeg log line. Called from FFmpeg's threads.
typedef void (*vfx_log_sink)(int level, const char *line);

/// Routes av_log output at or below `max_level` to `sink` (NULL silences FFmpeg).
/// av_log_set_callback takes a va_list, which Swift cannot receive, hence this C file.
void vfx_install_log_sink(vfx_log_sink sink, int max_level);

/// How many error lines the network protocols (tcp, tls, udp, unix) have logged on the
/// calling thread so far. Compare before and after an operation.
int vfx_network_errors(void);

/// The last of those lines on the calling thread (trimmed), or NULL if there was none.
/// Valid until the thread's next FFmpeg log call.
const char *vfx_last_network_error(void);

/// Makes vfx_last_network_error return NULL until the next such line on this thread.
void vfx_forget_network_error(void);

#endif
