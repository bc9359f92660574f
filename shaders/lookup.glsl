// A colour lookup through an iOS key image (GPUImage's 512×512 lookup PNG: 8 × 8 tiles of
// 64 × 64, blue choosing the tile, red and green within it), as the built-in
// solarize:lut=KEY.png reads one: trilinear, mixed with the original by intensity.
uniform sampler2D key;   // The 512×512 lookup image.
uniform float intensity; // range 0…1; default 1; Mix with the original: 0 leaves the frame as it is.

vec4 effect(vec2 position, vec4 color) {
    float blue = color.b * 63.0;
    vec2 low = vec2(mod(floor(blue), 8.0), floor(floor(blue) / 8.0));
    vec2 high = vec2(mod(ceil(blue), 8.0), floor(ceil(blue) / 8.0));
    // Texel centres of the tile: red and green 0…1 map to 0.5…63.5 of its 64 pixels.
    vec2 within = (0.5 + color.rg * 63.0) / 512.0;
    vec3 a = texture(key, low * 0.125 + within).rgb;
    vec3 b = texture(key, high * 0.125 + within).rgb;
    vec3 looked = mix(a, b, fract(blue));
    return vec4(mix(color.rgb, looked, intensity), color.a);
}
