"""Two inline scripts of one interpreter on the same files are one attempt (blind check 55, W2).

cc-jk: ``python -c "… zarr.open('X/mask.zarr') … zarr.open('X/orig.zarr') …"`` failed, a
later ``python << 'EOF' … EOF`` on the same two stores failed the same way, and the heredoc
after that succeeded. Section 4 credited the last call as the fix of the heredoc just before it
but listed the ``-c`` failures as "Not fixed": the whole script is one quoted word of a ``-c``
command, so nothing tied it to a heredoc (or to another ``-c``) whose script differs. By shape,
an inline script (``-c``/``-e`` argument, ``<<`` heredoc, ``-`` reading one) of the same
interpreter that names every file the failed one named is another attempt at it, whatever the
quoting form.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .samecommand import leading_cd, unwrapped

__all__ = ["inline_interpreter", "same_inline_script"]

_INLINE_RE = lazy_pattern(
    r"\A(?:[A-Za-z_]\w*=\S*\s+)*(?:\S*/)?(python(?:\d(?:\.\d+)?)?|node|ruby|perl)"
    r"(?:\s+-[A-Za-z]*[BEIOSuX]?)*?\s+(?:-[ce]\b|-?\s*<<)",
    re.IGNORECASE,
)
"""An interpreter run on an inline script: ``python -c``, ``node -e``, ``python - <<'EOF'``,
``python3 <<EOF`` (``NAME=value`` assignments and options such as ``-u`` before it)."""


def inline_interpreter(command: str) -> str:
    """The interpreter (``python``: its version aside) ``command`` runs an inline script with,
    or ``""`` when it runs none (a wrapper and a leading ``cd`` aside)."""
    body = leading_cd(unwrapped(command.strip()))[1].lstrip()
    found = _INLINE_RE.match(body)
    if found is None:
        return ""
    name = found.group(1).lower()
    return "python" if name.startswith("python") else name


def same_inline_script(
    failed: str, later: str, failed_files: frozenset[str], later_files: frozenset[str]
) -> bool:
    """Whether ``later`` is another attempt at the inline script ``failed``: the same interpreter
    runs both inline (``-c`` or a heredoc, either way), and the later one names every file the
    failed one named (``failed_files``, at least one)."""
    if not failed_files or not failed_files <= later_files:
        return False
    mine = inline_interpreter(failed)
    return bool(mine) and mine == inline_interpreter(later)
