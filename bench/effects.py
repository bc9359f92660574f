#!/usr/bin/env python3
"""Effect throughput at 1080p: vidfx's engine against ffmpeg's filters, same frames, same run.

    python3 bench/effects.py [--frames 20] [--runs 5] [--cpu auto|portable|haswell|native]

Writes 1080p BGRA frames of testsrc2 to bench/out/, times every effect in process with
effects-bench (release build, median ms per frame), and times the ffmpeg filter that does
the same job on the same raw frames: (wall with filter - wall with `-vf null`) / frames.
"""
import argparse, json, os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
W, H = 1920, 1080
SEPIA = "colorchannelmixer=rr=.393:rg=.769:rb=.189:gr=.349:gg=.686:gb=.168:br=.272:bg=.534:bb=.131"
POST = "floor(floor(val/255*5+0.5)*255/5+0.5)"

def _hue_mix(deg):
    import math
    t = math.radians(deg)
    c, s = math.cos(t), math.sin(t)
    k, q = (1 - c) / 3, s / math.sqrt(3)
    m = [c + k, k - q, k + q, k + q, c + k, k - q, k - q, k + q, c + k]
    names = ["rr", "rg", "rb", "gr", "gg", "gb", "br", "bg", "bb"]
    return "colorchannelmixer=" + ":".join(f"{n}={v:.6f}" for n, v in zip(names, m))


def _color_controls(sat, bri, con):
    w = (0.2126, 0.7152, 0.0722)
    rows = [[(1 - sat) * w[j] + (sat if i == j else 0) for j in range(3)] for i in range(3)]
    names = ["rr", "rg", "rb", "gr", "gg", "gb", "br", "bg", "bb"]
    mix = "colorchannelmixer=" + ":".join(f"{n}={v:.6f}" for n, v in zip(names, sum(rows, [])))
    e = f"clip(floor(((val/255+{bri}-0.5)*{con}+0.5)*255+0.5),0,255)"
    return f"{mix},lutrgb=r='{e}':g='{e}':b='{e}'"


# (label, vidfx chain, ffmpeg filter or None, is a colour effect)
CASES = [
    ("sepia", "sepia", SEPIA, True),
    ("posterize", "posterize=6", f"lutrgb=r='{POST}':g='{POST}':b='{POST}'", True),
    ("threshold", "threshold", None, True),
    ("solarize", "solarize", None, True),
    ("lut (33³ tetrahedral)", "lut:file={cube}", "lut3d=file={cube}:interp=tetrahedral", True),
    ("lut (33³ trilinear)", "lut:file={cube}:interp=trilinear", "lut3d=file={cube}:interp=trilinear", True),
    ("exposure ev=0.7", "exposure=0.7", "exposure=exposure=0.7", True),
    ("exposure ev=0.7 linear", "exposure=0.7:space=linear", None, True),
    ("hue 120", "hue=120", _hue_mix(120), True),
    ("hue 120 linear", "hue=120:space=linear", None, True),
    ("colorcontrols", "colorcontrols:saturation=1.4:brightness=0.05:contrast=1.3", _color_controls(1.4, 0.05, 1.3), True),
    ("colorcontrols linear", "colorcontrols:saturation=1.4:brightness=0.05:contrast=1.3:space=linear", None, True),
    ("vibrance 0.6", "vibrance=0.6", "vibrance=intensity=0.6:alternate=1:rlum=0.2126:glum=0.7152:blum=0.0722", True),
    ("vibrance 0.6 linear", "vibrance=0.6:space=linear", None, True),
    ("pixelate mode=average", "pixelate:size=8:mode=average", "pixelize=w=8:h=8", False),
    ("pixelate mode=sample", "pixelate:size=8", None, False),
    ("caleido", "caleido", None, False),
    ("tiled", "tiled", None, False),
    ("warhol", "warhol", None, False),
    ("zoomblur", "zoomblur", None, False),
    ("oldtimes", "oldtimes", None, False),
    ("chain sepia,posterize,threshold", "sepia,posterize=6,threshold", None, True),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def prepare(frames):
    os.makedirs(OUT, exist_ok=True)
    raw = os.path.join(OUT, f"testsrc2-1080p-{frames}.bgra")
    if not os.path.exists(raw):
        run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={W}x{H}:rate=30",
             "-frames:v", str(frames), "-pix_fmt", "bgra", "-f", "rawvideo", raw])
    cube = os.path.join(OUT, "grade33.cube")
    if not os.path.exists(cube):
        n = 33
        with open(cube, "w") as f:
            f.write(f"LUT_3D_SIZE {n}\n")
            for b in range(n):
                for g in range(n):
                    for r in range(n):
                        R, G, B = r / (n - 1), g / (n - 1), b / (n - 1)
                        f.write(f"{G ** 0.8:.6f} {0.7 * B + 0.3 * R * R:.6f} {min(1, 0.9 * R + 0.1):.6f}\n")
    return raw, cube


