#!/usr/bin/env python3
"""Writes vidfx(1) from the binary's own help and the README's examples, so the page
cannot drift from the tool: NAME, SYNOPSIS (every command's usage), DESCRIPTION (the
overview), COMMANDS (each command's overview and options, as man pages set them),
EXAMPLES (the README's commands), EXIT STATUS, ENVIRONMENT, FILES and SEE ALSO.

    python3 scripts/man-page.py BINARY [README] > vidfx.1
"""
import os, re, subprocess, sys, unicodedata

# What a character reads as on a terminal that cannot show it (man under LANG=C).
ASCII = {"…": "...", "×": "x", "←": "<-", "→": "->", "↑": "^", "↓": "v", "·": ".", "—": "--", "–": "-",
         "≤": "<=", "≥": ">=", "≈": "~", "°": " deg", "²": "^2", "³": "^3", "±": "+/-", "′": "'", "‘": "'",
         "’": "'", "“": '"', "”": '"', "θ": "theta", "σ": "sigma", "µ": "u", "μ": "u", "√": "sqrt", "∞": "inf",
         "€": "EUR", "✓": "v", "⁄": "/", "÷": "/", "−": "-"}

# The exit statuses the commands use (Sources/vidfx: CommandFailure, ExitCode, the parser's).
EXIT_STATUS = [
    ("0", "The work was done."),
    ("1", "It could not be: an input that cannot be read or decoded, an output that cannot be written, "
          "a detector or library that is missing, or (batch) a job that failed. One line on standard error says which and why."),
    ("2", "What was asked does not fit this input or output: a time past the end, an option for another "
          "kind of output, a cut list that cannot be read. Nothing is written."),
    ("64", "The command line is wrong: an unknown option, a value out of its range, a missing argument "
           "(the parser's usage error)."),
    ("128+N", "Ended by signal N (130 for Ctrl-C, 143 for SIGTERM); apply finishes a playable file with what was rendered."),
]

# Every variable the sources read (a test checks the list against them).
ENVIRONMENT = [
    ("VIDFX_FACE_MODEL", "The face detector's model (CenterFace ONNX) to use instead of the installed one."),
    ("VIDFX_FACENET_LIBRARY", "The face network library (libVidfxFaceNet.so, over OpenCV's dnn) to load instead of the installed one."),
    ("VIDFX_VULKAN_LIBRARY", "The Vulkan loader to open for shaders (default libvulkan.so.1)."),
    ("VK_ICD_FILENAMES", "The Vulkan driver manifest, e.g. /usr/share/vulkan/icd.d/lvp_icd.x86_64.json for Mesa's lavapipe on the CPU."),
    ("XDG_CACHE_HOME", "Where compiled shaders are kept (XDG_CACHE_HOME/vidfx/shaders; default ~/.cache/vidfx/shaders)."),
    ("VIDFX_SHADER_FRAME_LIMIT", "Seconds one frame of a shader may take before the run is ended (1 to 3600, default 10)."),
    ("VIDFX_FFMPEG_LOG", "Echo FFmpeg's own log lines at this level: error, warning, info, verbose or debug."),
    ("VIDFX_STUDIO_STOP_GRACE", "Seconds the studio's graceful shutdown gets before it exits anyway (1 to 120, default 2)."),
    ("DISPLAY, WAYLAND_DISPLAY, SDL_VIDEODRIVER", "Where preview opens its window (SDL)."),
    ("TMPDIR", "Where standard input is spooled when it must be read more than once."),
]

FILES = [
    ("PREFIX/share/vidfx/centerface.onnx", "The face detector's model, looked for beside the installed binary."),
    ("PREFIX/lib/vidfx/libVidfxFaceNet.so", "The face network (over OpenCV's dnn), loaded when a command needs faces."),
    ("~/.cache/vidfx/shaders", "Shaders compiled before, each kept with the whole source it was compiled from: a shader is compiled once, not once a run. Safe to delete."),
    ("NAME.redaction.json", "The report that apply and dump write beside a redacted output: every face hidden, and the frames to check."),
    ("OUTPUT/redaction.json", "The same report for dump's folder of frames."),
]


def run(*args):
    return subprocess.run([sys.argv[1], *args], capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "100"}).stdout


def fallback(char):
    if char in ASCII:
        return ASCII[char]
    plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    return plain or "?"


USED = set()


def escape(text):
    # troff: a backslash is \e; a line starting with . or ' would be a request; a hyphen is
    # \- so that options copied from the page are hyphen-minus; anything beyond ASCII is
    # \[uXXXX], which groff shows as itself where it can (UTF-8) and through the fallback
    # the preamble defines where it cannot (LANG=C), never dropped.
    USED.update(c for c in text if ord(c) >= 128)
    out = []
    for line in text.replace("\\", "\\e").replace("-", "\\-").splitlines():
        line = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in line)
        out.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(out)


def sections(help_text):
    """The help's blocks by heading: OVERVIEW, USAGE, ARGUMENTS, OPTIONS… (in order)."""
    found, name, body = [], None, []
    for line in help_text.splitlines():
        m = re.match(r"^([A-Z][A-Z ]*):(?: (.*))?$", line)
        if m:
            if name:
                found.append((name, body))
            name, body = m.group(1), [m.group(2)] if m.group(2) else []
        elif name:
            body.append(line)
    if name:
        found.append((name, body))
    return found


