"""A path a shell command names through a variable it set itself (blind check 54, W4).

``repo=/tmp/upstream_$(date +%s); git clone --depth 1 URL "$repo"; echo "$repo"`` clones into
``/tmp/upstream_1773643477``, never into a folder named ``$repo``. :func:`resolve_path` reads
such a path: a ``$NAME``/``${NAME}`` the same command assigned a plain literal
(``dir=build/out``) is replaced by it; one assigned a value with a substitution
(``$(date +%s)``) is replaced by the line of the command's output that the value's literal
parts match (``echo "$repo"`` or ``echo "repo=$repo"`` printed it); otherwise the path is
dropped ('').
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["resolve_path"]

_VAR_RE = lazy_pattern(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
_SUBST_RE = lazy_pattern(r"\$\([^()]*\)|`[^`]*`|\$\{?[A-Za-z_]\w*\}?")
_VALUE = r"(\"[^\"\n]*\"|'[^'\n]*'|(?:\$\([^()\n]*\)|[^\s;&|()])+)"


def _value(name: str, command: str, output: str) -> str:
    """What variable ``name`` holds by ``command``'s own assignment (its last one), '' when
    not a plain literal nor printed whole by the command."""
    found = list(
        re.finditer(rf"(?:^|[;&|(\n]\s*)(?:export\s+|local\s+)?{re.escape(name)}={_VALUE}", command)
    )
    if not found:
        return ""
    raw = found[-1].group(1)
    value = raw[1:-1] if raw[:1] in "\"'" and raw[-1:] == raw[:1] else raw
    if raw.startswith("'") or _SUBST_RE.search(value) is None:
        return value
    parts = _SUBST_RE.split(value)
    if not any(p for p in parts):
        return ""
    printed = re.compile(r"\S+?".join(re.escape(p) for p in parts))
    label = re.compile(rf"{re.escape(name)}\s*[=:]\s*")  # ``echo "repo=$repo"``
    for line in output.splitlines():
        line = line.strip()
        said = label.match(line)
        line = line[said.end() :] if said is not None else line
        if printed.fullmatch(line) is not None:
            return line
    return ""


def resolve_path(path: str, command: str, output: str = "") -> str:
    """``path`` with each shell variable the same ``command`` set replaced by its value (the
    module docstring); '' when a variable cannot be resolved to a plain literal."""
    if "$" not in path:
        return path
    done: dict[str, str] = {}
    for m in _VAR_RE.finditer(path):
        name = m.group(1) or m.group(2)
        if name not in done:
            done[name] = _value(name, command, output)
        if not done[name]:
            return ""
    out = _VAR_RE.sub(lambda m: done[m.group(1) or m.group(2)], path)
    return "" if "$" in out or "`" in out else out
