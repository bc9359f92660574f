/// Shadertoy's form, as a shader is pasted from it: `void mainImage(out vec4 fragColor,
/// in vec2 fragCoord)`, with `iChannel0` the frame (upright, as Shadertoy shows a video)
/// and its uniforms, in its coordinates (origin bottom-left). The output is opaque, as
/// Shadertoy's canvas shows it.
enum ShadertoyShader {
    /// What the form gives before the user's lines: its uniforms as names of vidfx's
    /// built-ins, and the frame read as Shadertoy reads a channel (clamped, bilinear).
    static let before = """
        #define iResolution vec3(size, 1.0)
        #define iTime time
        #define iGlobalTime time
        #define iTimeDelta vfx_delta
        #define iFrame frame
        #define iFrameRate vfx_rate
        #define iDate vfx_date
        #define iMouse vec4(0.0)
        #define iSampleRate 44100.0
        #define iChannelTime float[4](time, time, time, time)
        #define iChannelResolution vec3[4](vec3(size, 1.0), vec3(0.0), vec3(0.0), vec3(0.0))
        vec4 vfx_channel0(vec2 uv) { return source(vec2(uv.x, 1.0 - uv.y) * size); }
        vec4 vfx_channel0(vec2 uv, float bias) { return vfx_channel0(uv); }
        vec4 vfx_channel0(vec2 uv, vec2 dx, vec2 dy) { return vfx_channel0(uv); }
        vec4 vfx_fetch0(ivec2 p, int lod) { return vfx_pixel(ivec2(p.x, int(size.y) - 1 - p.y)); }
        """

    /// How each reading of a channel is written for the frame.
    static let readings: [String: String] = [
        "texture": "vfx_channel0(", "textureLod": "vfx_channel0(", "textureGrad": "vfx_channel0(",
        "texelFetch": "vfx_fetch0(",
    ]

    static func parts(_ read: (parameters: [ShaderSource.Parameter], body: String), file: String) throws(ShaderError) -> ShaderSource.Parts {
        var tokens = ShaderTokens(read.body)
        var i = 0
        while i < tokens.tokens.count {
            let t = tokens.tokens[i]
            guard t.kind == .word, t.text.hasPrefix("iChannel") else { i += 1; continue }
            guard t.text == "iChannel0" else {
                throw ShaderError("\(file):\(t.line): \(t.text): only iChannel0 (the frame) is given")
            }
            // `texture(iChannel0, uv …)`: the function's name, `(`, the channel, `,`.
            guard let open = tokens.previous(i), tokens.tokens[open].isPunctuation("("), let function = tokens.previous(open),
                  let comma = tokens.next(i + 1), tokens.tokens[comma].isPunctuation(",") || tokens.tokens[comma].isPunctuation(")") else {
                throw ShaderError("\(file):\(t.line): iChannel0 is read with texture(iChannel0, uv), texelFetch or textureSize, not passed on")
            }
            let name = tokens.tokens[function].text
            if name == "textureSize" {
                guard let close = tokens.closing(open) else { throw ShaderError("\(file):\(t.line): textureSize( is not closed") }
                tokens.replace(function...close, with: "ivec2(size)")
                i = function + 1
            } else if let reading = readings[name], tokens.tokens[comma].isPunctuation(",") {
                // One level: a level of detail, a bias or gradients change nothing.
                tokens.replace(function...comma, with: reading)
                i = function + 1
            } else {
                throw ShaderError("\(file):\(t.line): iChannel0 is read with texture(iChannel0, uv), texelFetch or textureSize, not \(name)")
            }
        }
        let call = "vfx_shadertoy(position)"
        let after = """
            vec4 vfx_shadertoy(vec2 p) {
                vec4 c = vec4(0.0);
                mainImage(c, vec2(p.x, size.y - p.y));
                return vec4(c.rgb, 1.0);
            }
            """
        return ShaderSource.Parts(kind: .layer, parameters: read.parameters, body: tokens.text, before: before, after: after, call: call)
    }
}
