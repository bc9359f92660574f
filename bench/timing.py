"""What the same-run benchmarks share: the release build and timing one command."""
import os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")


def release_vidfx():
    """Builds the release CLI (untuned, as `swift build -c release` does) and returns its path."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "vidfx"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "release", "vidfx")


def wall(cmd):
    """Wall seconds of one run of `cmd`; exits with its stderr if it fails."""
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.decode(errors='replace')}")
    return time.monotonic() - start
