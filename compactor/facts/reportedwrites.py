"""Files a program's own output says it wrote (blind check 40, W4).

cx-msr: a spec-kit setup script run through the shell tool printed "Copied plan template to
/home/…/specs/001-user-login/plan.md" (after an "ERROR: Multiple spec directories found" line)
and so replaced plan.md, yet section 3 said "No file was created, edited or deleted. – Read, not
changed: …/plan.md": writes were read only from edit tools and from the command's own text.

:func:`reported_writes` reads the output of a shell call by shape: a line that starts (after log
prefixes such as ``[INFO]``, ``✓``, ``==>``) with a write verb and names a file (absolute or
relative; its name has an extension, or is ``Makefile``-like: never a folder, a URL or a word):

* ``Copied|Saved|Wrote|Written|Exported X to PATH`` (also ``-> PATH``, ``into PATH``; X a few
  words, not "N files" or a folder);
* ``Created|Wrote|Writing|Saved|Generated|Generating [new] [file] PATH`` (and ``Saved to PATH``,
  ``Wrote to PATH``); a lower-case verb counts except for the ``-ing`` forms (setuptools'
  "writing x.egg-info/PKG-INFO" is build noise).

Never from a call that only reads (``cat``/``grep``/``sed -n`` of a log holding such lines:
:func:`.commands.is_reading_call`, a shell wrapper's script too), nor from a line the command
itself holds (``echo "Created a/b.txt"`` prints the agent's own words). A cheap substring
prefilter skips the output of most calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compactor._util import lazy_pattern

from .commands import command_of, is_reading_call
from .outcomes import scan_window, strip_output_header
from .patterns import clean_path
from .text import Call
from .wrappedread import is_wrapped_read

__all__ = ["Reported", "reported_writes"]

_HINTS = ("opied", "reated", "rote", "ritten", "riting", "aved", "enerat", "xported", "Output")
"""Parts of the verbs, both cases (``Copied``/``copied``): most outputs hold none."""
_PREFIX = (
    r"(?:\[[^\]\n]{1,24}\]|[^\x00-\x7f\w\s]{1,2}|[=-]{1,3}>|>>>"
    r"|(?:INFO|NOTE|OK|DONE|SUCCESS|info|note|ok|done|success)\b:?|\d\d:\d\d:\d\d[\d.,]*)"
)
"""A log prefix: ``[INFO]``, ``✓``, ``==>``, ``INFO:``, a time of day; never a markdown
bullet or heading (``- Created x.ts`` in a pull request's text is no report of this call)."""
_PATH = r"""(?:(['"`])(?P<q>[^'"`\n]{1,400})\1|(?P<w>[^\s'"`]{1,400}))"""
_REPORT_RE = lazy_pattern(
    rf"^[ \t]*(?:{_PREFIX}[ \t]*){{0,3}}"
    r"(?:(?P<label>Output(?:[ \t]file)?|Saved[ \t]to|Written[ \t]to|Wrote)[ \t]*:[ \t]*"
    r"|(?P<copy>[Cc]opied|[Ss]aved|[Ww]rote|[Ww]ritten|[Ee]xported)[ \t]"
    r"(?P<what>(?:[^\s:;,!?]{1,60}[ \t]){0,6}?)(?:to|->|→|into)[ \t]+"
    r"|(?P<verb>[Cc]reated|[Ww]rote|Writing|[Ss]aved|[Gg]enerated|Generating)[ \t]+"
    r"(?:to[ \t]+)?(?P<new>(?:the[ \t]+)?new[ \t]+)?(?:file:?[ \t]+)?"
    r"|(?P<mid>[A-Z][^\n:]{0,60}?[ \t](?:written|saved)[ \t]+to)[ \t]+)"
    + _PATH
    + r"[ \t.:…\r]*(?:$|[ \t(]|\.\.\.)",
    re.MULTILINE,
)
_FUTURE = frozenset("will would should be not never can cannot nothing no wasn't".split())
"""Words that make ``… written to PATH`` a plan or a negation, no report of a write."""
_NOT_FILES = ("files", "folder", "directory", "directories", "dir")
_EXT_RE = lazy_pattern(r"\.[A-Za-z][A-Za-z0-9_-]{0,9}$")
_BARE_NAMES = frozenset("Makefile Dockerfile Justfile Gemfile Rakefile Procfile LICENSE".split())
"""File names without an extension that a report may name."""


@dataclass(frozen=True, slots=True)
class Reported:
    """One write a call's output reports."""

    path: str
    created: bool
    """The line says the file is new (``Created PATH``, ``Wrote new file PATH``)."""
    line: str
    said: str
    """The words before the path (``Copied plan template to``)."""


def _file_path(raw: str) -> str | None:
    path = raw.strip().rstrip(".,:;…)")
    if not path or path.endswith(("/", "\\")) or "://" in path or "$" in path or "*" in path:
        return None
    last = path.replace("\\", "/").rsplit("/", 1)[-1]
    if _EXT_RE.search(last) is None and last not in _BARE_NAMES:
        return None  # a word (``Created branch``) or a folder (``Created /srv/app``)
    return clean_path(path)


def reported_writes(call: Call, text: str) -> list[Reported]:
    """The files ``call``'s output ``text`` says it wrote (see the module doc), in order, each
    once; empty for a call that is no shell command or only reads."""
    command = command_of(call)
    if command is None or is_reading_call(call) or is_wrapped_read(call):
        return []  # decided by the call first: most calls read (bench agent: 9 in 10)
    if not any(h in text for h in _HINTS):
        return []  # eight scans of the output: 0.18 s of the agent shape's 2.4 s for all calls
    return _reports(command, text)


def _reports(command: str, text: str) -> list[Reported]:
    """:func:`reported_writes` of a shell call that does not only read, without the hint
    prefilter (its tests check that the prefilter never drops a report)."""
    out: dict[str, Reported] = {}
    window = scan_window(strip_output_header(text))
    for m in _REPORT_RE.finditer(window):
        path = _file_path(m.group("q") or m.group("w"))
        if path is None or path in out:
            continue
        what = (m.group("what") or "").lower().split()
        if m.group("copy") and any(w in _NOT_FILES for w in what):
            continue  # ``Copied 3 files to dist/``: a folder
        line = m.group(0).strip()
        if line in command:
            continue  # the command prints it (``echo "Created a/b.txt"``): the agent's words
        if m.group("mid") and any(w in _FUTURE for w in m.group("mid").lower().split()):
            continue  # ``Results will be written to x.json``: not done yet
        verb = (m.group("verb") or "").lower()
        created = verb == "created" or m.group("new") is not None
        at = m.start("q") - 1 if m.group("q") else m.start("w")
        start = next(m.start(g) for g in ("copy", "verb", "label", "mid") if m.group(g))
        said = window[start:at].strip()
        out[path] = Reported(path, created, line, said)
    return list(out.values())
