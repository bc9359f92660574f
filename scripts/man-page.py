#!/usr/bin/env python3
"""Writes vidfx(1) from the binary's own help, so the page cannot drift from the tool:
the overview, then each command's --help, as preformatted sections.

    python3 scripts/man-page.py BINARY > vidfx.1
"""
import subprocess, sys, unicodedata

# What a character reads as on a terminal that cannot show it (man under LANG=C).
ASCII = {"…": "...", "×": "x", "←": "<-", "→": "->", "↑": "^", "↓": "v", "·": ".", "—": "--", "–": "-",
         "≤": "<=", "≥": ">=", "≈": "~", "°": " deg", "²": "^2", "³": "^3", "±": "+/-", "′": "'", "‘": "'",
         "’": "'", "“": '"', "”": '"', "θ": "theta", "σ": "sigma", "µ": "u", "μ": "u", "√": "sqrt", "∞": "inf",
         "€": "EUR", "✓": "v", "⁄": "/", "÷": "/", "−": "-"}


def run(*args):
    return subprocess.run([sys.argv[1], *args], capture_output=True, text=True, check=True).stdout


def fallback(char):
    if char in ASCII:
        return ASCII[char]
    plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    return plain or "?"


def escape(text, used):
    # troff: a backslash is \e; a line starting with . or ' would be a request; a hyphen is
    # \- so that options copied from the page are hyphen-minus; anything beyond ASCII is
    # \[uXXXX], which groff shows as itself where it can (UTF-8) and through the fallback
    # the preamble defines where it cannot (LANG=C), never dropped.
    used.update(c for c in text if ord(c) >= 128)
    out = []
    for line in text.replace("\\", "\\e").replace("-", "\\-").splitlines():
        line = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in line)
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
    used = set()
    sections = [(None, escape(overview, used))]
    for command in commands:
        sections.append((command, escape(run(command, "--help"), used)))
    page = [f'.TH VIDFX 1 "" "vidfx {version}" "User Commands"']
    # A fallback for each character the output device lacks (groff's ascii device).
    page += [f".if !c\\[u{ord(c):04X}] .char \\[u{ord(c):04X}] {fallback(c)}" for c in sorted(used)]
    page += [
            ".SH NAME", "vidfx \\- frames out of video on a timed cadence, through effect shaders",
            ".SH SYNOPSIS", ".B vidfx", "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
            ".SH DESCRIPTION", ".nf", sections[0][1], ".fi"]
    for command, text in sections[1:]:
        page += [f".SH {command.upper()}", ".nf", text, ".fi"]
    page += [".SH VERSION", version, ""]
    sys.stdout.write("\n".join(page))


if __name__ == "__main__":
    main()