def ffmpeg_wall(raw, vf):
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "bgra", "-s", f"{W}x{H}",
           "-i", raw, "-vf", vf, "-f", "null", "-"]
    start = time.monotonic()
    run(cmd, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cpu", choices=["auto", "portable", "haswell", "native"], default="auto",
                    help="code generation for the effects: auto = haswell (AVX2) when this CPU has it, "
                         "as `make build` does; portable = baseline x86-64 (what library dependents get)")
    args = ap.parse_args()
    cpu = args.cpu
    if cpu == "auto":
        cpu = "haswell" if " avx2" in open("/proc/cpuinfo").read() else "portable"
    scratch = ".build" if cpu == "portable" else f".build-{cpu}"
    env = {k: v for k, v in os.environ.items() if k != "VIDFX_TARGET_CPU"}
    if cpu != "portable":
        env["VIDFX_TARGET_CPU"] = cpu
    run(["swift", "build", "-c", "release", "--product", "effects-bench", "--scratch-path", scratch],
        cwd=ROOT, stdout=subprocess.DEVNULL, env=env)
    bench = os.path.join(ROOT, scratch, "release", "effects-bench")
    raw, cube = prepare(args.frames)

    chains = [c.format(cube=cube) for _, c, _, _ in CASES]
    out = run([bench, raw, str(W), str(H)] + chains, capture_output=True, text=True,
              env={**os.environ, "RUNS": str(args.runs)}).stdout
    ours = {json.loads(l)["chain"]: json.loads(l) for l in out.splitlines() if l.strip()}

    base = []
    theirs = {}
    for _ in range(args.runs):  # interleave so noise hits every filter alike
        base.append(ffmpeg_wall(raw, "null"))
        for label, _, vf, _ in CASES:
            if vf:
                theirs.setdefault(label, []).append(ffmpeg_wall(raw, vf.format(cube=cube)))
    base_med = statistics.median(base)

    build = "portable x86-64 build" if cpu == "portable" else f"effects built with VIDFX_TARGET_CPU={cpu}"
    print(f"1920x1080 testsrc2, {args.frames} frames, medians of {args.runs} runs, {os.cpu_count()} cores, {build}")
    print(f"{'effect':34s} {'vidfx ms':>9s} {'Mpx/s':>8s} {'ffmpeg ms':>10s} {'speed-up':>9s}")
    slowest_part = 0.0
    for label, chain, vf, colour in CASES:
        r = ours[chain.format(cube=cube)]
        line = f"{label:34s} {r['msPerFrame']:9.2f} {r['mpxPerSecond']:8.0f}"
        if vf:
            ff = (statistics.median(theirs[label]) - base_med) / args.frames * 1000
            line += f" {ff:10.2f} {ff / r['msPerFrame']:8.1f}x"
        print(line)
        if label in ("sepia", "posterize", "threshold"):
            slowest_part = max(slowest_part, r["msPerFrame"])
    chain = ours["sepia,posterize=6,threshold"]["msPerFrame"]
    print(f"chain of three colour effects: {chain:.2f} ms = {chain / slowest_part:.2f}x the slowest of them alone")


if __name__ == "__main__":
    main()
