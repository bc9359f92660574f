// A horizontal wave that moves with time: a distortion (where to read the frame).
uniform float amplitude; // range 0…200; default 8; How far the rows move, in pixels.
uniform float wavelength; // range 1…10000; default 120; The wave's length, in pixels.
uniform float speed; // range -100…100; default 2; Waves a second.

vec2 effect(vec2 position) {
    float phase = 6.2831853 * (position.y / wavelength + speed * time);
    return vec2(position.x + amplitude * sin(phase), position.y);
}
