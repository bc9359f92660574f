#!/usr/bin/env python3
"""Hostile inputs for vidfx, as a habit: mutated media files and hostile command lines.

    python3 bench/fuzz.py [--cases 1000] [--seed 1] [--jobs 2] [--binary PATH] [--timeout 30]

Each case runs one vidfx command (probe, dump or apply) on a mutated copy of a testmedia
clip (bit flips, truncation, overwritten runs, duplicated chunks, corrupted MP4 box
sizes, garbage inserted), or one hostile command line (numbers at and past every limit,
broken chains, odd .cube files), with a time limit. Every outcome must be one of:
  ok     exit 0
  clean  exit 1, 2 or 64 with one line on stderr naming the input or option
and never:
  crash  a signal, an exit of 128 or more, "Fatal error", or a sanitizer report
  hang   still running at the time limit
  messy  a failure that says nothing, or more than one line
Crashers, hangs and messy cases are kept under bench/out/fuzz/ with their command line,
to become regression tests. Use the AddressSanitizer build (make fuzz builds it):
the default binary is .build-asan/debug/vidfx when it exists.
"""
import argparse, concurrent.futures, os, random, shutil, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDIA = os.path.join(ROOT, "testmedia")
SEEDS = ["h264-30fps.mp4", "h264-30fps-faststart.mp4", "h264-noaudio.mp4", "vp9-opus.webm", "vfr.mp4", "rotated90.mp4",
         "odd-161x121-sar4x3.mp4", "bars-bt709-10bit.mp4", "one-frame.mp4", "still.png", "still.jpg", "audio-only.m4a",
         "hlg-10bit.mkv", "interlaced.ts", "alpha-vp9.webm"]
BOXES = [b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsz", b"stco", b"stts", b"stsc", b"stss", b"mdat", b"ftyp",
         b"mvhd", b"tkhd", b"hdlr", b"avcC", b"esds", b"elst", b"ctts"]
# Numbers at and past every bound the command line has (issue 18's table and more).
NUMBERS = ["0", "-1", "-0", "1e16", "1e308", "nan", "inf", "-inf", "9223372036854775807", "-9223372036854775808",
           "18446744073709551616", "30.000000001", "1/3000000000", "1/-9223372036854775808", "0/0", "1/0", "600000000000000",
           "99999999999:59:59", "1:-1", ":", ",,", "0.0000001", "2147483648", "65536", "1e-300"]
OPTIONS = {"probe": [], "dump": ["--fps", "--start", "--duration", "--loop", "--frames", "--at", "--quality", "--timeout"],
           "apply": ["--fps", "--start", "--duration", "--loop", "--crf", "--bitrate", "--size", "--timeout"],
           "scenes": ["--threshold", "--min-scene-len", "--start", "--duration", "--analysis-width", "--timeout"],
           "storyboard": ["--interval", "--width", "--start", "--duration", "--quality"],
           "sheet": ["--width", "--start", "--duration"]}
CHAINS = ["crop:rect={n},0,0,0", "crop:rect=0,0,{n},{n}", "pixelate={n}", "sepia={n}", "overlay:file=testmedia/still.png:x={n}",
          "posterize:levels={n}", "zoomblur:amount={n}", "kaleidoscope:count={n}", "temperature:neutral={n}",
          "tonecurve:p1={n},0.2", "whitepoint={n}", "lut:file={cube}", "colormatrix:r={n},0,0,0", ",,,", "sepia=,", "=", ":::"]


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    d = bytearray(data)
    kind = rng.choice(["flip", "truncate", "overwrite", "duplicate", "boxsize", "insert"])
    if kind == "flip":
        for _ in range(rng.randint(1, 64)):
            i = rng.randrange(len(d))
            d[i] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        d = d[: rng.randrange(max(1, len(d)))]
    elif kind == "overwrite":
        i = rng.randrange(len(d))
        d[i:i + rng.randint(1, 4096)] = rng.randbytes(rng.randint(1, 4096))
    elif kind == "duplicate":
        i, j = rng.randrange(len(d)), rng.randrange(len(d))
        d[j:j] = d[i:i + rng.randint(1, 8192)]
    elif kind == "boxsize":
        spots = [i - 4 for b in BOXES for i in _find_all(d, b) if i >= 4]
        if spots:
            i = rng.choice(spots)
            d[i:i + 4] = struct.pack(">I", rng.choice([0, 1, 7, 8, 0xFFFFFFFF, 0x7FFFFFFF, rng.randrange(1 << 32)]))
        else:
            kind = "flip"
            d[rng.randrange(len(d))] ^= 0xFF
    else:
        i = rng.randrange(len(d))
        d[i:i] = rng.randbytes(rng.randint(1, 2048))
    return bytes(d), kind


