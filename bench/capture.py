#!/usr/bin/env python3
"""Capture latency: from a change on an Xvfb screen to the first y4m frame that shows it,
vidfx against ffmpeg, same display, same run.

    python3 bench/capture.py [--changes 20] [--size 1280x720]

Starts Xvfb (-noreset) at --size, then for each tool starts a 30 fps capture to a y4m
pipe and, 20 times, paints the screen a new colour with xsetroot and times how long the
first frame in that colour takes to arrive on the pipe (after a frame in the old colour):

    vidfx dump x11grab::N --format bgra -o - --input-option draw_mouse=0
    vidfx preview x11grab::N --sink y4m --input-option draw_mouse=0
    ffmpeg -f x11grab -draw_mouse 0 -framerate 30 -i :N -f yuv4mpegpipe -pix_fmt yuv420p -

Prints the median, the range and the 90th percentile in milliseconds. At 30 fps a frame
lasts 33 ms, so about 17 ms of any figure is the wait for the next capture.
"""
import argparse, os, statistics, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLOURS = ["#FF0000", "#0000FF"]


def raw_frames(pipe, width, height, on_frame):
    """Reads raw BGRA from `pipe`, calling on_frame(blue of the centre pixel) per frame."""
    size = width * height * 4
    while True:
        data = pipe.read(size)
        if len(data) < size:
            return
        on_frame(data[(height // 2 * width + width // 2) * 4])


def frames(pipe, width, height, on_frame):
    """Reads y4m from `pipe`, calling on_frame(mean luma of a centre patch) per frame."""
    header = pipe.readline()
    if not header.startswith(b"YUV4MPEG2"):
        return
    chroma = "420" if b"C420" in header or b" C" not in header else "444"
    size = width * height + (2 * (width // 2) * (height // 2) if chroma == "420" else 2 * width * height)
    while True:
        line = pipe.readline()
        if not line:
            return
        data = pipe.read(size)
        if len(data) < size:
            return
        y = height // 2 * width + width // 2
        on_frame(data[y])


def measure(cmd, display, width, height, changes, reader=None):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lock = threading.Condition()
    state = {"luma": None, "count": 0}

    def seen(luma):
        with lock:
            state["luma"], state["count"] = luma, state["count"] + 1
            lock.notify_all()

    reader = threading.Thread(target=reader or frames, args=(p.stdout, width, height, seen), daemon=True)
    reader.start()
    latencies = []
    try:
        with lock:
            lock.wait_for(lambda: state["count"] >= 10, timeout=30)
        for i in range(changes):
            colour = COLOURS[i % 2]
            with lock:
                before = state["luma"]
            subprocess.run(["xsetroot", "-display", display, "-solid", colour], check=True)
            start = time.monotonic()
            with lock:
                if not lock.wait_for(lambda: state["luma"] is not None and abs(state["luma"] - before) > 20, timeout=5):
                    sys.exit(f"no frame showed {colour}: {' '.join(cmd)}")
                latencies.append((time.monotonic() - start) * 1000)
            time.sleep(0.2)
    finally:
        p.kill()
        p.wait()
    return latencies


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--size", default="1280x720")
    args = ap.parse_args()
    width, height = map(int, args.size.split("x"))
    subprocess.run(["swift", "build", "-c", "release", "--product", "vidfx"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    vidfx = os.path.join(ROOT, ".build", "release", "vidfx")
    number = 150 + os.getpid() % 50
    display = f":{number}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{args.size}x24", "-nolisten", "tcp", "-noreset"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run(["xsetroot", "-display", display, "-solid", COLOURS[1]], stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.05)
        jobs = {
            "vidfx dump --format bgra -o -": ([vidfx, "dump", f"x11grab:{display}", "--format", "bgra", "-o", "-",
                                               "--input-option", "draw_mouse=0"], raw_frames),
            "vidfx preview --sink y4m": [vidfx, "preview", f"x11grab:{display}", "--sink", "y4m", "--input-option", "draw_mouse=0"],
            "ffmpeg x11grab -> yuv4mpegpipe": ["ffmpeg", "-nostdin", "-v", "error", "-f", "x11grab", "-draw_mouse", "0", "-framerate", "30",
                                               "-i", display, "-f", "yuv4mpegpipe", "-pix_fmt", "yuv420p", "-"],
        }
        print(f"{args.size} Xvfb screen, {args.changes} colour changes per tool; milliseconds from xsetroot's return to the first frame showing it")
        for name, job in jobs.items():
            cmd, reader = job if isinstance(job, tuple) else (job, None)
            ms = sorted(measure(cmd, display, width, height, args.changes, reader))
            p90 = ms[int(0.9 * (len(ms) - 1))]
            print(f"{name:34s} median {statistics.median(ms):6.1f}  range {ms[0]:.1f}–{ms[-1]:.1f}  p90 {p90:.1f}")
    finally:
        xvfb.kill()
        xvfb.wait()


if __name__ == "__main__":
    main()
