#include "shim.h"
#include "vidfx_on_demand.h"

// The zbar functions vidfx calls (see vidfx_on_demand.h for the form).
#define ZBAR_FUNCTIONS(X, V) \
    X(zbar_image_scanner_t *, zbar_image_scanner_create, (void), ()) \
    V(zbar_image_scanner_destroy, (zbar_image_scanner_t *scanner), (scanner)) \
    X(int, zbar_image_scanner_set_config, (zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value), \
      (scanner, symbology, config, value)) \
    X(int, zbar_scan_image, (zbar_image_scanner_t *scanner, zbar_image_t *image), (scanner, image)) \
    X(zbar_image_t *, zbar_image_create, (void), ()) \
    V(zbar_image_destroy, (zbar_image_t *image), (image)) \
    V(zbar_image_set_format, (zbar_image_t *image, unsigned long format), (image, format)) \
    V(zbar_image_set_size, (zbar_image_t *image, unsigned width, unsigned height), (image, width, height)) \
    V(zbar_image_set_data, (zbar_image_t *image, const void *data, unsigned long length, zbar_image_cleanup_handler_t *cleanup), \
      (image, data, length, cleanup)) \
    X(const zbar_symbol_t *, zbar_image_first_symbol, (const zbar_image_t *image), (image)) \
    X(const zbar_symbol_t *, zbar_symbol_next, (const zbar_symbol_t *symbol), (symbol)) \
    X(zbar_symbol_type_t, zbar_symbol_get_type, (const zbar_symbol_t *symbol), (symbol)) \
    X(const char *, zbar_symbol_get_data, (const zbar_symbol_t *symbol), (symbol)) \
    X(unsigned int, zbar_symbol_get_data_length, (const zbar_symbol_t *symbol), (symbol)) \
    X(unsigned, zbar_symbol_get_loc_size, (const zbar_symbol_t *symbol), (symbol)) \
    X(int, zbar_symbol_get_loc_x, (const zbar_symbol_t *symbol, unsigned index), (symbol, index)) \
    X(int, zbar_symbol_get_loc_y, (const zbar_symbol_t *symbol, unsigned index), (symbol, index)) \
    X(zbar_orientation_t, zbar_symbol_get_orientation, (const zbar_symbol_t *symbol), (symbol))

static struct { ZBAR_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } zbar;
static const char *const zbar_names[] = { ZBAR_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library zbar_library = VFX_LIBRARY_INIT("libzbar.so.0", zbar_names, zbar);

const char *vfx_load_zbar(void) { return vfx_library_load(&zbar_library); }

#define FORWARD(type, name, params, args) type name params { vfx_library_need(&zbar_library); return zbar.name args; }
#define VOID_FORWARD(name, params, args) void name params { vfx_library_need(&zbar_library); zbar.name args; }
ZBAR_FUNCTIONS(FORWARD, VOID_FORWARD)
