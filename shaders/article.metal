// The SwiftUI shaders of the article vidfx started from, as they are written
// (docs/shaders.md, "SwiftUI's Metal"): -e "./shaders/article.metal#pixelate:pixelSize=12"
#include <metal_stdlib>
#include <SwiftUI/SwiftUI.h>
using namespace metal;

[[stitchable]]
half4 sepiaTone(float2 pos, half4 color, float amount) {
    float sepiaRed   = color.r * 0.393 + color.g * 0.769 + color.b * 0.189;
    float sepiaGreen = color.r * 0.349 + color.g * 0.686 + color.b * 0.168;
    float sepiaBlue  = color.r * 0.272 + color.g * 0.534 + color.b * 0.131;
    half4 sepiaColor = half4(clamp(sepiaRed, 0.0, 1.0), clamp(sepiaGreen, 0.0, 1.0), clamp(sepiaBlue, 0.0, 1.0), color.a);
    return (1.0 - amount) * color + amount * sepiaColor;;
}

[[ stitchable ]]
half4 pixelate(float2 position, SwiftUI::Layer layer, float pixelSize) {
    float2 pixelatedPosition = floor(position / pixelSize) * pixelSize;
    half4 color = layer.sample(pixelatedPosition);
    return color;
}

[[stitchable]]
half4 tiled(float2 position, SwiftUI::Layer layer, float2 size) {
    float2 tiledCoord = (position / size) * 2;
    float2 wrappedCoord = fract(tiledCoord);
    float2 sampleCoord = wrappedCoord * size;
    return layer.sample(sampleCoord);
}
