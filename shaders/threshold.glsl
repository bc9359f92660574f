// The built-in threshold: white ink where the luma reaches the threshold, black elsewhere.
uniform float threshold; // range 0…1; default 0.5; Luma (0…1) at and above which a pixel turns white.

vec4 effect(vec2 position, vec4 color) {
    // BT.709 luma in whole units of the bytes, as the built-in counts it (no float ties).
    ivec3 c = ivec3(color.rgb * 255.0 + 0.5);
    int luma = 2126 * c.r + 7152 * c.g + 722 * c.b;
    float white = float(luma) >= ceil(threshold * 2550000.0 - 1e-6) ? 1.0 : 0.0;
    return vec4(vec3(white), color.a);
}
