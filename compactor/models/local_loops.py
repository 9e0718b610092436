"""A shell ``for`` loop over literal words, unrolled for :class:`.local_places.Places` (blind
check 46 W2).

Folders are often renamed in a loop (``for d in Hooks Rules Skills; do lower=$(printf '%s'
"$d" | tr '[:upper:]' '[:lower:]'); mv "$d" "$lower.tmp" && mv "$lower.tmp" "$lower"; done``):
the moves name no folder until the loop variable is put in. :func:`unrolled` writes such a loop
as its iterations, one after the other: ``$VAR``/``${VAR}`` become the word, an assignment in the
body (``lower=…``) is followed when its value is plain text, ``${VAR,,}`` or the ``tr`` idiom
of lowercasing; ``$$`` (a temporary name's process id) is one fixed word. A loop over anything
but literal words (``$(ls)``, a glob, ``$@``) is left as it is, and so is a nested loop.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import shell_words

__all__ = ["unrolled"]

_FOR_RE = lazy_pattern(
    r"(?:^|(?<=[;&\n]))[ \t]*for[ \t]+(\w+)[ \t]+in[ \t]+([^;\n]*?)[ \t]*[;\n][ \t\n]*do\b"
    r"(.*?)(?:[;\n][ \t]*|[ \t]+)done\b",
    re.DOTALL,
)
_ASSIGN_RE = lazy_pattern(r"^[ \t]*(\w+)=(\S.*?)[ \t]*$")
_LOWER_RE = lazy_pattern(
    r"\$\((?:echo|printf[ \t]+['\"]?%s['\"]?)[ \t]+\"?\$\{?(\w+)\}?\"?[ \t]*\|[ \t]*tr[ \t]+"
    r"['\"]?(?:\[:upper:\]|A-Z)['\"]?[ \t]+['\"]?(?:\[:lower:\]|a-z)['\"]?[ \t]*\)"
)
_LOWER_VAR_RE = lazy_pattern(r"\$\{(\w+),,\}")
_VAR_RE = lazy_pattern(r"\$\{(\w+)\}|\$(\w+)")
_STATEMENT_RE = lazy_pattern(r"[;\n]")
_MAX_ITEMS = 50


def unrolled(command: str) -> str:
    """``command`` with each ``for VAR in WORDS; do …; done`` over literal words written as its
    iterations (module docstring); the command itself when it holds no such loop."""
    if "for " not in command or "done" not in command:
        return command
    return _FOR_RE.sub(_unroll, command)


def _unroll(m: re.Match[str]) -> str:
    name, items, body = m.group(1), shell_words(m.group(2)), m.group(3)
    if (
        not items
        or len(items) > _MAX_ITEMS
        or any(c in w for w in items for c in "$*?[`")
        or re.search(r"(?:^|[;\n])\s*for\s", body)
    ):
        return m.group()
    return "\n" + "\n".join(_iteration(name, item, body) for item in items) + "\n"


def _iteration(name: str, item: str, body: str) -> str:
    """The body with ``name`` set to ``item`` and its own plain assignments followed."""
    values = {name: item}
    out: list[str] = []
    for statement in _STATEMENT_RE.split(body.replace("$$", "PID")):
        text = _put(statement, values)
        assign = _ASSIGN_RE.match(text)
        if assign is not None:
            value = assign.group(2).strip("\"'")
            if "$" in value or "`" in value:
                values.pop(assign.group(1), None)
            else:
                values[assign.group(1)] = value
        out.append(text)
    return "\n".join(out)


def _put(text: str, values: dict[str, str]) -> str:
    """``text`` with the known variables put in (lowercased where the text lowercases them)."""
    if "$" not in text:
        return text
    text = _LOWER_RE.sub(lambda m: _known(m, values, True), text)
    text = _LOWER_VAR_RE.sub(lambda m: _known(m, values, True), text)
    return _VAR_RE.sub(lambda m: _known(m, values, False), text)


def _known(m: re.Match[str], values: dict[str, str], lower: bool) -> str:
    key = next(g for g in m.groups() if g)
    if key not in values:
        return m.group()
    return values[key].lower() if lower else values[key]
