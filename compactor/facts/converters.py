"""The file a converter command writes (blind check 25, issue 28).

A session whose whole output was files made by ``ffmpeg``, ``cwebp`` and ImageMagick said in
section 3 "No file was created, edited or deleted". :func:`converter_output` reads one shell
segment's words by shape: the last word of ``ffmpeg … -i IN … OUT`` and of ``magick IN … OUT`` /
``convert IN … OUT`` (after any redirection), and the value of ``-o``/``--out``/``--output`` of
the tools that name their output with it (``cwebp IN -o OUT``, ``sips … --out OUT``, ``pandoc``).
An output named by the shell's variables (``"${f%.png}.webp"`` in a loop) is kept as the pattern
it is, with the variables a plain ``NAME=value`` of the same command set filled in
(:func:`fill_assigned`); :func:`is_pattern` says when some are left.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["PATTERN_ACTION", "converter_output", "fill_assigned", "is_pattern"]

PATTERN_ACTION = "written by a loop, one file per value of this name pattern"
"""The action of a converter's output whose name still holds shell variables."""

_LAST_WORD_TOOLS = frozenset({"ffmpeg", "magick", "convert"})
_OPTION_OUT_TOOLS = frozenset({"cwebp", "dwebp", "gif2webp", "img2webp", "sips", "pandoc"})
_OUT_FLAGS = frozenset({"-o", "--out", "--output", "--resampleOut"})
_MAGICK_NOT_WRITING = frozenset({"identify", "compare", "-version", "--version", "mogrify"})
_KEYWORDS = frozenset({"do", "then", "else", "time", "!", "{", "("})
_ASSIGN_RE = lazy_pattern(
    r"^\s*(?:export\s+)?([A-Za-z_]\w*)=(\"[^\"$`]*\"|'[^']*'|[^\s;&|$`]+)\s*$", re.M
)
_VAR_RE = lazy_pattern(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")
_EXT_RE = lazy_pattern(r"\.[A-Za-z0-9]{1,6}$")


def _program(words: list[str]) -> tuple[str, list[str]]:
    """The program of a segment (past ``do``/``then`` and ``NAME=value`` words) and its words."""
    at = 0
    while at < len(words) and (words[at] in _KEYWORDS or re.match(r"^[A-Za-z_]\w*=", words[at])):
        at += 1
    if at >= len(words):
        return "", []
    return words[at].rsplit("/", 1)[-1].removesuffix(".exe"), words[at + 1 :]


def _output_name(word: str) -> str | None:
    """``word`` as a written file: it ends with an extension and is not a device or a stream."""
    if word in ("-", "/dev/null") or word.startswith(("-", "pipe:")):
        return None
    return word if _EXT_RE.search(word) else None


def converter_output(words: list[str]) -> tuple[str, str] | None:
    """(file written, program) for one shell segment's words, or None when the segment is no
    converter writing a file (``ffmpeg -version``, ``magick identify x.png``, ``which cwebp``)."""
    prog, rest = _program(words)
    if prog not in _LAST_WORD_TOOLS and prog not in _OPTION_OUT_TOOLS:
        return None
    rest = [w for w in rest if "<" not in w and ">" not in w and w not in ("&", "&&")]
    if prog in _OPTION_OUT_TOOLS:
        for i, word in enumerate(rest):
            if word in _OUT_FLAGS and i + 1 < len(rest):
                name = _output_name(rest[i + 1])
                return (name, prog) if name else None
            if word.startswith(("--out=", "--output=")):
                name = _output_name(word.split("=", 1)[1])
                return (name, prog) if name else None
        return None
    if not rest or rest[0] in _MAGICK_NOT_WRITING:
        return None
    if prog == "ffmpeg" and "-i" not in rest:
        return None  # ``ffmpeg -encoders``: no input, no output
    last = rest[-1]
    if len(rest) < 2 or rest[-2] == "-i":
        return None
    name = _output_name(last)
    return (name, prog) if name else None


def fill_assigned(path: str, command: str) -> str:
    """``path`` with the ``$NAME``/``${NAME}`` that a plain ``NAME=value`` line of ``command``
    sets (``DIR="/data/out"``) replaced by their value; other variables are left as written."""
    if "$" not in path or "=" not in command:
        return path
    values: dict[str, str] = {}
    for m in _ASSIGN_RE.finditer(command):
        values.setdefault(m.group(1), m.group(2).strip("\"'"))

    def fill(m: re.Match[str]) -> str:
        return values.get(m.group(1) or m.group(2), m.group(0))

    return _VAR_RE.sub(fill, path)


def is_pattern(path: str) -> bool:
    """Whether ``path`` still names shell variables or substitutions (one file per value)."""
    return "$" in path or "`" in path
