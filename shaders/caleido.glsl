// The built-in caleido: one quadrant mirrored into the other three (-e caleido:quadrant=…).
uniform bool right;  // default false; Keep a right-hand quadrant (else a left one).
uniform bool bottom; // default false; Keep a bottom quadrant (else a top one).

vec4 effect(vec2 position) {
    ivec2 cell = ivec2(position), s = ivec2(size);
    // 2x < W rather than x < W/2, so that an odd centre column maps to itself.
    int x = (2 * cell.x < s.x) != right ? cell.x : s.x - 1 - cell.x;
    int y = (2 * cell.y < s.y) != bottom ? cell.y : s.y - 1 - cell.y;
    return source(vec2(x, y) + 0.5);
}
