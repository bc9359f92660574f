#!/usr/bin/env python3
"""Every row of the performance goals (issue 30): vidfx against ffmpeg 5.1, time and peak memory, same run.

    python3 bench/performance.py [--runs 3] [--long-minutes 6] [--only NAME ...]

Builds vidfx in release (tuned for this CPU, as `make build`), makes the clips under
bench/out/, then for each row alternates the vidfx command and the ffmpeg command doing
the same job, `runs` times, and prints medians (and ranges) of wall time and peak RSS
with vidfx / ffmpeg for both. Rows and goals:

    decode-1080p   dump --format bgra → /dev/null      vs  -vf fps,format=bgra -an -f null    ≤ 0.90× time
    decode-4k      the same at 3840x2160                                                       ≤ 0.85× time
    apply          apply -e sepia (x264 veryfast, crf 23, audio copied)  vs  ffmpeg's chain
    x264-alone     apply -e sepia  vs  ffmpeg feeding x264 the decoded YUV (the encoder's cost) ≤ 1.05× time
    png-720p       dump PNG frames at 720p              vs  ffmpeg's PNG encoder
    lut            dump -e lut (33³, decode included)   vs  lut3d
    long           N minutes of 1080p → BGRA            vs  ffmpeg
    hdr-phone      2.5 s rotated 10-bit HLG HEVC → BGRA vs  zscale + tonemap                 ≥ 3× speed
Every row: peak RSS ≤ 1.1× ffmpeg's.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import OUT, ROOT  # noqa: E402
from decode import measure  # noqa: E402  (wall seconds and peak RSS of one run)
from effects import grade_cube  # noqa: E402  (the LUT every bench reads)

SEPIA = "colorchannelmixer=rr=.393:rg=.769:rb=.189:gr=.349:gg=.686:gb=.168:br=.272:bg=.534:bb=.131"
HDR_CHAIN = ("zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,"
             "tonemap=tonemap=mobius:desat=0:peak=4.93,zscale=t=bt709:m=bt709:r=pc,format=bgra")


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], check=True)


def testsrc(name, size, seconds, rate=30):
    """testsrc2 H.264 (veryfast, crf 23) with a 48 kHz AAC sine."""
    path = os.path.join(OUT, name)
    if not os.path.exists(path):
        os.makedirs(OUT, exist_ok=True)
        ffmpeg("-f", "lavfi", "-i", f"testsrc2=size={size}:rate={rate}:duration={seconds}",
               "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
               "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p",
               "-c:a", "aac", "-shortest", path + ".part.mp4")
        os.rename(path + ".part.mp4", path)
    return path


def phone_hdr():
    """A phone-like clip: 2.5 s of 1080p30 10-bit HLG HEVC from the crowd footage, stored
    landscape with a 90° display rotation (as phones shoot portrait)."""
    path = os.path.join(OUT, "phone-hlg-rotated-2.5s.mov")
    if not os.path.exists(path):
        os.makedirs(OUT, exist_ok=True)
        plain = path + ".plain.mov"
        ffmpeg("-stream_loop", "-1", "-i", os.path.join(ROOT, "testmedia", "crowd.mp4"), "-t", "2.5", "-vf",
               "scale=1920:1080,setsar=1,format=yuv444p16le,"
               "zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=arib-std-b67:m=bt2020nc:p=bt2020:r=tv:npl=203,format=yuv420p10le",
               "-c:v", "libx265", "-preset", "fast", "-crf", "20", "-tag:v", "hvc1",
               "-x265-params", "log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
               "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", plain)
        ffmpeg("-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", path)
        os.remove(plain)
    return path


def rows(vidfx, long_minutes, scratch):
    nul = ["-f", "null", "-"]
    ff = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
    c1080, c4k = testsrc("testsrc2-1080p30-10s.mp4", "1920x1080", 10), testsrc("testsrc2-2160p30-5s.mp4", "3840x2160", 5)
    c720 = testsrc("testsrc2-720p30-10s.mp4", "1280x720", 10)
    lut = grade_cube()
    enc = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"]
    v_mp4, f_mp4 = os.path.join(scratch, "v.mp4"), os.path.join(scratch, "f.mp4")
    v_png, f_png = os.path.join(scratch, "vpng"), os.path.join(scratch, "fpng")
    yield ("decode-1080p", [vidfx, "dump", c1080, "--format", "bgra", "-o", "/dev/null", "-q"],
           ff + ["-i", c1080, "-an", "-vf", "fps=30:round=up,format=bgra"] + nul, 0.90)
    yield ("decode-4k", [vidfx, "dump", c4k, "--format", "bgra", "-o", "/dev/null", "-q"],
           ff + ["-i", c4k, "-an", "-vf", "fps=30:round=up,format=bgra"] + nul, 0.85)
    yield ("apply", [vidfx, "apply", c1080, "-e", "sepia", "-o", v_mp4, "-y", "-q"],
           ff + ["-i", c1080, "-vf", f"fps=30:round=up,format=bgra,{SEPIA},format=yuv420p"] + enc + [f_mp4], None)
    yield ("x264-alone", [vidfx, "apply", c1080, "-e", "sepia", "-o", v_mp4, "-y", "-q"],
           ff + ["-i", c1080] + enc + [f_mp4], 1.05)
    yield ("png-720p", ["sh", "-c", f'rm -rf "{v_png}" && exec "{vidfx}" dump "{c720}" -o "{v_png}" -q'],
           ["sh", "-c", f'rm -rf "{f_png}" && mkdir -p "{f_png}" && exec ffmpeg -nostdin -v error -i "{c720}" '
                        f'-vf fps=30:round=up "{f_png}/%06d.png"'], None)
    yield ("lut", [vidfx, "dump", c1080, "-e", f"lut:file={lut}", "--format", "bgra", "-o", "/dev/null", "-q"],
           ff + ["-i", c1080, "-an", "-vf", f"fps=30:round=up,format=rgb24,lut3d=file={lut}:interp=tetrahedral,format=bgra"] + nul,
           None)
    if long_minutes > 0:
        long = testsrc(f"testsrc2-1080p30-{long_minutes}min.mp4", "1920x1080", long_minutes * 60)
        yield ("long", [vidfx, "dump", long, "--format", "bgra", "-o", "/dev/null", "-q"],
               ff + ["-i", long, "-an", "-vf", "fps=30:round=up,format=bgra"] + nul, None)
    phone = phone_hdr()
    yield ("hdr-phone", [vidfx, "dump", phone, "--format", "bgra", "-o", "/dev/null", "-q"],
           ff + ["-i", phone, "-an", "-vf", f"fps=30:round=up,{HDR_CHAIN}"] + nul, 1 / 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--long-minutes", type=int, default=6)
    ap.add_argument("--only", nargs="*", help="row names")
    ap.add_argument("--vidfx", help="a vidfx binary to use instead of building one")
    args = ap.parse_args()
    vidfx = args.vidfx
    if not vidfx:
        cpu = "haswell" if " avx2" in open("/proc/cpuinfo").read() else ""
        subprocess.run(["make", "-s", "build", f"TARGET_CPU={cpu}"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        vidfx = os.path.join(ROOT, ".build-release", "release", "vidfx")
    scratch = tempfile.mkdtemp(prefix="vidfx-perf-")
    print(f"{os.cpu_count()} cores, {args.runs} runs each (vidfx and ffmpeg alternating); medians (ranges)")
    print(f"{'row':13s} {'vidfx s':>20s} {'ffmpeg s':>20s} {'time v/f':>9s} {'goal':>6s} "
          f"{'vidfx MiB':>10s} {'ffmpeg MiB':>11s} {'mem v/f':>8s}")
    try:
        for name, mine, theirs, goal in rows(vidfx, args.long_minutes, scratch):
            if args.only and name not in args.only:
                continue
            v, f = [], []
            for _ in range(args.runs):
                v.append(measure(mine))
                f.append(measure(theirs))

            def cell(runs, i):
                xs = [r[i] for r in runs]
                return statistics.median(xs), f"{statistics.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"
            vt, vts = cell(v, 0)
            ft, fts = cell(f, 0)
            vm, ft_m = statistics.median(r[1] for r in v), statistics.median(r[1] for r in f)
            goal_text = "" if goal is None else f"≤{goal:.2f}"
            print(f"{name:13s} {vts:>20s} {fts:>20s} {vt / ft:8.2f}× {goal_text:>6s} {vm:10.0f} {ft_m:11.0f} {vm / ft_m:7.2f}×",
                  flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
