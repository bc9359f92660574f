#include "vidfx_tone_table.h"
#include "vidfx_on_demand.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zimg.h>

// The curve is compared with libavfilter's build, which multiplies and adds separately.
#pragma STDC FP_CONTRACT OFF

// The zimg functions vidfx calls (see vidfx_on_demand.h for the form).
#define ZIMG_FUNCTIONS(X, V) \
    V(zimg_image_format_default, (zimg_image_format *ptr, unsigned version), (ptr, version)) \
    V(zimg_graph_builder_params_default, (zimg_graph_builder_params *ptr, unsigned version), (ptr, version)) \
    X(zimg_filter_graph *, zimg_filter_graph_build, \
      (const zimg_image_format *src_format, const zimg_image_format *dst_format, const zimg_graph_builder_params *params), \
      (src_format, dst_format, params)) \
    X(zimg_error_code_e, zimg_filter_graph_get_tmp_size, (const zimg_filter_graph *ptr, size_t *out), (ptr, out)) \
    X(zimg_error_code_e, zimg_filter_graph_process, \
      (const zimg_filter_graph *ptr, const zimg_image_buffer_const *src, const zimg_image_buffer *dst, void *tmp, \
       zimg_filter_graph_callback unpack_cb, void *unpack_user, zimg_filter_graph_callback pack_cb, void *pack_user), \
      (ptr, src, dst, tmp, unpack_cb, unpack_user, pack_cb, pack_user)) \
    V(zimg_filter_graph_free, (zimg_filter_graph *ptr), (ptr)) \
    X(zimg_error_code_e, zimg_get_last_error, (char *err_msg, size_t n), (err_msg, n))

