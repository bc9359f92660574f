#!/usr/bin/env python3
"""Writes vidfx(1) from the binary's own help, so the page cannot drift from the tool:
the overview, then each command's --help, as preformatted sections.

    python3 scripts/man-page.py BINARY > vidfx.1
"""
import subprocess, sys


def run(*args):
    return subprocess.run([sys.argv[1], *args], capture_output=True, text=True, check=True).stdout


def escape(text):
    # troff: a backslash is \e; a line starting with . or ' would be a request.
    out = []
    for line in text.replace("\\", "\\e").splitlines():
        out.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    version = run("--version").strip()
    overview = run("--help")
    commands = []
    lines = overview.splitlines()
    if "SUBCOMMANDS:" in lines:
        for line in lines[lines.index("SUBCOMMANDS:") + 1:]:
            words = line.split()
            if not line.startswith("  ") or not words:
                if commands:
                    break
                continue
            if line.startswith("  ") and not line.startswith("    ") and words[0] != "See":
                commands.append(words[0])
    page = [f'.TH VIDFX 1 "" "vidfx {version}" "User Commands"',
            ".SH NAME", "vidfx \\- frames out of video on a timed cadence, through effect shaders",
            ".SH SYNOPSIS", ".B vidfx", "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
            ".SH DESCRIPTION", ".nf", escape(overview), ".fi"]
    for command in commands:
        page += [f".SH {command.upper()}", ".nf", escape(run(command, "--help")), ".fi"]
    page += [".SH VERSION", version, ""]
    sys.stdout.write("\n".join(page))


if __name__ == "__main__":
    main()
