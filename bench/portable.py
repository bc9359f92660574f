#!/usr/bin/env python3
"""What a library dependent loses: effects-bench built portable against built tuned.

    python3 bench/portable.py [--frames 20] [--runs 5] [--cpu haswell|native] [--only NAME ...]

A package that depends on vidfx cannot pass it unsafe flags, so it gets the portable
build (baseline x86-64). This builds effects-bench both ways (release; the portable one
in .build, the tuned one in .build-CPU), runs them in turn on the same 1080p frames as
bench/effects.py, `runs` times each, and prints per effect the medians, the ranges and
portable / tuned, of the medians and of the fastest runs. The goal for every effect is
≤ 1.10.
"""
import argparse, json, os, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import effects  # noqa: E402  (same cases and frames)

ROOT = effects.ROOT


def build(cpu):
    scratch = ".build" if cpu == "portable" else f".build-{cpu}"
    env = {k: v for k, v in os.environ.items() if k != "VIDFX_TARGET_CPU"}
    if cpu != "portable":
        env["VIDFX_TARGET_CPU"] = cpu
    effects.run(["swift", "build", "-c", "release", "--product", "effects-bench", "--scratch-path", scratch],
                cwd=ROOT, stdout=subprocess.DEVNULL, env=env)
    return os.path.join(ROOT, scratch, "release", "effects-bench")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cpu", choices=["haswell", "native"], default="haswell")
    ap.add_argument("--only", nargs="*", help="labels (prefixes) of bench/effects.py's cases")
    args = ap.parse_args()
    binaries = {"portable": build("portable"), "tuned": build(args.cpu)}
    raw, cube, badge, badge_png = effects.prepare(args.frames)
    files = dict(cube=cube, badge=badge, badge_png=badge_png)
    cases = [(label, chain.format(**files)) for label, chain, _, _ in effects.CASES
             if not args.only or any(label.startswith(o) for o in args.only)]
    times = {kind: {chain: [] for _, chain in cases} for kind in binaries}
    for _ in range(args.runs):  # alternate the builds so the machine's noise hits both
        for kind, exe in binaries.items():
            out = effects.run([exe, raw, str(effects.W), str(effects.H)] + [c for _, c in cases],
                              capture_output=True, text=True, env={**os.environ, "RUNS": "3"}).stdout
            for line in out.splitlines():
                r = json.loads(line)
                times[kind][r["chain"]].append(r["msPerFrame"])
    print(f"1920x1080 testsrc2, {args.frames} frames, {args.runs} runs of each build alternating, "
          f"{os.cpu_count()} cores; tuned = VIDFX_TARGET_CPU={args.cpu}")
    # Medians, and the fastest run of each: on a shared machine the noise only ever adds
    # time, so the fastest runs compare the code itself best.
    print(f"{'effect':40s} {'portable ms':>19s} {'tuned ms':>19s} {'p/t medians':>12s} {'p/t fastest':>12s}")
    worst = (0.0, "")
    for label, chain in cases:
        p, t = times["portable"][chain], times["tuned"][chain]
        ratio, best = statistics.median(p) / statistics.median(t), min(p) / min(t)
        worst = max(worst, (best, label))
        print(f"{label:40s} {statistics.median(p):6.2f} ({min(p):.2f}-{max(p):.2f}) "
              f"{statistics.median(t):6.2f} ({min(t):.2f}-{max(t):.2f}) {ratio:12.2f} {best:12.2f}")
    print(f"worst (fastest runs): {worst[1]} at {worst[0]:.2f}")


if __name__ == "__main__":
    main()
