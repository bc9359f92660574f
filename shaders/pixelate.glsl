// A mosaic of square blocks, each its top-left pixel: a layer (vidfx's built-in pixelate;
// `size` is the frame's size here, so the block's side is `block`).
uniform float block; // range 1…4096; default 8; Block side in pixels.

vec4 effect(vec2 position) {
    return source(floor((position - 0.5) / block) * block + 0.5);
}
