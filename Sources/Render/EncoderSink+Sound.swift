import FrameCore
public import FrameSource
public import MediaInput
public import Sinks
public import Effects

extension EncoderSink.Settings {
    /// Takes the input's sound into the output, cut to the stretch `configuration` plays
    /// (its start, duration and speed), faded as `chain` fades the picture. It is copied
    /// only when the whole clip plays once from its start; otherwise transcoded, so that
    /// its seams stay sample-accurate.
    public mutating func keepSound(of media: MediaInput, playedAs configuration: FrameSource.Configuration, chain: EffectChain?) {
        audioInput = media
        audioStart = configuration.start
        audioDuration = configuration.duration
        audioCopyAllowed = configuration.loop == .once && configuration.start == Rational(0) && configuration.duration == nil
        audioGain = chain?.audioGain
        audioSpeed = configuration.speed
    }
}
