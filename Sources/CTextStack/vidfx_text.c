#include "vidfx_text.h"
#include "vidfx_on_demand.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_GLYPH_H
#include FT_STROKER_H
#include <harfbuzz/hb.h>
#include <harfbuzz/hb-ft.h>
#include <fontconfig/fontconfig.h>
#include <fribidi/fribidi.h>

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The functions vidfx calls in each library (see vidfx_on_demand.h for the form).
#define FREETYPE_FUNCTIONS(X, V) \
    X(FT_Error, FT_Init_FreeType, (FT_Library *library), (library)) \
    X(FT_Error, FT_Done_FreeType, (FT_Library library), (library)) \
    X(FT_Error, FT_New_Face, (FT_Library library, const char *path, FT_Long index, FT_Face *face), (library, path, index, face)) \
    X(FT_Error, FT_Done_Face, (FT_Face face), (face)) \
    X(FT_Error, FT_Set_Char_Size, (FT_Face face, FT_F26Dot6 width, FT_F26Dot6 height, FT_UInt hres, FT_UInt vres), \
      (face, width, height, hres, vres)) \
    X(FT_UInt, FT_Get_Char_Index, (FT_Face face, FT_ULong code), (face, code)) \
    X(FT_Error, FT_Load_Glyph, (FT_Face face, FT_UInt glyph, FT_Int32 flags), (face, glyph, flags)) \
    X(FT_Error, FT_Get_Glyph, (FT_GlyphSlot slot, FT_Glyph *glyph), (slot, glyph)) \
    V(FT_Done_Glyph, (FT_Glyph glyph), (glyph)) \
    X(FT_Error, FT_Glyph_Stroke, (FT_Glyph *glyph, FT_Stroker stroker, FT_Bool destroy), (glyph, stroker, destroy)) \
    X(FT_Error, FT_Glyph_To_Bitmap, (FT_Glyph *glyph, FT_Render_Mode mode, const FT_Vector *origin, FT_Bool destroy), \
      (glyph, mode, origin, destroy)) \
    X(FT_Error, FT_Stroker_New, (FT_Library library, FT_Stroker *stroker), (library, stroker)) \
    V(FT_Stroker_Set, (FT_Stroker stroker, FT_Fixed radius, FT_Stroker_LineCap cap, FT_Stroker_LineJoin join, FT_Fixed miter), \
      (stroker, radius, cap, join, miter)) \
    V(FT_Stroker_Done, (FT_Stroker stroker), (stroker))

#define HARFBUZZ_FUNCTIONS(X, V) \
    X(hb_font_t *, hb_ft_font_create_referenced, (FT_Face face), (face)) \
    V(hb_font_destroy, (hb_font_t *font), (font)) \
    X(hb_buffer_t *, hb_buffer_create, (void), ()) \
    V(hb_buffer_destroy, (hb_buffer_t *buffer), (buffer)) \
    V(hb_buffer_clear_contents, (hb_buffer_t *buffer), (buffer)) \
    V(hb_buffer_add_utf8, (hb_buffer_t *buffer, const char *text, int length, unsigned int offset, int item_length), \
      (buffer, text, length, offset, item_length)) \
    V(hb_buffer_guess_segment_properties, (hb_buffer_t *buffer), (buffer)) \
    V(hb_buffer_set_direction, (hb_buffer_t *buffer, hb_direction_t direction), (buffer, direction)) \
    V(hb_shape, (hb_font_t *font, hb_buffer_t *buffer, const hb_feature_t *features, unsigned int count), \
      (font, buffer, features, count)) \
    X(hb_glyph_info_t *, hb_buffer_get_glyph_infos, (hb_buffer_t *buffer, unsigned int *length), (buffer, length)) \
    X(hb_glyph_position_t *, hb_buffer_get_glyph_positions, (hb_buffer_t *buffer, unsigned int *length), (buffer, length))

