#ifndef VIDFX_MEND_H
#define VIDFX_MEND_H

/// Keeps a program's timestamps moving forward where its container lets them jump (an
/// HLS playlist whose segments each restart at 0, a broadcast splice): FFmpeg's
/// AVFMT_TS_DISCONT formats. A packet whose dts goes back more than 100 ms, or forward
/// more than 10 s, from its own stream's last one starts a jump. One offset moves every
/// stream across it, chosen so that the master stream (the video) continues exactly
/// where it left off: pictures stay continuous, and the audio keeps its own offset to
/// them, as in the source.
///
/// Deterministic: two demuxers of the same input that keep the same streams and feed
/// every packet they read, in order, mend identically, so the video reader and the
/// audio reader agree without talking to each other.
typedef struct vfx_mender vfx_mender;

/// A mender for `format` (an AVFormatContext *) when its container lets timestamps
/// jump, else NULL (also when out of memory). The video stream (vfx_best_video_stream)
/// decides each jump's offset. `*video` and `*audio` receive the two streams every
/// reader of the input must keep (-1 for none), so that all of them mend alike.
vfx_mender *vfx_mender_for(void *format, int *video, int *audio);

/// Frees it; NULL is ignored.
void vfx_mender_free(vfx_mender *mender);

/// Moves `packet`'s (an AVPacket *) pts and dts onto the mended timeline; `tb_num /
/// tb_den` is its stream's time base. Returns 1 when this packet started a jump.
int vfx_mender_mend(vfx_mender *mender, void *packet, int tb_num, int tb_den);

/// Forgets the timeline (after a seek, what follows is no continuation).
void vfx_mender_reset(vfx_mender *mender);

/// How many jumps have been mended.
int vfx_mender_jumps(const vfx_mender *mender);

/// The input's video stream as vidfx reads it (an AVFormatContext *): FFmpeg's best
/// video stream, or when that is cover art (an attached picture), the first real video
/// stream; -1 when there is none. The video reader and the audio reader both use it,
/// so that they keep the same streams (see vfx_mender).
int vfx_best_video_stream(void *format);

#endif
