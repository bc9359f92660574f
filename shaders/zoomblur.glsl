// The built-in zoomblur: nine bilinear taps along the line to a centre, weighted as
// GPUImage's ZoomBlurFilter weights them.
uniform float amount; // range 0…10; default 1; Blur size: tap spacing in % of the distance to the centre.
uniform float x;      // range 0…1; default 0.5; Centre, as a fraction of the width from the left.
uniform float y;      // range 0…1; default 0.5; Centre, as a fraction of the height from the top.

const float weights[5] = float[5](0.18, 0.15, 0.12, 0.09, 0.05);

vec4 effect(vec2 position) {
    vec2 towards = (vec2(x, y) * size - position) * amount / 100.0;
    vec4 sum = vec4(0.0);
    for (int k = -4; k <= 4; k++) sum += weights[abs(k)] * source(position + float(k) * towards);
    return sum;
}
