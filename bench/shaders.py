#!/usr/bin/env python3
"""Users' shaders at 1080p on this machine's Vulkan device (lavapipe without a GPU).

    python3 bench/shaders.py [--runs N] [--binary PATH]
    python3 bench/shaders.py --memory [--minutes 6]

Times, on one 3 s 1920x1080 H.264 clip (testsrc2, made once in bench/out/), decode
included, the frames written to /dev/null as BGRA:
  - vidfx's built-in sepia, pixelate and zoomblur against the same effects as vidfx shader
    files (shaders/sepia.glsl, pixelate.glsl, zoomblur.glsl), the wave (a distortion) and
    the article's Metal sepia (shaders/article.metal#sepiaTone);
  - vidfx running the very hook file FFmpeg is given (without a //!PARAM, which Debian's
    libplacebo cannot read);
  - three shaders in a row (one run on the device: one copy there and one back), the
    same with a vignette between each (run on the device's memory between the dispatches),
    and with built-in layers between (pixelate, zoomblur: on the device's memory too);
  - FFmpeg's libplacebo filter running the same sepia as an mpv hook on the same Vulkan
    device (hwupload, libplacebo=custom_shader_path=…, hwdownload), the issue's peer.
Prints medians and ranges of --runs runs and the ratios, all in one run.

--memory: the shader sepia over a --minutes long 1080p clip (made once), its resident
memory sampled every second from /proc: after the first tenth (the pools filling) the
last fifth's median must be within 4 MiB of the second fifth's; exits 1 when it grew.
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"

HOOK = """//!HOOK MAIN
//!BIND HOOKED
//!DESC sepia
vec4 hook() {
    vec4 c = HOOKED_tex(HOOKED_pos);
    vec3 s = clamp(vec3(dot(c.rgb, vec3(0.393, 0.769, 0.189)), dot(c.rgb, vec3(0.349, 0.686, 0.168)),
                        dot(c.rgb, vec3(0.272, 0.534, 0.131))), 0.0, 1.0);
    return vec4(s, c.a);
}
"""


def timed(command, env=None):
    start = time.monotonic()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)}: {result.stderr.decode(errors='replace')[-500:]}")
    return elapsed


def resident(pid):
    """Resident memory of a live process in MiB, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def memory(args, env):
    clip = os.path.join(OUT, f"testsrc2-1080p-{args.minutes}min.mp4")
    if not os.path.exists(clip):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30:duration={60 * args.minutes}",
                        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip], check=True)
    command = [args.binary, "dump", clip, "-e", "./shaders/sepia.glsl,vignette,./shaders/pixelate.glsl=8", "--format", "bgra",
               "-o", "/dev/null", "-q", "-y"]
    os.chdir(ROOT)
    started = time.monotonic()
    p = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    samples = []
    while p.poll() is None:
        rss = resident(p.pid)
        if rss is not None:
            samples.append((time.monotonic() - started, rss))
        time.sleep(1)
    if p.returncode != 0:
        sys.exit(f"{' '.join(command)}: {p.stderr.read().decode(errors='replace')[-500:]}")
    n = len(samples)
    second = statistics.median(r for _, r in samples[n // 5:2 * n // 5])
    last = statistics.median(r for _, r in samples[4 * n // 5:])
    peak = max(r for _, r in samples)
    print(f"{' '.join(command[1:])}\n  {args.minutes} min of 1080p in {time.monotonic() - started:.0f} s, {n} samples: "
          f"resident median {second:.1f} MiB in the second fifth, {last:.1f} MiB in the last, peak {peak:.1f} MiB")
    if last - second > 4:
        sys.exit(f"  grew by {last - second:.1f} MiB")
    print("  flat")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release", "release", "vidfx"))
    parser.add_argument("--memory", action="store_true", help="resident memory over a long clip, not the timings")
    parser.add_argument("--minutes", type=int, default=6)
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if args.memory:
        env = dict(os.environ)
        if os.path.exists(LAVAPIPE) and "VK_ICD_FILENAMES" not in env:
            env["VK_ICD_FILENAMES"] = LAVAPIPE
        return memory(args, env)
    clip = os.path.join(OUT, "testsrc2-1080p-3s.mp4")
    if not os.path.exists(clip):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=3",
                        "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", clip], check=True)
    env = dict(os.environ)
    if os.path.exists(LAVAPIPE) and "VK_ICD_FILENAMES" not in env:
        env["VK_ICD_FILENAMES"] = LAVAPIPE
    hook = tempfile.NamedTemporaryFile("w", suffix=".hook", delete=False)
    hook.write(HOOK)
    hook.close()

    def vidfx(chain):
        return [args.binary, "dump", clip, "-e", chain, "--format", "bgra", "-o", "/dev/null", "-q", "-y"]

    cases = [
        ("vidfx decode only", vidfx("sepia=0")),
        ("vidfx built-in sepia", vidfx("sepia")),
        ("vidfx shader sepia.glsl", vidfx("./shaders/sepia.glsl")),
        ("vidfx built-in pixelate=8", vidfx("pixelate=8")),
        ("vidfx shader pixelate.glsl", vidfx("./shaders/pixelate.glsl=8")),
        ("vidfx shader wave.glsl", vidfx("./shaders/wave.glsl")),
        ("vidfx built-in zoomblur", vidfx("zoomblur")),
        ("vidfx shader zoomblur.glsl", vidfx("./shaders/zoomblur.glsl")),
        ("vidfx the same sepia hook", vidfx(hook.name)),
        ("vidfx three shaders, one run", vidfx("./shaders/sepia.glsl,./shaders/pixelate.glsl=8,./shaders/wave.glsl")),
        ("vidfx three shaders, vignettes between", vidfx("./shaders/sepia.glsl,vignette,./shaders/pixelate.glsl=8,vignette,./shaders/wave.glsl")),
        ("vidfx three shaders, layers between", vidfx("./shaders/sepia.glsl,pixelate=8,./shaders/zoomblur.glsl,vignette,./shaders/wave.glsl")),
        ("vidfx shader article.metal#sepiaTone", vidfx("./shaders/article.metal#sepiaTone:amount=1")),
        ("ffmpeg libplacebo sepia hook", ["ffmpeg", "-v", "error", "-init_hw_device", "vulkan", "-i", clip, "-vf",
                                          f"hwupload,libplacebo=custom_shader_path={hook.name},hwdownload,format=yuv420p",
                                          "-f", "null", "-"]),
    ]
    os.chdir(ROOT)
    times = {name: [] for name, _ in cases}
    for _ in range(args.runs):
        for name, command in cases:
            times[name].append(timed(command, env))
    os.unlink(hook.name)
    print(f"1920x1080 testsrc2, 90 frames (3 s), decode included, {args.runs} runs, {os.cpu_count()} cores, "
          f"Vulkan: {env.get('VK_ICD_FILENAMES', 'the loader default')}")
    for name, _ in cases:
        t = times[name]
        print(f"  {name:30s} median {statistics.median(t):6.2f} s  ({min(t):.2f}–{max(t):.2f})  "
              f"{1000 * statistics.median(t) / 90:6.1f} ms a frame")
    m = {name: statistics.median(t) for name, t in times.items()}
    print(f"  shader sepia / built-in sepia: {m['vidfx shader sepia.glsl'] / m['vidfx built-in sepia']:.2f}x the time")
    print(f"  shader pixelate / built-in pixelate: {m['vidfx shader pixelate.glsl'] / m['vidfx built-in pixelate=8']:.2f}x the time")
    print(f"  shader zoomblur / built-in zoomblur: {m['vidfx shader zoomblur.glsl'] / m['vidfx built-in zoomblur']:.2f}x the time")
    print(f"  libplacebo hook / shader sepia: {m['ffmpeg libplacebo sepia hook'] / m['vidfx shader sepia.glsl']:.2f}x faster")
    print(f"  libplacebo hook / vidfx running the same hook: {m['ffmpeg libplacebo sepia hook'] / m['vidfx the same sepia hook']:.2f}x faster")


if __name__ == "__main__":
    main()
