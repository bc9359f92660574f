// The built-in tiled: n × n copies of the frame, each read at its nearest pixel.
uniform int n; // range 1…16; default 2; Copies per side.

vec4 effect(vec2 position) {
    ivec2 cell = ivec2(position), s = ivec2(size);
    // (x + ½)·n mod W in whole numbers: ((2x + 1)·n mod 2W) / 2.
    ivec2 from = ((2 * cell + 1) * n % (2 * s)) / 2;
    return source(vec2(from) + 0.5);
}
