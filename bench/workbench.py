#!/usr/bin/env python3
"""The studio's shader workbench, measured through its API.

    python3 bench/workbench.py [--runs 9] [--binary PATH]

Starts `vidfx studio` on the 1080p bench clip (bench/out/testsrc2-1080p-3s.mp4, made by
bench/shaders.py) with a fresh shader cache, then:
  typing     each run POSTs the colour template with one more comment line (a new text,
             as a keystroke makes: the compiler runs every time) and asks for the paused
             still through it, as the page does 300 ms after the last key: the compile,
             the still, and both;
  runaway    a shader in an endless loop asked for as a still; while it runs out its 10 s
             limit, /api/info every 100 ms: how long each took (the issue's wall: 100 ms),
             and how long the still took to be refused and the next still to come.
Prints medians and ranges.
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIP = os.path.join(ROOT, "bench/out/testsrc2-1080p-3s.mp4")

TEMPLATE = """uniform float amount; // range 0…1; default 1
vec4 effect(vec2 position, vec4 color) {
    return vec4(mix(color.rgb, 1.0 - color.rgb, amount), color.a);
}
"""
RUNAWAY = ("#define STEP x = fract(sin(x * 12.9898 + 1.0) * 43758.5453);\n"
           "#define S8 STEP STEP STEP STEP STEP STEP STEP STEP\n#define S64 S8 S8 S8 S8 S8 S8 S8 S8\n"
           "vec4 effect(vec2 p, vec4 c) { float x = c.r; for (int j = 0; j < 60000; j++) { S64 S64 S64 S64 } return vec4(x, c.g, c.b, 1.0); }\n")


def summary(values, unit="ms"):
    values = sorted(values)
    return f"median {statistics.median(values):7.1f} {unit}  ({values[0]:.1f}–{values[-1]:.1f}, n={len(values)})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release", "release", "vidfx"))
    args = parser.parse_args()
    if not os.path.exists(CLIP):
        sys.exit(f"{CLIP}: run bench/shaders.py once first (it makes the clip)")
    work = tempfile.mkdtemp(prefix="vidfx-workbench-")
    os.makedirs(os.path.join(work, "out"))
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
    env.setdefault("VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
    studio = subprocess.Popen([args.binary, "studio", CLIP, "--no-browser", "--outputs", os.path.join(work, "out")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        line = studio.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/#token=(\w+)", line)
        if not match:
            sys.exit(f"the studio did not start: {line}")
        base, token = f"http://127.0.0.1:{match.group(1)}", match.group(2)

        def request(path, body=None):
            headers = {"Authorization": f"Bearer {token}"}
            if body is not None:
                headers["Content-Type"] = "application/json"
            started = time.monotonic()
            r = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(), headers=headers)
            try:
                with urllib.request.urlopen(r, timeout=120) as f:
                    status, data = f.status, f.read()
            except urllib.error.HTTPError as e:
                status, data = e.code, e.read()
            return status, data, (time.monotonic() - started) * 1000

        compiles, stills, both = [], [], []
        for i in range(args.runs):
            text = TEMPLATE + "// " + "typed " * (i + 1) + "\n"
            status, data, compiled = request("/api/shader", {"name": "typed.glsl", "source": text})
            if status != 200:
                sys.exit(f"compile: {status} {data[:200]}")
            status, data, still = request("/api/frame?t=1&format=bmp&chain=typed.glsl")
            if status != 200:
                sys.exit(f"still: {status} {data[:200]}")
            compiles.append(compiled); stills.append(still); both.append(compiled + still)
        print(f"1920x1080, {os.cpu_count()} cores, {args.runs} edits of the colour template")
        print(f"  typing: compile      {summary(compiles)}")
        print(f"  typing: still        {summary(stills)}")
        print(f"  typing: both         {summary(both)}")

        status, _, _ = request("/api/shader", {"name": "loop.glsl", "source": RUNAWAY})
        outcome = {}

        def runaway():
            outcome["still"] = request("/api/frame?t=1&format=bmp&chain=loop.glsl")

        thread = threading.Thread(target=runaway)
        thread.start()
        time.sleep(0.5)
        infos = []
        while thread.is_alive():
            infos.append(request("/api/info")[2])
            time.sleep(0.1)
        thread.join()
        refused, said, took = outcome["still"]
        after = request("/api/frame?t=1.5&format=bmp&chain=sepia")[2]
        print(f"  runaway: still refused {refused} after {took / 1000:.1f} s: {json.loads(said).get('error', '')}")
        print(f"  runaway: /api/info   {summary(infos)}")
        print(f"  runaway: the next still {after:.0f} ms")
    finally:
        studio.terminate()
        studio.wait(timeout=10)


if __name__ == "__main__":
    main()
