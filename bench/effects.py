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
    ("colormatrix", "colormatrix:r=0.5,0.3,0.1,0:g=0.1,0.9,-0.2,0:b=0.2,0.1,0.6,0",
     "colorchannelmixer=rr=0.5:rg=0.3:rb=0.1:gr=0.1:gg=0.9:gb=-0.2:br=0.2:bg=0.1:bb=0.6", True),
    ("colormatrix alpha+bias linear", "colormatrix:r=0.5,0.3,0.1,0.1:bias=0.1,0,0,0:space=linear", None, True),
    ("temperature 4000K (ffmpeg: look-alike)", "temperature=4000", "colortemperature=temperature=4000", True),
    ("temperature 4000K linear", "temperature=4000:space=linear", None, True),
    ("tonecurve", "tonecurve:p1=0.25,0.15:p3=0.75,0.88", "curves=all='0/0 0.25/0.15 0.5/0.5 0.75/0.88 1/1'", True),
    ("whitepoint", "whitepoint=#FFE0C0", "colorchannelmixer=rr=1:gg=0.878431:bb=0.752941", True),
    ("highlightshadow", "highlightshadow:highlight=0.4:shadow=0.6", None, False),
    ("highlightshadow radius=4", "highlightshadow:highlight=0.4:shadow=0.6:radius=4", None, False),
    ("monochrome", "monochrome", None, True),
    ("falsecolor", "falsecolor", None, True),
    ("colorthreshold", "colorthreshold=0.4", "lutrgb=r='255*gt(val,102)':g='255*gt(val,102)':b='255*gt(val,102)'", True),
    ("noir", "noir", "colorchannelmixer=.2126:.7152:.0722:0:.2126:.7152:.0722:0:.2126:.7152:.0722,"
                      "curves=all='0/0 0.25/0.15 0.5/0.5 0.75/0.88 1/1'", True),
    ("kaleidoscope", "kaleidoscope", None, False),
    ("affine (rotate+scale)", "affine:transform=0.8,0.3,-0.3,0.8,200,-100", None, False),
    ("straighten 10 (ffmpeg: rotate only)", "straighten=10", "rotate=-10*PI/180", False),
    ("crop 960x540", "crop:rect=480,270,960,540", "crop=960:540:480:270", False),
    ("constantcolor", "constantcolor=#3366CC", None, True),
    ("overlay 256x128 badge", "overlay:file={badge}:anchor=bottomright:x=32:y=32:opacity=0.8",
     "movie={badge_png},format=bgra,colorchannelmixer=aa=0.8[b];[in][b]overlay=1632:920:format=rgb", True),
    ("pixelate mode=average", "pixelate:size=8:mode=average", "pixelize=w=8:h=8", False),
    ("pixelate mode=sample", "pixelate:size=8", None, False),
    ("caleido", "caleido", None, False),
    ("tiled", "tiled", None, False),
    ("warhol", "warhol", None, False),
    ("zoomblur", "zoomblur", None, False),
    ("blur sigma=4 (ffmpeg: gblur, 1 step)", "blur:sigma=4", "gblur=sigma=4", False),
    ("blur sigma=16 (ffmpeg: gblur, 1 step)", "blur:sigma=16", "gblur=sigma=16", False),
    ("blur sigma=32 (ffmpeg: gblur, 1 step)", "blur:sigma=32", "gblur=sigma=32", False),
    ("blur sigma=2 (ffmpeg: gblur, 1 step)", "blur:sigma=2", "gblur=sigma=2", False),
    ("blur box radius=8", "blur:mode=box:radius=8", "avgblur=sizeX=8", False),
    ("blur motion length=20", "blur:mode=motion:length=20:angle=30", None, False),
    ("sharpen rgb (ffmpeg: unsharp)", "sharpen:amount=1:radius=2:channels=rgb", "unsharp=5:5:1:5:5:1", False),
    ("sharpen luma", "sharpen:amount=1:radius=2", None, False),
    ("vignette", "vignette", None, True),
    ("text timecode (ffmpeg: drawtext)", "text:text={{timecode}}:size=54:box=#00000099",
     "drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:timecode='00\\:00\\:00\\:00':rate=30"
     ":fontsize=54:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=14:x=27:y=27", False),
    ("oldtimes", "oldtimes", None, False),
    ("chain sepia,posterize,threshold", "sepia,posterize=6,threshold", None, True),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def grade_cube():
    """bench/out/grade33.cube: a 33³ grade (every row that runs a LUT reads this one)."""
    os.makedirs(OUT, exist_ok=True)
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
    return cube