def _find_all(d: bytearray, needle: bytes):
    i = d.find(needle)
    while i >= 0:
        yield i
        i = d.find(needle, i + 1)


def hostile_cube(path: str, rng: random.Random):
    kind = rng.choice(["flat", "nan", "inf", "short", "huge"])
    grid = "\n".join("0 0 0" for _ in range(8))
    text = {"flat": f"LUT_3D_SIZE 2\nDOMAIN_MIN 0.5 0.5 0.5\nDOMAIN_MAX 0.5 0.5 0.5\n{grid}\n",
            "nan": f"LUT_3D_SIZE 2\nDOMAIN_MIN nan 0 0\n{grid}\n", "inf": f"LUT_3D_SIZE 2\n{grid.replace('0 0 0', 'inf 0 0', 1)}\n",
            "short": "LUT_3D_SIZE 2\n0 0 0\n", "huge": "LUT_3D_SIZE 100000\n"}[kind]
    with open(path, "w") as f:
        f.write(text)


def build_case(n: int, seed: int, work: str) -> dict:
    rng = random.Random(seed * 1_000_003 + n)
    case_dir = os.path.join(work, f"case{n}")
    os.makedirs(case_dir)
    command = rng.choice(["probe", "dump", "dump", "apply", "scenes", "storyboard", "sheet"])
    if rng.random() < 0.75:
        name = rng.choice(SEEDS)
        with open(os.path.join(MEDIA, name), "rb") as f:
            data, how = mutate(f.read(), rng)
        ext = os.path.splitext(name)[1]
        inp = os.path.join(case_dir, "input" + ext)
        with open(inp, "wb") as f:
            f.write(data)
        args, what = [inp], f"{how} of {name}"
        # Damaged media through the seek path too (key frame search, skipped pictures).
        if command not in ("probe", "scenes") and rng.random() < 0.4:
            if command == "dump" and rng.random() < 0.5:
                # One time, or several (after the first, one decoder seeks from time to time).
                args += ["--at", ",".join(f"{rng.uniform(0, 3):.3f}" for _ in range(rng.randint(1, 4)))]
            else:
                args += ["--start", f"{rng.uniform(0, 3):.3f}"]
            what += " with a seek"
    else:
        inp = os.path.join(MEDIA, rng.choice(["h264-30fps.mp4", "h264-noaudio.mp4", "vp9-opus.webm"]))
        args, what = [inp], "hostile command line"
        for _ in range(rng.randint(1, 3)):
            opts = OPTIONS[command]
            if opts and rng.random() < 0.7:
                option, value = rng.choice(opts), rng.choice(NUMBERS)
                # A valid but large count is a long render, not a hang: keep the work small.
                if option in ("--loop", "--frames") and value.isdigit() and 50 < int(value) <= 100_000_000:
                    value = "50"
                args += [option, value]
            elif command in ("dump", "apply"):
                cube = os.path.join(case_dir, "x.cube")
                hostile_cube(cube, rng)
                args += ["-e", rng.choice(CHAINS).format(n=rng.choice(NUMBERS), cube=cube)]
    if command == "dump":
        args += ["-o", os.path.join(case_dir, "frames"), "--format", rng.choice(["png", "bgra", "jpg"])]
        if "--frames" not in args and "--at" not in args:
            args += ["--frames", "8"]
    elif command == "scenes":
        args += ["--detector", rng.choice(["content", "adaptive", "threshold", "hash", "histogram"]), "--json"]
    elif command == "storyboard":
        args += ["-o", os.path.join(case_dir, "board"), "--tile", rng.choice(["5x5", "1x1", "3x2"])] + (["--exact"] if rng.random() < 0.3 else [])
    elif command == "sheet":
        args += ["-o", os.path.join(case_dir, "sheet.png"), "--grid", rng.choice(["2x2", "3x1"])]
    elif command == "apply":
        args += ["-o", os.path.join(case_dir, "out." + rng.choice(["mp4", "mkv", "webm", "ts"])), "--preset", "ultrafast"]
        if "--duration" not in args:
            args += ["--duration", "0.5"]
    return {"n": n, "command": [command] + args, "what": what, "dir": case_dir}


