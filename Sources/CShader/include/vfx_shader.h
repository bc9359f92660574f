// Users' shaders as Vulkan compute: the Vulkan loader is loaded on demand (COnDemand), so
// vidfx runs without it and says what to install. SPIR-V comes from glslang (Shaders).
// One context (instance, device, queue) per process, one program per shader, and buffers
// per frame size kept mapped: no allocation per frame.
#ifndef VIDFX_SHADER_H
#define VIDFX_SHADER_H

#include <stddef.h>
#include <stdint.h>

typedef struct vfx_shader_program vfx_shader_program;

/// NULL when a Vulkan device can be used; else why not (kept for good).
/// `device`: 0 any (a GPU first, else the CPU's lavapipe), 1 the CPU only, 2 a GPU only.
const char *vfx_shader_open(int device);

/// The device a later `vfx_shader_open(0)` takes (0 any, 1 the CPU, 2 a GPU); only
/// before the first open, which chooses once for the process.
void vfx_shader_prefer(int device);

/// The name of the device in use (after a successful open).
const char *vfx_shader_device_name(void);

/// A compute program of `words` with four bindings: 0 the source pixels, 1 the
/// destination pixels (storage buffers of uint), 2 a uniform block of `uniform_size` bytes,
/// 3 the pixels of the shader's images, one after another (a storage buffer of uint).
/// NULL with `error` filled on failure.
vfx_shader_program *vfx_shader_program_make(const uint32_t *words, size_t count, size_t uniform_size, int sampled, char *error, size_t error_size);

/// Runs `program` over a `width`×`height` frame of 32-bit pixels: `source` in, `destination`
/// out (may be the same memory; each `…_stride` pixels a row), with `uniforms` (uniform_size bytes) and `image_words`
/// words of images, copied only when `images_generation` differs from the last run's
/// (0 never matches a copy: pass an id that names these images). Work groups of
/// invocations taking four pixels each, over the frame as one run of pixels. Waits at most
/// `timeout_ms`: 0 done; 1 the limit passed (the run is halted through binding 5, the program's halt word, which
/// the shader's loops read; later runs work unless it did not end within as long again, at least 5 s); 2 interrupted
/// (``vfx_shader_interrupt``); -1 another failure, with `error` filled.
int vfx_shader_program_run(vfx_shader_program *program, const uint32_t *source, size_t source_stride, uint32_t *destination,
                           size_t destination_stride, int width, int height, const void *uniforms, const uint32_t *images, size_t image_words, uint64_t images_generation,
                           uint64_t timeout_ms, char *error, size_t error_size);

/// The most programs one ``vfx_shader_chain_run`` takes.
#define VFX_SHADER_MOST_CHAINED 16

/// Runs `count` programs one after another over a frame in one submission: the frame is
/// copied to the device once, each program reads where the one before wrote (on the
/// device), and the last one's result is copied back once. Each program has its own
/// `uniforms[i]` and images (`images[i]`, `image_words[i]`, `images_generation[i]`, as
/// ``vfx_shader_program_run`` takes them); a program may be in the run once only. The
/// wait is at most `timeout_ms` for each program. Where `host_after[i]` is non-zero (and
/// `between` is given), `between(i, pixels, context)` is called once program i is done,
/// with its result in place on the device's memory (packed rows): what it writes there is
/// what program i + 1 reads, so work of the host's between two programs costs no copy.
/// Returns as ``vfx_shader_program_run``; `failed` is the index of the program a failure
/// belongs to (0 when it is not one program's).
int vfx_shader_chain_run(vfx_shader_program *const *programs, int count, const uint32_t *source, size_t source_stride,
                         uint32_t *destination, size_t destination_stride, int width, int height, const void *const *uniforms,
                         const uint32_t *const *images, const size_t *image_words, const uint64_t *images_generation,
                         const unsigned char *host_after, void (*between)(int after, uint32_t *pixels, void *context), void *context,
                         uint64_t timeout_ms, int *failed, char *error, size_t error_size);

/// Ends every wait for a shader within 100 ms, and makes later runs fail: the process is
/// stopping (Ctrl-C).
void vfx_shader_interrupt(void);

/// Frees the program and its buffers (kept when a run may still be on the device).
void vfx_shader_program_free(vfx_shader_program *program);

#endif
