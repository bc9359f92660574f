// The built-in posterize: a few flat levels a channel, black and white among them.
uniform float levels; // range 2…256; default 6; Levels per channel, black and white included.

vec4 effect(vec2 position, vec4 color) {
    float steps = levels - 1.0;
    // A fractional level count can round the top level past 1: it is white.
    return vec4(min(vec3(1.0), floor(color.rgb * steps + 0.5) / steps), color.a);
}
