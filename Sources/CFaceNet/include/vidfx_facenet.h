#ifndef VIDFX_FACENET_H
#define VIDFX_FACENET_H

#ifdef __cplusplus
extern "C" {
#endif

/// A face-detection network (an ONNX model, run by OpenCV's dnn module): the C face of
/// a C++ library, so that Swift needs no C++ interop. One network per thread.
typedef struct vfx_facenet vfx_facenet;

/// Loads the model at `path`. NULL on failure, with a one-line reason in `error`.
vfx_facenet *vfx_facenet_open(const char *path, char *error, int error_size);

/// Frees a network. NULL is ignored.
void vfx_facenet_free(vfx_facenet *net);

/// Runs the network on one picture given as a 1×3×height×width blob of floats (RGB
/// planes, 0…255; width and height multiples of 32). Its outputs, each a
/// (height/4)×(width/4) map per channel, are copied into `out` back to back in the
/// network's output order: `channels` of them in all ((height/4)·(width/4)·channels
/// floats). Returns 0, or -1 with a one-line reason in `error` (a model whose outputs
/// are not that shape is an error too).
int vfx_facenet_run(vfx_facenet *net, const float *blob, int width, int height, float *out, int channels,
                    char *error, int error_size);

/// How many threads OpenCV may use for one run (0: its default).
void vfx_facenet_threads(int threads);

#ifdef __cplusplus
}
#endif

#endif