def prepare(frames):
    os.makedirs(OUT, exist_ok=True)
    raw = os.path.join(OUT, f"testsrc2-1080p-{frames}.bgra")
    if not os.path.exists(raw):
        run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={W}x{H}:rate=30",
             "-frames:v", str(frames), "-pix_fmt", "bgra", "-f", "rawvideo", raw])
    cube = grade_cube()
    # A 256×128 badge with a soft alpha edge, raw for effects-bench and PNG for ffmpeg.
    badge = os.path.join(OUT, "badge-256x128.bgra")
    badge_png = os.path.join(OUT, "badge.png")
    if not os.path.exists(badge_png):
        px = bytearray()
        for y in range(128):
            for x in range(256):
                edge = min(x, 255 - x, y, 127 - y)
                px += bytes([(x * 7) % 256, 200, 40 + y, min(255, edge * 16)])
        with open(badge, "wb") as f:
            f.write(px)
        run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgra", "-s", "256x128", "-i", badge,
             "-frames:v", "1", badge_png])
    return raw, cube, badge, badge_png


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
    ap.add_argument("--only", help="run only the rows whose label contains this text")
    args = ap.parse_args()
    if args.only:
        CASES[:] = [c for c in CASES if args.only in c[0]]
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
    raw, cube, badge, badge_png = prepare(args.frames)
    files = dict(cube=cube, badge=badge, badge_png=badge_png)

    chains = [c.format(**files) for _, c, _, _ in CASES]
    out = run([bench, raw, str(W), str(H)] + chains, capture_output=True, text=True,
              env={**os.environ, "RUNS": str(args.runs)}).stdout
    ours = {json.loads(l)["chain"]: json.loads(l) for l in out.splitlines() if l.strip()}

    base = []
    theirs = {}
    for _ in range(args.runs):  # interleave so noise hits every filter alike
        base.append(ffmpeg_wall(raw, "null"))
        for label, _, vf, _ in CASES:
            if vf:
                theirs.setdefault(label, []).append(ffmpeg_wall(raw, vf.format(**files)))
    base_med = statistics.median(base)

    build = "portable x86-64 build" if cpu == "portable" else f"effects built with VIDFX_TARGET_CPU={cpu}"
    print(f"1920x1080 testsrc2, {args.frames} frames, medians of {args.runs} runs, {os.cpu_count()} cores, {build}")
    print(f"{'effect':40s} {'vidfx ms':>9s} {'Mpx/s':>8s} {'ffmpeg ms':>10s} {'speed-up':>9s}")
    slowest_part = 0.0
    for label, chain, vf, colour in CASES:
        r = ours[chain.format(**files)]
        line = f"{label:40s} {r['msPerFrame']:9.2f} {r['mpxPerSecond']:8.0f}"
        if vf:
            ff = (statistics.median(theirs[label]) - base_med) / args.frames * 1000
            line += f" {ff:10.2f} {ff / r['msPerFrame']:8.1f}x"
        print(line)
        if label in ("sepia", "posterize", "threshold"):
            slowest_part = max(slowest_part, r["msPerFrame"])
    if slowest_part == 0 or "sepia,posterize=6,threshold" not in ours:
        return
    chain = ours["sepia,posterize=6,threshold"]["msPerFrame"]
    print(f"chain of three colour effects: {chain:.2f} ms = {chain / slowest_part:.2f}x the slowest of them alone")


if __name__ == "__main__":
    main()
