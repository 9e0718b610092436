"""The facts a context-gathering read established, one short line each (re-judged goldens M1).

Empire (a Codex session that stopped mid-work, drafting a grant application) read its git
remote, its git log, package.json and the README, and the summary kept none of it ("… (12 calls
omitted)"): the resuming agent had to gather it all again. Reading calls print no result lines,
so nothing of theirs was kept. :func:`read_fact` reads the output of a few reads by shape and
keeps what it establishes:

* ``git remote -v`` / ``git remote get-url``: each remote's URL, once;
* ``git log``: the latest commit (its id and subject) and how many were listed;
* ``git rev-parse``, ``git branch --show-current``, ``git describe``: their one-line answer;
* a read (``cat``, ``Get-Content``, ``head``, ``type``) of ``package.json``, ``pyproject.toml``
  or ``Cargo.toml``: the project's name, version and description;
* a read of a README: its first heading and up to three links (not badge images).
"""

from __future__ import annotations

import json
import re

from compactor._util import lazy_pattern
from compactor.facts import cut, programs, strip_output_header

__all__ = ["read_fact"]

_READERS = frozenset({"cat", "get-content", "gc", "type", "head", "less", "bat", "nl", "sed"})
_MANIFEST_RE = lazy_pattern(r"(?:^|[\s/\\'\"])(package\.json|pyproject\.toml|Cargo\.toml)\b")
_README_RE = lazy_pattern(r"(?:^|[\s/\\'\"])README(?:\.\w{1,8})?\b", re.IGNORECASE)
_REMOTE_RE = lazy_pattern(r"^(\S+)\s+(\S+)\s+\((?:fetch|push)\)\s*$", re.MULTILINE)
_ONELINE_RE = lazy_pattern(r"^\*?\s*([0-9a-f]{7,40})\s+(.+)$")
_FULL_LOG_RE = lazy_pattern(
    r"^commit ([0-9a-f]{7,40})\b.*?\n\n[ \t]+(\S[^\n]*)", re.MULTILINE | re.DOTALL
)
_TOML_RE = lazy_pattern(r"^(name|version|description)\s*=\s*\"([^\"\n]{1,200})\"", re.MULTILINE)
_HEADING_RE = lazy_pattern(r"^#\s+(\S[^\n]*)$", re.MULTILINE)
_URL_RE = lazy_pattern(r"https?://[^\s)\]>\"'`]+")
_ONE_ANSWER = ("git rev-parse", "git branch", "git describe")
_BADGES = ("img.shields.io", "badge", "badgen.net", "github.com/actions")


def _remotes(body: str) -> str:
    found = dict(_REMOTE_RE.findall(body))
    if not found:
        urls = [u for u in (x.strip() for x in body.splitlines()) if _URL_RE.fullmatch(u)]
        return "remote " + ", ".join(dict.fromkeys(urls)) if urls else ""
    return "remote " + "; ".join(f"{name} {url}" for name, url in found.items())


def _log(body: str) -> str:
    lines = [x.strip() for x in body.splitlines() if x.strip()]
    first = _ONELINE_RE.match(lines[0]) if lines else None
    if first is not None:
        listed = sum(1 for x in lines if _ONELINE_RE.match(x))
        return f"latest commit {first.group(1)} {cut(first.group(2), 100)} ({listed} listed)"
    full = _FULL_LOG_RE.search(body)
    return f"latest commit {full.group(1)[:12]} {cut(full.group(2).strip(), 100)}" if full else ""


def _manifest(name: str, body: str) -> str:
    fields: dict[str, str] = {}
    if name == "package.json":
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            fields = {
                k: v
                for k in ("name", "version", "description")
                if isinstance(v := data.get(k), str)
            }
        else:  # cut short: its first lines
            found = re.findall(
                r'^\s*"(name|version|description)":\s*"([^"\n]{1,200})"', body, re.MULTILINE
            )
            fields = dict(reversed(found))
    else:
        fields = dict(reversed(_TOML_RE.findall(body)))
    said = ", ".join(
        f"{k} {cut(fields[k], 120)}" for k in ("name", "version", "description") if k in fields
    )
    return f"{name}: {said}" if said else ""


def _readme(body: str) -> str:
    heading = _HEADING_RE.search(body)
    urls = [u.rstrip(".,;") for u in _URL_RE.findall(body) if not any(b in u for b in _BADGES)]
    links = list(dict.fromkeys(urls))[:3]
    parts = [f"title {cut(heading.group(1).strip(), 100)}"] if heading else []
    if links:
        parts.append("links " + ", ".join(links))
    return "README: " + "; ".join(parts) if parts else ""


def read_fact(command: str, text: str) -> str:
    """The fact a reading command's output establishes (module docstring); "" for others.
    The command's shape is read first: other reads cost no copy of their output."""
    ran = programs(command) if command else []
    if not ran:
        return ""
    if "git remote" in ran:
        return _remotes(_body(text))
    if "git log" in ran:
        return _log(_body(text[:200_000]))
    if any(p in _ONE_ANSWER for p in ran):
        body = _body(text[:2_000]).strip()
        return f"{ran[-1]}: {cut(body, 120)}" if body and "\n" not in body else ""
    if ran[0] not in _READERS:
        return ""
    manifest = _MANIFEST_RE.search(command)
    if manifest is not None:
        return _manifest(manifest.group(1), _body(text[:200_000]))
    if _README_RE.search(command) is not None:
        return _readme(_body(text[:20_000]))
    return ""


def _body(text: str) -> str:
    body = strip_output_header(text)
    return body.replace("\r\n", "\n") if "\r" in body else body
