"""A failed write of a file that a later shell command wrote (blind check 80 W1).

An adapter's ``Write`` returned "Writing file failed: Internal error" and the agent then wrote the
same file with ``cat > F <<'EOF'``: that later command fixed the failed write. The file is one
file under two spellings when one names it from the home folder (``~/.claude/f``,
``$HOME/.claude/f``) and the other in full (``/Users/x/.claude/f``, ``/home/x/.claude/f``).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of
from compactor.facts.text import FILE_KEYS

__all__ = ["same_file", "shell_writes", "written_file"]

_CONTENT_KEYS = ("content", "file_text", "contents")
_HOME_RE = lazy_pattern(r"\A(?:\$HOME|\$\{HOME\})(?=/)")
_FULL_HOME_RE = lazy_pattern(r"\A(?:/Users|/home)/[^/\s]+(?=/)")
_REDIRECT_RE = lazy_pattern(
    r"""(?:(?<![<>&\d])>>?|\btee(?:\s+-a)?)\s*(["']?)([^\s"';&|<>()]+)\1""", re.MULTILINE
)


def home_path(path: str) -> str:
    """``path`` with ``$HOME``/``${HOME}`` as ``~``."""
    path = path.strip()
    return _HOME_RE.sub("~", path, count=1) if path.startswith("$") else path


def same_file(a: str, b: str) -> bool:
    """Whether two spellings name one file: equal, or one from the home folder (``~/R``) and
    the other in full under a user's home (``/Users/x/R``, ``/home/x/R``). Two full paths
    under two users' homes stay two files."""
    a, b = home_path(a), home_path(b)
    if a == b:
        return True
    if a.startswith("~/") == b.startswith("~/"):
        return False
    short, full = (a, b) if a.startswith("~/") else (b, a)
    return _FULL_HOME_RE.sub("~", full, count=1) == short


def written_file(call: Call) -> str:
    """The file a file-writing call (a file argument and its content, no shell command) writes,
    (``$HOME`` as ``~``); '' for any other call."""
    args = call.args
    if command_of(call) is not None or not any(isinstance(args.get(k), str) for k in _CONTENT_KEYS):
        return ""
    path = next((args[k] for k in FILE_KEYS if isinstance(args.get(k), str)), "")
    return home_path(path) if path.strip() else ""


def shell_writes(command: str) -> frozenset[str]:
    """The files a shell command writes by redirection or ``tee`` (``cat > F <<'EOF'``), in
    ``$HOME`` as ``~``; not ``/dev/null``."""
    if ">" not in command and "tee" not in command:
        return frozenset()
    head = command.split("<<", 1)[0] if "<<" in command else command  # not the heredoc's body
    found = (m.group(2) for m in _REDIRECT_RE.finditer(head))
    return frozenset(home_path(f) for f in found if f and not f.startswith("/dev/"))