static struct { ZIMG_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } zimg;
static const char *const zimg_names[] = { ZIMG_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library zimg_library = VFX_LIBRARY_INIT("libzimg.so.2", zimg_names, zimg);

const char *vfx_load_zimg(void) { return vfx_library_load(&zimg_library); }

#define FORWARD(type, name, params, args) type name params { vfx_library_need(&zimg_library); return zimg.name args; }
#define VOID_FORWARD(name, params, args) void name params { vfx_library_need(&zimg_library); zimg.name args; }
ZIMG_FUNCTIONS(FORWARD, VOID_FORWARD)

/// Three float planes (R, G, B) of one picture, rows 64-byte aligned as zimg wants.
typedef struct {
    float *plane[3];
    ptrdiff_t stride;  // bytes
} planes3;

static int planes_alloc(planes3 *p, int width, int height) {
    p->stride = ((ptrdiff_t)width * 4 + 63) & ~(ptrdiff_t)63;
    for (int i = 0; i < 3; i++) {
        p->plane[i] = aligned_alloc(64, (size_t)p->stride * (size_t)height);
        if (!p->plane[i]) return -1;
    }
    return 0;
}

static void planes_free(planes3 *p) {
    for (int i = 0; i < 3; i++) free(p->plane[i]);
}

static float *row_of(const planes3 *p, int c, int y) { return (float *)((char *)p->plane[c] + y * p->stride); }

/// A full-range float RGB picture with these tags, as libavfilter's zscale describes one.
static void describe(zimg_image_format *f, int width, int height, int transfer, int primaries) {
    zimg_image_format_default(f, ZIMG_API_VERSION);
    f->width = (unsigned)width;
    f->height = (unsigned)height;
    f->pixel_type = ZIMG_PIXEL_FLOAT;
    f->subsample_w = 0;
    f->subsample_h = 0;
    f->color_family = ZIMG_COLOR_RGB;
    f->matrix_coefficients = ZIMG_MATRIX_RGB;
    f->transfer_characteristics = (zimg_transfer_characteristics_e)transfer;
    f->color_primaries = (zimg_color_primaries_e)primaries;
    f->depth = 32;
    f->pixel_range = ZIMG_RANGE_FULL;
    f->chroma_location = ZIMG_CHROMA_LEFT;
}

static int failed(char *reason, size_t size, const char *what) {
    char message[320] = "";
    zimg_get_last_error(message, sizeof message);
    snprintf(reason, size, "%s: %s", what, message[0] ? message : "zimg gave no reason");
    return -1;
}

/// One zscale step: `from` → `to` with the tags given, zscale's defaults otherwise
/// (no dither, bilinear resampling, approximate gamma allowed).
static int convert(const planes3 *from, planes3 *to, int width, int height, int transfer_in, int transfer_out,
                   int primaries_in, int primaries_out, double nominal_peak, char *reason, size_t size) {
    zimg_image_format src, dst;
    describe(&src, width, height, transfer_in, primaries_in);
    describe(&dst, width, height, transfer_out, primaries_out);
    zimg_graph_builder_params params;
    zimg_graph_builder_params_default(&params, ZIMG_API_VERSION);
    params.dither_type = ZIMG_DITHER_NONE;
    params.cpu_type = ZIMG_CPU_AUTO_64B;
    params.resample_filter = ZIMG_RESIZE_BILINEAR;
    params.resample_filter_uv = ZIMG_RESIZE_BILINEAR;
    params.nominal_peak_luminance = nominal_peak;
    params.allow_approximate_gamma = 1;
    zimg_filter_graph *graph = zimg_filter_graph_build(&src, &dst, &params);
    if (!graph) return failed(reason, size, "cannot build the conversion");
    size_t tmp_size = 0;
    if (zimg_filter_graph_get_tmp_size(graph, &tmp_size)) {
        zimg_filter_graph_free(graph);
        return failed(reason, size, "cannot size the conversion");
    }
    void *tmp = aligned_alloc(64, (tmp_size + 63) & ~(size_t)63);
    if (!tmp) {
        zimg_filter_graph_free(graph);
        snprintf(reason, size, "out of memory");
        return -1;
    }
    zimg_image_buffer_const in;
    zimg_image_buffer out;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in.version = ZIMG_API_VERSION;
    out.version = ZIMG_API_VERSION;
    for (int c = 0; c < 3; c++) {
        in.plane[c].data = from->plane[c];
        in.plane[c].stride = from->stride;
        in.plane[c].mask = ZIMG_BUFFER_MAX;
        out.plane[c].data = to->plane[c];
        out.plane[c].stride = to->stride;
        out.plane[c].mask = ZIMG_BUFFER_MAX;
    }
    int status = zimg_filter_graph_process(graph, &in, &out, tmp, NULL, NULL, NULL, NULL) ? failed(reason, size, "cannot convert") : 0;
    free(tmp);
    zimg_filter_graph_free(graph);
    return status;
}

// The curves, with the `tonemap` filter's types: the peak and the parameter are doubles,
// the signal a float; mixed expressions are evaluated as C evaluates them there.
static float hable_curve(float x) {
    const float a = 0.15f, b = 0.50f, c = 0.10f, d = 0.20f, e = 0.02f, f = 0.30f;
    return (x * (x * a + b * c) + d * e) / (x * (x * a + b) + d * f) - e / f;
}

static float mobius_curve(float x, float knee, double peak) {
    if (x <= knee) return x;
    const float a = -knee * knee * (peak - 1.0f) / (knee * knee - 2.0f * knee + peak);
    const float b = (knee * knee - 2.0f * knee * peak + peak) / fmax(peak - 1.0f, 1e-6);
    return (b * b + 2.0f * b * knee + knee * knee) / (b - a) * (x + a) / (x + b);
}

/// The curve's value for the brightest component `sig` (already at least 1e-6).
static float tone(int curve, float sig, double peak) {
    switch (curve) {
    case VFX_TONE_CLIP: {
        const float v = (float)(sig * 1.0);  // the filter's default parameter for clip is 1
        return v < 0 ? 0 : (v > 1.0f ? 1.0f : v);
    }
    case VFX_TONE_REINHARD: {
        const double param = 1.0;  // no parameter given: 1
        return (float)(sig / (sig + param) * (peak + param) / peak);
    }
    case VFX_TONE_HABLE:
        return hable_curve(sig) / hable_curve((float)peak);
    case VFX_TONE_MOBIUS:
        return mobius_curve(sig, 0.3f, peak);
    default:
        return sig;
    }
}

int vfx_tone_table(float *table, int points, double low, double step, int transfer, int primaries,
                   double reference_white, int curve, double peak, char *reason, size_t reason_size) {
    const char *why = vfx_load_zimg();
    if (why) {
        snprintf(reason, reason_size, "%s", why);
        return -1;
    }
    const int n = points, width = n * n, height = n;
    planes3 a = { { NULL, NULL, NULL }, 0 }, b = { { NULL, NULL, NULL }, 0 };
    int status = -1;
    if (planes_alloc(&a, width, height) || planes_alloc(&b, width, height)) {
        snprintf(reason, reason_size, "out of memory");
        goto done;
    }
    // Row: the R' index; across: G' index · n + B' index.
    for (int r = 0; r < n; r++) {
        float *pr = row_of(&a, 0, r), *pg = row_of(&a, 1, r), *pb = row_of(&a, 2, r);
        for (int x = 0; x < width; x++) {
            pr[x] = (float)(low + r * step);
            pg[x] = (float)(low + (x / n) * step);
            pb[x] = (float)(low + (x % n) * step);
        }
    }
    // zscale=t=linear:npl=W, then zscale=p=bt709 (a step of its own, as in the chain).
    if (convert(&a, &b, width, height, transfer, ZIMG_TRANSFER_LINEAR, primaries, primaries, reference_white, reason, reason_size))
        goto done;
    if (convert(&b, &a, width, height, ZIMG_TRANSFER_LINEAR, ZIMG_TRANSFER_LINEAR, primaries, ZIMG_PRIMARIES_BT709, NAN, reason,
                reason_size))
        goto done;
    for (int r = 0; r < n; r++) {
        const float *pr = row_of(&a, 0, r), *pg = row_of(&a, 1, r), *pb = row_of(&a, 2, r);
        for (int x = 0; x < width; x++) {
            float red = pr[x], green = pg[x], blue = pb[x];
            // The brightest component, scaled by the curve: the hue stays.
            const float top = red > green ? red : green;
            const float brightest = top > blue ? top : blue;
            const float sig = (float)(brightest > 1e-6 ? brightest : 1e-6);
            const float scaled = tone(curve, sig, peak);
            red *= scaled / sig;
            green *= scaled / sig;
            blue *= scaled / sig;
            float *entry = table + ((size_t)r * width + x) * 4;
            entry[0] = isfinite(red) ? red : 0;
            entry[1] = isfinite(green) ? green : 0;
            entry[2] = isfinite(blue) ? blue : 0;
            entry[3] = 0;
        }
    }
    status = 0;
done:
    planes_free(&a);
    planes_free(&b);
    return status;
}
