// Sepia: the W3C matrix, mixed with the original by `amount` (vidfx's built-in sepia).
uniform float amount; // range 0…1; default 1; How much sepia: 0 leaves the frame as it is.

vec4 effect(vec2 position, vec4 color) {
    vec3 toned = clamp(vec3(dot(color.rgb, vec3(0.393, 0.769, 0.189)),
                            dot(color.rgb, vec3(0.349, 0.686, 0.168)),
                            dot(color.rgb, vec3(0.272, 0.534, 0.131))), 0.0, 1.0);
    return vec4(mix(color.rgb, toned, amount), color.a);
}
