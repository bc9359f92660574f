// The built-in oldtimes: an old film's jitter, warm tone, flicker, grain, scratches and
// vignette, every random draw an integer hash of (seed, film tick, stream, index), so the
// same seed and time give the same bytes everywhere.
uniform float amount;   // range 0…1; default 1; Overall strength: 0 leaves the frame as it is.
uniform int seed;       // range 0…2147483647; default 0; Random seed; equal seeds give equal films.
uniform float filmfps;  // range 1…60; default 24; Rate at which the damage changes.
uniform float grain;    // range 0…0.5; default 0.08; Grain strength.
uniform float tone;     // range 0…1; default 1; Warm monochrome tone: 0 keeps the colours.
uniform float vignette; // range 0…1; default 0.5; Darkening towards the corners.

// lowbias32 (C. Wellons).
uint hash(uint x) {
    x ^= x >> 16; x *= 0x7feb352du;
    x ^= x >> 15; x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
uint hash4(uint a, uint b, uint c, uint d) { return hash(a ^ hash(b ^ hash(c ^ hash(d)))); }
float draw(uint tick, uint stream, uint index) { return float(hash4(uint(seed), tick, stream, index) >> 8) * exp2(-24.0); }

vec4 effect(vec2 position) {
    ivec2 cell = ivec2(position), s = ivec2(size);
    uint tick = uint(floor(max(time, 0.0) * filmfps));
    // Jitter: one frame in five moves up to 1.5 % of the height; rows from outside are black.
    int dy = draw(tick, 1u, 0u) < 0.2 ? int(round((2.0 * draw(tick, 2u, 0u) - 1.0) * 0.015 * size.y)) : 0;
    int from = cell.y + dy;
    vec3 c = from >= 0 && from < s.y ? source(vec2(cell.x, from) + 0.5).rgb : vec3(0.0);
    // Tone: towards a warm monochrome of the BT.601 luma.
    float luma = dot(c, vec3(0.299, 0.587, 0.114));
    c += (luma * vec3(1.0, 0.92, 0.78) - c) * tone;
    // Flicker and a slow drift of the exposure, then grain, one value for R, G and B.
    float bright = draw(tick, 3u, 0u) < 0.7 ? (-30.0 + 50.0 * draw(tick, 4u, 0u)) / 255.0 : 0.0;
    float drift = 0.06 * sin(6.283185307 * float(tick) / 70.0);
    float noise = grain * (2.0 * draw(tick, 5u, uint(cell.y * s.x + cell.x)) - 1.0) + bright + drift;
    c = clamp(c + noise, 0.0, 1.0);
    // Up to five scratches, two pixels wide, each lingering about half a second.
    for (uint i = 0u; i < 5u; i++) {
        if (draw(tick, 6u, i) >= 0.5) continue;
        int x = int(floor(draw(tick / 12u, 7u, i) * size.x)) + int(round(4.0 * draw(tick, 8u, i) - 2.0));
        int y0 = int(floor(draw(tick, 9u, i) * size.y));
        int y1 = int(floor(draw(tick, 10u, i) * size.y));
        if (y1 < y0) y1 = s.y;
        int off = abs(cell.x - x);
        if (cell.y < y0 || cell.y >= y1 || off >= 2) continue;
        float f = 0.4 * (1.0 - float(off) / 2.0);
        c = draw(tick, 11u, i) < 0.67 ? c * (1.0 - f) : c * (1.0 - f) + f;
    }
    // Vignette, by the distance to the centre over the half diagonal.
    float r = length(position - size / 2.0) / length(size / 2.0);
    c *= 1.0 - vignette * smoothstep(0.45, 1.0, r);
    vec4 original = source(position);
    return vec4(original.rgb + (c - original.rgb) * amount, original.a);
}