#define FONTCONFIG_FUNCTIONS(X, V) \
    X(FcBool, FcInit, (void), ()) \
    X(FcPattern *, FcNameParse, (const FcChar8 *name), (name)) \
    X(FcBool, FcConfigSubstitute, (FcConfig *config, FcPattern *pattern, FcMatchKind kind), (config, pattern, kind)) \
    V(FcDefaultSubstitute, (FcPattern *pattern), (pattern)) \
    X(FcPattern *, FcFontMatch, (FcConfig *config, FcPattern *pattern, FcResult *result), (config, pattern, result)) \
    X(FcResult, FcPatternGetString, (const FcPattern *pattern, const char *object, int n, FcChar8 **value), \
      (pattern, object, n, value)) \
    V(FcPatternDestroy, (FcPattern *pattern), (pattern)) \
    X(FcCharSet *, FcCharSetCreate, (void), ()) \
    X(FcBool, FcCharSetAddChar, (FcCharSet *set, FcChar32 c), (set, c)) \
    X(FcBool, FcCharSetHasChar, (const FcCharSet *set, FcChar32 c), (set, c)) \
    V(FcCharSetDestroy, (FcCharSet *set), (set)) \
    X(FcBool, FcPatternAddCharSet, (FcPattern *pattern, const char *object, const FcCharSet *set), (pattern, object, set)) \
    X(FcResult, FcPatternGetCharSet, (const FcPattern *pattern, const char *object, int n, FcCharSet **set), (pattern, object, n, set))

#define FRIBIDI_FUNCTIONS(X, V) \
    V(fribidi_get_bidi_types, (const FriBidiChar *str, const FriBidiStrIndex len, FriBidiCharType *types), (str, len, types)) \
    V(fribidi_get_bracket_types, (const FriBidiChar *str, const FriBidiStrIndex len, const FriBidiCharType *types, \
                                  FriBidiBracketType *brackets), (str, len, types, brackets)) \
    X(FriBidiLevel, fribidi_get_par_embedding_levels_ex, (const FriBidiCharType *types, const FriBidiBracketType *brackets, \
      const FriBidiStrIndex len, FriBidiParType *base, FriBidiLevel *levels), (types, brackets, len, base, levels)) \
    X(FriBidiLevel, fribidi_reorder_line, (FriBidiFlags flags, const FriBidiCharType *types, const FriBidiStrIndex len, \
      const FriBidiStrIndex off, const FriBidiParType base, FriBidiLevel *levels, FriBidiChar *visual, FriBidiStrIndex *map), \
      (flags, types, len, off, base, levels, visual, map))

