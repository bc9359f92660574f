// The built-in warhol: four copies at half size, each in four flat colours of its own by
// the brightness of the 2 × 2 pixels it stands for.
uniform float mix; // range 0…1; default 1; Mix with the original: 0 leaves the frame as it is.

const ivec3 palettes[16] = ivec3[16](
    ivec3(0, 0, 255), ivec3(0, 255, 0), ivec3(255, 0, 0), ivec3(255, 255, 0),       // top left
    ivec3(255, 255, 0), ivec3(255, 0, 0), ivec3(0, 255, 0), ivec3(40, 40, 255),     // top right
    ivec3(19, 31, 24), ivec3(76, 76, 76), ivec3(255, 255, 0), ivec3(255, 0, 255),   // bottom left
    ivec3(0, 100, 255), ivec3(165, 255, 0), ivec3(255, 0, 132), ivec3(255, 215, 140) // bottom right
);

ivec3 bytes(ivec2 p) { return ivec3(source(vec2(p) + 0.5).rgb * 255.0 + 0.5); }

vec4 effect(vec2 position, vec4 color) {
    ivec2 cell = ivec2(position), s = ivec2(size), half_ = max(s / 2, ivec2(1));
    ivec2 quadrant = ivec2(greaterThanEqual(cell, half_));
    ivec2 uv = cell - quadrant * half_;
    ivec2 a = min(2 * uv, s - 1), b = min(2 * uv + 1, s - 1);
    // The 2 × 2 mean in whole levels, and its brightness ×10000 (exact in integers).
    ivec3 mean = (bytes(a) + bytes(ivec2(b.x, a.y)) + bytes(ivec2(a.x, b.y)) + bytes(b) + 2) >> 2;
    int brightness = 2989 * mean.r + 5870 * mean.g + 1140 * mean.b;
    int band = min(brightness / 640000, 3);
    vec3 flat_ = vec3(palettes[(quadrant.y * 2 + quadrant.x) * 4 + band]) / 255.0;
    return vec4(color.rgb + (flat_ - color.rgb) * mix, color.a);
}
