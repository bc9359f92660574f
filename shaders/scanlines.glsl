// A shader as pasted from Shadertoy: iChannel0 is the frame, upright.
#define STRENGTH 0.25
const float lines = 240.0;

float vignette(vec2 uv) {
    uv *= 1.0 - uv.yx;
    return pow(uv.x * uv.y * 15.0, STRENGTH);
}

void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec2 uv = fragCoord / iResolution.xy;
    vec3 col = texture(iChannel0, uv).rgb;
    col *= 0.9 + 0.1 * sin(uv.y * lines + iTime * 4.0);
    fragColor = vec4(col * vignette(uv), 1.0);
}