static struct { FREETYPE_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } freetype;
static const char *const freetype_names[] = { FREETYPE_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library freetype_library = VFX_LIBRARY_INIT("libfreetype.so.6", freetype_names, freetype);

static struct { HARFBUZZ_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } harfbuzz;
static const char *const harfbuzz_names[] = { HARFBUZZ_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library harfbuzz_library = VFX_LIBRARY_INIT("libharfbuzz.so.0", harfbuzz_names, harfbuzz);

static struct { FONTCONFIG_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } fontconfig;
static const char *const fontconfig_names[] = { FONTCONFIG_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library fontconfig_library = VFX_LIBRARY_INIT("libfontconfig.so.1", fontconfig_names, fontconfig);

static struct { FRIBIDI_FUNCTIONS(VFX_ON_DEMAND_SLOT, VFX_ON_DEMAND_VOID_SLOT) } fribidi;
static const char *const fribidi_names[] = { FRIBIDI_FUNCTIONS(VFX_ON_DEMAND_NAME, VFX_ON_DEMAND_VOID_NAME) };
static vfx_library fribidi_library = VFX_LIBRARY_INIT("libfribidi.so.0", fribidi_names, fribidi);

#define FT_FORWARD(type, name, params, args) type name params { vfx_library_need(&freetype_library); return freetype.name args; }
#define FT_VOID_FORWARD(name, params, args) void name params { vfx_library_need(&freetype_library); freetype.name args; }
FREETYPE_FUNCTIONS(FT_FORWARD, FT_VOID_FORWARD)
#define HB_FORWARD(type, name, params, args) type name params { vfx_library_need(&harfbuzz_library); return harfbuzz.name args; }
#define HB_VOID_FORWARD(name, params, args) void name params { vfx_library_need(&harfbuzz_library); harfbuzz.name args; }
HARFBUZZ_FUNCTIONS(HB_FORWARD, HB_VOID_FORWARD)
#define FC_FORWARD(type, name, params, args) type name params { vfx_library_need(&fontconfig_library); return fontconfig.name args; }
#define FC_VOID_FORWARD(name, params, args) void name params { vfx_library_need(&fontconfig_library); fontconfig.name args; }
FONTCONFIG_FUNCTIONS(FC_FORWARD, FC_VOID_FORWARD)
#define FB_FORWARD(type, name, params, args) type name params { vfx_library_need(&fribidi_library); return fribidi.name args; }
#define FB_VOID_FORWARD(name, params, args) void name params { vfx_library_need(&fribidi_library); fribidi.name args; }
FRIBIDI_FUNCTIONS(FB_FORWARD, FB_VOID_FORWARD)

/// NULL when all three libraries load, else why not.
static const char *load_stack(void) {
    const char *why = vfx_library_load(&freetype_library);
    if (!why) why = vfx_library_load(&harfbuzz_library);
    if (!why) why = vfx_library_load(&fontconfig_library);
    return why;
}

static void copy_text(char *to, size_t size, const char *from) {
    if (size == 0) return;
    snprintf(to, size, "%s", from ? from : "");
}

/// Family names compared as fontconfig does: case and spaces do not count.
static int same_family(const char *a, const char *b) {
    for (;;) {
        while (*a == ' ') a++;
        while (*b == ' ') b++;
        if (!*a || !*b) return *a == *b;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
        a++, b++;
    }
}

/// fontconfig's generic names, which stand for whatever the system prefers.
static int is_generic(const char *family) {
    static const char *const generic[] = { "sans-serif", "sans", "serif", "monospace", "mono", "cursive", "fantasy", "system-ui", "emoji" };
    for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
        if (same_family(family, generic[i])) return 1;
    return 0;
}

// fontconfig's own locking covers its calls, but its first load is kept to one thread.
static pthread_mutex_t find_lock = PTHREAD_MUTEX_INITIALIZER;

int vfx_font_find(const char *pattern, char *file, size_t file_size, char *family, size_t family_size,
                  char *error, size_t error_size) {
    const char *why = load_stack();
    if (why) { copy_text(error, error_size, why); return -1; }
    if (strchr(pattern, '/')) {
        copy_text(file, file_size, pattern);
        copy_text(family, family_size, "");
        return 0;
    }
    pthread_mutex_lock(&find_lock);
    int status = -1;
    FcPattern *wanted = NULL, *match = NULL;
    if (!FcInit()) { copy_text(error, error_size, "fontconfig cannot load its configuration"); goto done; }
    wanted = FcNameParse((const FcChar8 *)pattern);
    if (!wanted) { snprintf(error, error_size, "'%s' is not a fontconfig font name", pattern); goto done; }
    FcChar8 *asked = NULL;
    char asked_family[256] = "";
    if (FcPatternGetString(wanted, FC_FAMILY, 0, &asked) == FcResultMatch) copy_text(asked_family, sizeof asked_family, (const char *)asked);
    FcConfigSubstitute(NULL, wanted, FcMatchPattern);
    FcDefaultSubstitute(wanted);
    FcResult result = FcResultNoMatch;
    match = FcFontMatch(NULL, wanted, &result);
    FcChar8 *path = NULL;
    if (!match || FcPatternGetString(match, FC_FILE, 0, &path) != FcResultMatch) {
        snprintf(error, error_size, "no font matches '%s'", pattern);
        goto done;
    }
    FcChar8 *found = NULL;
    FcPatternGetString(match, FC_FAMILY, 0, &found);
    // fontconfig always answers with some font; a family asked for by name must be the
    // one found, or the text would silently come out in another.
    if (asked_family[0] && !is_generic(asked_family)) {
        int same = 0;
        FcChar8 *name = NULL;
        for (int i = 0; !same && FcPatternGetString(match, FC_FAMILY, i, &name) == FcResultMatch; i++)
            same = same_family((const char *)name, asked_family);
        if (!same) {
            snprintf(error, error_size, "no font family '%s' is installed (fc-list : family lists those that are)", asked_family);
            goto done;
        }
    }
    copy_text(file, file_size, (const char *)path);
    copy_text(family, family_size, (const char *)found);
    status = 0;
done:
    if (match) FcPatternDestroy(match);
    if (wanted) FcPatternDestroy(wanted);
    pthread_mutex_unlock(&find_lock);
    return status;
}

int vfx_font_find_covering(const char *pattern, uint32_t codepoint, char *file, size_t file_size) {
    if (load_stack()) return -1;
    pthread_mutex_lock(&find_lock);
    int status = -1;
    FcPattern *wanted = NULL, *match = NULL;
    FcCharSet *chars = NULL;
    if (!FcInit()) goto done;
    // The style asked for (bold, a family's look) where it can be had; the character first.
    wanted = FcNameParse((const FcChar8 *)(strchr(pattern, '/') ? "sans-serif" : pattern));
    chars = FcCharSetCreate();
    if (!wanted || !chars || !FcCharSetAddChar(chars, codepoint) || !FcPatternAddCharSet(wanted, FC_CHARSET, chars)) goto done;
    FcConfigSubstitute(NULL, wanted, FcMatchPattern);
    FcDefaultSubstitute(wanted);
    FcResult result = FcResultNoMatch;
    match = FcFontMatch(NULL, wanted, &result);
    FcChar8 *path = NULL;
    FcCharSet *has = NULL;
    if (!match || FcPatternGetString(match, FC_FILE, 0, &path) != FcResultMatch) goto done;
    if (FcPatternGetCharSet(match, FC_CHARSET, 0, &has) != FcResultMatch || !FcCharSetHasChar(has, codepoint)) goto done;
    copy_text(file, file_size, (const char *)path);
    status = 0;
done:
    if (chars) FcCharSetDestroy(chars);
    if (match) FcPatternDestroy(match);
    if (wanted) FcPatternDestroy(wanted);
    pthread_mutex_unlock(&find_lock);
    return status;
}

struct vfx_font {
    FT_Library library;
    FT_Face face;
    hb_font_t *shaper;
    hb_buffer_t *buffer;
    FT_Stroker stroker;
};

vfx_font *vfx_font_open(const char *file, double pixels, char *error, size_t error_size) {
    const char *why = load_stack();
    if (why) { copy_text(error, error_size, why); return NULL; }
    vfx_font *font = calloc(1, sizeof *font);
    if (!font) { copy_text(error, error_size, "out of memory"); return NULL; }
    if (FT_Init_FreeType(&font->library)) { copy_text(error, error_size, "FreeType cannot start"); free(font); return NULL; }
    if (FT_New_Face(font->library, file, 0, &font->face)) {
        snprintf(error, error_size, "%s is not a font FreeType can read", file);
        FT_Done_FreeType(font->library);
        free(font);
        return NULL;
    }
    FT_F26Dot6 size = (FT_F26Dot6)lround(pixels * 64);
    if (FT_Set_Char_Size(font->face, 0, size < 64 ? 64 : size, 72, 72)) {
        snprintf(error, error_size, "%s has no outlines at %.0f px (a bitmap-only font?)", file, pixels);
        vfx_font_close(font);
        return NULL;
    }
    font->shaper = hb_ft_font_create_referenced(font->face);
    font->buffer = hb_buffer_create();
    if (FT_Stroker_New(font->library, &font->stroker)) font->stroker = NULL;
    return font;
}

void vfx_font_close(vfx_font *font) {
    if (!font) return;
    if (font->stroker) FT_Stroker_Done(font->stroker);
    if (font->buffer) hb_buffer_destroy(font->buffer);
    if (font->shaper) hb_font_destroy(font->shaper);
    if (font->face) FT_Done_Face(font->face);
    if (font->library) FT_Done_FreeType(font->library);
    free(font);
}

int vfx_font_covers(const vfx_font *font, uint32_t codepoint) {
    return FT_Get_Char_Index(font->face, codepoint) != 0;
}

void vfx_font_metrics(const vfx_font *font, double *ascender, double *descender, double *line_height) {
    const FT_Size_Metrics *m = &font->face->size->metrics;
    *ascender = m->ascender / 64.0;
    *descender = m->descender / 64.0;
    *line_height = m->height / 64.0;
}

int vfx_font_shape(vfx_font *font, const char *text, int length, int right_to_left, vfx_glyph_place *places, int capacity) {
    hb_buffer_clear_contents(font->buffer);
    hb_buffer_add_utf8(font->buffer, text, length, 0, length);
    hb_buffer_guess_segment_properties(font->buffer);
    // After the guess, which would take a run of digits or Latin inside Arabic as left to
    // right and a run of neutrals (" - ") by their first character.
    if (right_to_left >= 0) hb_buffer_set_direction(font->buffer, right_to_left ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
    hb_shape(font->shaper, font->buffer, NULL, 0);
    unsigned int count = 0;
    hb_glyph_info_t *info = hb_buffer_get_glyph_infos(font->buffer, &count);
    hb_glyph_position_t *position = hb_buffer_get_glyph_positions(font->buffer, &count);
    for (unsigned int i = 0; i < count && (int)i < capacity; i++) {
        places[i].glyph = info[i].codepoint;
        places[i].cluster = info[i].cluster;
        places[i].x_advance = position[i].x_advance / 64.0;
        places[i].y_advance = position[i].y_advance / 64.0;
        places[i].x_offset = position[i].x_offset / 64.0;
        places[i].y_offset = position[i].y_offset / 64.0;
    }
    return (int)count;
}

int vfx_font_render(vfx_font *font, uint32_t glyph, double outline, vfx_glyph_image *image) {
    memset(image, 0, sizeof *image);
    if (FT_Load_Glyph(font->face, glyph, FT_LOAD_NO_BITMAP | FT_LOAD_NO_HINTING)) return -1;
    FT_Glyph copy = NULL;
    if (FT_Get_Glyph(font->face->glyph, &copy)) return -1;
    if (outline > 0) {
        if (!font->stroker || copy->format != FT_GLYPH_FORMAT_OUTLINE) { FT_Done_Glyph(copy); return -1; }
        FT_Stroker_Set(font->stroker, (FT_Fixed)lround(outline * 64), FT_STROKER_LINECAP_ROUND, FT_STROKER_LINEJOIN_ROUND, 0);
        if (FT_Glyph_Stroke(&copy, font->stroker, 1)) { FT_Done_Glyph(copy); return -1; }
    }
    if (FT_Glyph_To_Bitmap(&copy, FT_RENDER_MODE_NORMAL, NULL, 1)) { FT_Done_Glyph(copy); return -1; }
    FT_BitmapGlyph bitmap = (FT_BitmapGlyph)copy;
    const FT_Bitmap *b = &bitmap->bitmap;
    if (b->pixel_mode != FT_PIXEL_MODE_GRAY && b->pixel_mode != FT_PIXEL_MODE_MONO) { FT_Done_Glyph(copy); return -1; }
    image->width = (int)b->width;
    image->height = (int)b->rows;
    image->left = bitmap->left;
    image->top = bitmap->top;
    size_t bytes = (size_t)image->width * (size_t)image->height;
    if (bytes) {
        image->pixels = malloc(bytes);
        if (!image->pixels) { FT_Done_Glyph(copy); return -1; }
        for (int y = 0; y < image->height; y++) {
            const unsigned char *row = b->buffer + (ptrdiff_t)y * b->pitch;
            uint8_t *out = image->pixels + (size_t)y * (size_t)image->width;
            if (b->pixel_mode == FT_PIXEL_MODE_GRAY) {
                // Coverage in 0…num_grays−1 (255 for FreeType's renderer).
                unsigned top = b->num_grays > 1 ? b->num_grays - 1 : 255;
                for (int x = 0; x < image->width; x++) out[x] = (uint8_t)((row[x] * 255u + top / 2) / top);
            } else {
                for (int x = 0; x < image->width; x++) out[x] = (row[x >> 3] >> (7 - (x & 7)) & 1) ? 255 : 0;
            }
        }
    }
    FT_Done_Glyph(copy);
    return 0;
}

void vfx_glyph_image_free(vfx_glyph_image *image) {
    free(image->pixels);
    image->pixels = NULL;
}

int vfx_bidi_levels(const uint32_t *text, int length, int8_t *levels) {
    if (length <= 0) return 0;
    if (vfx_library_load(&fribidi_library)) return -1;
    FriBidiCharType *types = malloc((size_t)length * sizeof *types);
    FriBidiBracketType *brackets = malloc((size_t)length * sizeof *brackets);
    int status = -1;
    if (!types || !brackets) goto done;
    fribidi_get_bidi_types(text, length, types);
    fribidi_get_bracket_types(text, length, types, brackets);
    FriBidiParType base = FRIBIDI_PAR_ON;  // from the first strong character (P2, P3)
    if (!fribidi_get_par_embedding_levels_ex(types, brackets, length, &base, levels)) goto done;
    // The whole paragraph is one line: this applies rule L1 (white space at its end and
    // before separators back at the paragraph's level); no string or map to reorder.
    if (!fribidi_reorder_line(0, types, length, 0, base, levels, NULL, NULL)) goto done;
    status = FRIBIDI_IS_RTL(base) ? 1 : 0;
done:
    free(types);
    free(brackets);
    return status;
}
