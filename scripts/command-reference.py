#!/usr/bin/env python3
"""Writes docs/commands.md, the command reference, from the binary's own help, so it
cannot drift from the tool (a test compares the two):

    python3 scripts/command-reference.py BINARY > docs/commands.md
"""
import subprocess, sys


def run(*args):
    return subprocess.run([sys.argv[1], *args], capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "100"}).stdout


def commands(overview):
    lines = overview.splitlines()
    names = []
    if "SUBCOMMANDS:" in lines:
        for line in lines[lines.index("SUBCOMMANDS:") + 1:]:
            if not line.strip():
                if names:
                    break
                continue
            if line.startswith("  ") and not line.startswith("    ") and line.split()[0] != "See":
                names.append(line.split()[0])
    return names


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    overview = run("--help")
    names = commands(overview)
    out = ["# Command reference", "",
           "Every command's `--help`, as `vidfx` prints it (made by `scripts/command-reference.py`;",
           "`make reference` writes it anew, and a test fails when it differs from the tool).", ""]
    out += [" · ".join(f"[{n}](#vidfx-{n})" for n in names), "", "## vidfx", "", "```text", overview.rstrip(), "```", ""]
    for name in names:
        out += [f"## vidfx {name}", "", "```text", run(name, "--help").rstrip(), "```", ""]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
