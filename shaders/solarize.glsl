// The built-in solarize without a key: colours invert where the luma is at or below the
// threshold. With a key image it is shaders/lookup.glsl.
uniform float threshold; // range 0…1; default 0.5; Luma at or below which colours invert.
uniform float intensity; // range 0…1; default 1; Mix with the original: 0 leaves the frame as it is.

vec4 effect(vec2 position, vec4 color) {
    ivec3 c = ivec3(color.rgb * 255.0 + 0.5);
    int luma = 2126 * c.r + 7152 * c.g + 722 * c.b;
    if (float(luma) > floor(threshold * 2550000.0)) return color;
    return vec4(mix(color.rgb, 1.0 - color.rgb, intensity), color.a);
}
