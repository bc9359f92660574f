#include "vidfx_filters.h"
#include "vidfx_on_demand.h"
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavdevice/avdevice.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

// The functions of each library vidfx calls (see vidfx_on_demand.h for the form).
#define AVFILTER_FUNCTIONS(X, V) \
    X(AVFilterGraph *, avfilter_graph_alloc, (void), ()) \
    V(avfilter_graph_free, (AVFilterGraph **graph), (graph)) \
    X(int, avfilter_graph_config, (AVFilterGraph *graph, void *log), (graph, log)) \
    X(int, avfilter_graph_create_filter, (AVFilterContext **context, const AVFilter *filter, const char *name, \
                                          const char *args, void *opaque, AVFilterGraph *graph), \
      (context, filter, name, args, opaque, graph)) \
    X(int, avfilter_graph_parse_ptr, (AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs, \
                                      AVFilterInOut **outputs, void *log), (graph, filters, inputs, outputs, log)) \
    X(const AVFilter *, avfilter_get_by_name, (const char *name), (name)) \
    X(AVFilterInOut *, avfilter_inout_alloc, (void), ()) \
    V(avfilter_inout_free, (AVFilterInOut **inout), (inout)) \
    X(int, av_buffersink_get_frame, (AVFilterContext *context, AVFrame *frame), (context, frame)) \
    X(int, av_buffersrc_add_frame_flags, (AVFilterContext *context, AVFrame *frame, int flags), (context, frame, flags))

#define AVDEVICE_FUNCTIONS(X, V) \
    V(avdevice_register_all, (void), ())

static struct { AVFILTER_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } avfilter;
static const char *const avfilter_names[] = { AVFILTER_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library avfilter_library =
    VFX_LIBRARY_INIT("libavfilter.so." STRINGIFY(LIBAVFILTER_VERSION_MAJOR), avfilter_names, avfilter);

static struct { AVDEVICE_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } avdevice;
static const char *const avdevice_names[] = { AVDEVICE_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library avdevice_library =
    VFX_LIBRARY_INIT("libavdevice.so." STRINGIFY(LIBAVDEVICE_VERSION_MAJOR), avdevice_names, avdevice);

const char *vfx_load_avfilter(void) { return vfx_library_load(&avfilter_library); }
const char *vfx_load_avdevice(void) { return vfx_library_load(&avdevice_library); }

#define AVFILTER_FORWARD(type, name, params, args) \
    type name params { vfx_library_need(&avfilter_library); return avfilter.name args; }
#define AVFILTER_VOID_FORWARD(name, params, args) \
    void name params { vfx_library_need(&avfilter_library); avfilter.name args; }
#define AVDEVICE_FORWARD(type, name, params, args) \
    type name params { vfx_library_need(&avdevice_library); return avdevice.name args; }
#define AVDEVICE_VOID_FORWARD(name, params, args) \
    void name params { vfx_library_need(&avdevice_library); avdevice.name args; }
AVFILTER_FUNCTIONS(AVFILTER_FORWARD, AVFILTER_VOID_FORWARD)
AVDEVICE_FUNCTIONS(AVDEVICE_FORWARD, AVDEVICE_VOID_FORWARD)
