"""The names a cut quote leaves out (blind check 20, k3rn-speechy): an earlier summary's file
list quoted up to a limit lost ``OVERLAY_SIZE`` 320×72 and ``WHISPER_LANGUAGE=fr`` with its
"… (2375 more characters)". Configuration names (UPPER_CASE with an underscore: constants,
environment variables, with their ``=value`` when one is set) in the cut part that the kept
part does not name are listed after the cut, so a resuming agent still knows them."""

from __future__ import annotations

from compactor._util import lazy_pattern

__all__ = ["names_left_out"]

_NAME_RE = lazy_pattern(r"(?<![\w$])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(=[^\s,;'\"`)]{1,40})?(?!\w)")
"""``OVERLAY_SIZE``, ``WHISPER_LANGUAGE=fr``: an UPPER_CASE name with an underscore."""
_MOST = 12


def names_left_out(rest: str, kept: str) -> str:
    """``"; names in them: A, B=1"`` for the configuration names in ``rest`` (the cut part)
    that ``kept`` does not hold, each once (at most ``_MOST``); "" when there are none."""
    names: dict[str, None] = {}
    for m in _NAME_RE.finditer(rest):
        name = m.group(1) + (m.group(2) or "")
        if m.group(1) not in kept and len(names) < _MOST:
            names.setdefault(name, None)
    return f"; names in them: {', '.join(names)}" if names else ""