def paragraphs(lines):
    """Text lines to paragraphs (a blank line between), each joined into one line."""
    out, current = [], []
    for line in lines:
        if line.strip():
            current.append(line.strip())
        elif current:
            out.append(" ".join(current))
            current = []
    if current:
        out.append(" ".join(current))
    return out


TAG = re.compile(r"(?:-\w, )?(?:--[\w-]+|-\w|<[^>]+>)(?: <[^>]+>)?(?: \.\.\.)?")


def entries(lines):
    """An ARGUMENTS or OPTIONS block as (tag, description) pairs: a tag starts two spaces
    in, its description after two or more spaces or on the lines under it."""
    out = []
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("  ") and not line.startswith("   "):
            # The tag is the option's syntax (the parser puts one space after a long one).
            m = TAG.match(line.strip())
            tag = m.group(0) if m else re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
            out.append([tag, line.strip()[len(tag):].strip()])
        elif out:
            out[-1][1] = (out[-1][1] + " " + line.strip()).strip()
    return out


def commands(overview):
    lines = overview.splitlines()
    names = []
    if "SUBCOMMANDS:" in lines:
        for line in lines[lines.index("SUBCOMMANDS:") + 1:]:
            words = line.split()
            if not words:
                if names:
                    break
                continue
            if line.startswith("  ") and not line.startswith("    ") and words[0] != "See":
                names.append(words[0])
    return names


def examples(readme):
    """The README's `$ vidfx …` lines, each with the sentence before its block when it has one."""
    if not readme or not os.path.exists(readme):
        return []
    found, block = [], False
    for line in open(readme, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("```"):
            block = not block
            continue
        if block and line.startswith("$ vidfx "):
            found.append(line[2:])
    return found


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    readme = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
    version = run("--version").strip()
    overview = run("--help")
    names = commands(overview)
    helps = {name: sections(run(name, "--help")) for name in names}
    top = dict(sections(overview))

    body = [".SH NAME", "vidfx \\- frames out of video on a timed cadence, through effect shaders", ".SH SYNOPSIS"]
    for name in names:
        usage = " ".join(" ".join(b) for n, b in helps[name] if n == "USAGE").strip()
        usage = usage[len("vidfx "):] if usage.startswith("vidfx ") else usage
        rest = usage[len(name):].strip() if usage.startswith(name) else usage
        body += [".B vidfx", f"\\fB{escape(name)}\\fR {escape(rest)}", ".br"]
    body += [".B vidfx", "\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR | \\fBhelp\\fR \\fICOMMAND\\fR"]

    body += [".SH DESCRIPTION"]
    for text in paragraphs(top.get("OVERVIEW", [])):
        body += [".PP", escape(text)]
    body += [".PP", escape("Each command reads its input (a file, a URL, - for standard input, or a capture device) "
                           "once. Data goes to standard output, messages to standard error; a failure is one line naming "
                           "the input and the cause. Outputs appear whole or not at all, and an existing one is replaced "
                           "only with -y. `vidfx COMMAND --help` prints the part of this page about COMMAND.")]

    body += [".SH COMMANDS"]
    for name in names:
        body += [f".SS {escape(name)}"]
        for heading, lines in helps[name]:
            if heading == "OVERVIEW":
                for text in paragraphs(lines):
                    body += [".PP", escape(text)]
            elif heading in ("ARGUMENTS", "OPTIONS"):
                for tag, text in entries(lines):
                    if tag in ("-h, --help", "--version"):
                        continue
                    body += [".TP", f"\\fB{escape(tag)}\\fR", escape(text)]
            elif heading != "USAGE":
                body += [".PP", f"\\fI{escape(heading.capitalize())}:\\fR"]
                for text in paragraphs(lines):
                    body += [".PP", escape(text)]

    body += [".SH EXAMPLES"]
    for command in examples(readme):
        body += [".PP", ".nf", ".RS 4", escape("$ " + command), ".RE", ".fi"]
    body += [".PP", escape("The files are the source tree's testmedia. More in the guide (docs/guide.md), and every "
                           "command's help in docs/commands.md.")]

    body += [".SH EXIT STATUS"]
    for code, text in EXIT_STATUS:
        body += [".TP", f"\\fB{escape(code)}\\fR", escape(text)]
    body += [".SH ENVIRONMENT"]
    for name, text in ENVIRONMENT:
        body += [".TP", f"\\fB{escape(name)}\\fR", escape(text)]
    body += [".SH FILES"]
    for name, text in FILES:
        body += [".TP", f"\\fI{escape(name)}\\fR", escape(text)]
    body += [".SH SEE ALSO", "\\fBffmpeg\\fR(1), \\fBffprobe\\fR(1), \\fBffplay\\fR(1), \\fBzbarimg\\fR(1)", ".PP",
             escape("The guide, the shader guide and the command reference: docs/guide.md, docs/shaders.md and "
                    "docs/commands.md in the source; the README in /usr/share/doc/vidfx in the package."),
             ".SH VERSION", escape(version), ""]

    page = [f'.TH VIDFX 1 "" "vidfx {version}" "User Commands"']
    # A fallback for each character the output device lacks (groff's ascii device).
    page += [f".if !c\\[u{ord(c):04X}] .char \\[u{ord(c):04X}] {fallback(c)}" for c in sorted(USED)]
    # No hyphenation: a word broken at a line's end would show U+2010, and an option
    # copied from there would not be the option.
    page += [".nh"]
    sys.stdout.write("\n".join(page + body))


if __name__ == "__main__":
    main()