def run_case(binary: str, case: dict, timeout: float) -> tuple[str, dict]:
    # Leaks count as sanitizer reports, less the known ones in libraries (.lsan-suppressions).
    env = dict(os.environ, ASAN_OPTIONS="abort_on_error=0",
               LSAN_OPTIONS=f"suppressions={os.path.join(ROOT, '.lsan-suppressions')}:print_suppressions=0")
    try:
        p = subprocess.run([binary] + case["command"], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "hang", case
    err = p.stderr.decode("utf-8", "replace")
    case["status"], case["stderr"] = p.returncode, err[-4000:]
    if p.returncode < 0 or p.returncode >= 128 or "Sanitizer" in err or "Fatal error" in err:
        return "crash", case
    if p.returncode == 0:
        return "ok", case
    lines = [l for l in err.splitlines() if not l.startswith("vidfx: warning:")]
    if p.returncode in (1, 2, 64) and len(lines) == 1 and lines[0].startswith("vidfx: "):
        return "clean", case
    return "messy", case


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=30)
    asan = os.path.join(ROOT, ".build-asan/debug/vidfx")
    ap.add_argument("--binary", default=asan if os.path.exists(asan) else os.path.join(ROOT, ".build/debug/vidfx"))
    a = ap.parse_args()
    keep = os.path.join(ROOT, "bench/out/fuzz")
    os.makedirs(keep, exist_ok=True)
    counts = {k: 0 for k in ["ok", "clean", "crash", "hang", "messy"]}
    kept = []
    with tempfile.TemporaryDirectory(prefix="vidfx-fuzz-") as work:
        cases = [build_case(n, a.seed, work) for n in range(a.cases)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for i, (verdict, case) in enumerate(pool.map(lambda c: run_case(a.binary, c, a.timeout), cases)):
                counts[verdict] += 1
                if verdict in ("crash", "hang", "messy"):
                    dest = os.path.join(keep, f"seed{a.seed}-case{case['n']}-{verdict}")
                    shutil.rmtree(dest, ignore_errors=True)
                    shutil.copytree(case["dir"], dest)
                    with open(os.path.join(dest, "README"), "w") as f:
                        f.write(f"{verdict}: {case['what']}\nvidfx {' '.join(case['command'])}\n"
                                f"status {case.get('status')}\n{case.get('stderr', '')}\n")
                    kept.append(dest)
                    print(f"{verdict}: case {case['n']} ({case['what']}): vidfx {' '.join(case['command'])}", file=sys.stderr)
                shutil.rmtree(case["dir"], ignore_errors=True)
                if (i + 1) % 100 == 0:
                    print(f"... {i + 1} cases", file=sys.stderr)
    print(f"fuzz: {a.cases} cases with {os.path.relpath(a.binary, ROOT)}, seed {a.seed}: {counts['ok']} ok, {counts['clean']} clean errors, "
          f"{counts['crash']} crashes, {counts['hang']} hangs, {counts['messy']} messy")
    for k in kept:
        print(f"kept {os.path.relpath(k, ROOT)}")
    sys.exit(1 if counts["crash"] or counts["hang"] else 0)


if __name__ == "__main__":
    main()
