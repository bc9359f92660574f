// Text shaped by HarfBuzz and rasterised by FreeType, in a font fontconfig finds: the
// `text` effect's stack, behind a small C API that names none of their types. The three
// libraries are loaded when a text is first drawn (see vidfx_on_demand.h), not at start.
#ifndef VIDFX_TEXT_H
#define VIDFX_TEXT_H

#include <stddef.h>
#include <stdint.h>

/// One font face at one pixel size, with its shaper. Not thread-safe: callers lock.
typedef struct vfx_font vfx_font;

/// Finds the font file fontconfig matches for `pattern` (a fontconfig name such as
/// "DejaVu Sans:bold"), or takes `pattern` as a file when it holds a '/'. Writes the
/// file and the family found to `file`/`family` (NUL-terminated, cut to their sizes).
/// Returns 0, or -1 with the reason in `error`: the libraries cannot be loaded, or the
/// pattern names a family the system does not have (fontconfig would silently
/// substitute another).
int vfx_font_find(const char *pattern, char *file, size_t file_size, char *family, size_t family_size,
                  char *error, size_t error_size);

/// The file of a font that has `codepoint`, as close to `pattern` as fontconfig finds:
/// where the font asked for lacks a character (a Devanagari word in a Latin font).
/// Returns 0, or -1 when no installed font has it.
int vfx_font_find_covering(const char *pattern, uint32_t codepoint, char *file, size_t file_size);

/// Opens face 0 of `file` at `pixels` per em. NULL with the reason in `error` on failure.
vfx_font *vfx_font_open(const char *file, double pixels, char *error, size_t error_size);

/// Closes a font from vfx_font_open (NULL is allowed).
void vfx_font_close(vfx_font *font);

/// Whether the font has a glyph for `codepoint`.
int vfx_font_covers(const vfx_font *font, uint32_t codepoint);

/// The font's vertical metrics in pixels: ascender (up, positive), descender (down,
/// negative) and the distance between baselines.
void vfx_font_metrics(const vfx_font *font, double *ascender, double *descender, double *line_height);

/// A shaped glyph: its index in the font and where it goes, in pixels, relative to the
/// pen (offsets) and how far it moves the pen (advances). y grows upwards.
typedef struct {
    uint32_t glyph;
    uint32_t cluster;
    double x_advance, y_advance, x_offset, y_offset;
} vfx_glyph_place;

/// Shapes `length` bytes of UTF-8 `text`, one run of one direction: `right_to_left` 1 or
/// 0 as the bidi algorithm resolved it, or -1 to guess it from the text (script and
/// language are always guessed). Right-to-left runs come out in visual order, left to
/// right. Writes up to `capacity` places; returns how many there are (call again with
/// more room when it is larger than `capacity`).
int vfx_font_shape(vfx_font *font, const char *text, int length, int right_to_left, vfx_glyph_place *places, int capacity);

/// The bidi embedding level of each of `length` code points of one line, by the Unicode
/// bidi algorithm (FriBidi): the paragraph's direction from its first strong character
/// (left to right when there is none), brackets paired, and white space at the line's
/// end back at the paragraph's level. An odd level is right to left. Returns the
/// paragraph's level (0 or 1), or -1 when FriBidi cannot be loaded or fails.
int vfx_bidi_levels(const uint32_t *text, int length, int8_t *levels);

/// A glyph's coverage (0…255 a pixel, `width`×`height`, rows `width` apart), placed
/// `left` pixels right of the pen and with its top row `top` pixels above the baseline.
typedef struct {
    int width, height, left, top;
    uint8_t *pixels;
} vfx_glyph_image;

/// Rasterises `glyph` (anti-aliased); with `outline` > 0, the glyph's outline stroked
/// `outline` pixels wide on each side, filled (what a border around the text needs).
/// Returns 0 and fills `image` (free its pixels with vfx_glyph_image_free), or -1.
int vfx_font_render(vfx_font *font, uint32_t glyph, double outline, vfx_glyph_image *image);

/// Frees the pixels of an image from vfx_font_render.
void vfx_glyph_image_free(vfx_glyph_image *image);

#endif
