"""A failed HTTP probe is fixed when the same resource later answered 2xx/3xx (blind check 62 W3).

cc-n8n: ``curl -sI http://localhost:8081/n8n/ | head -n 2`` answered ``HTTP/1.1 502 Bad Gateway``
(n8n had crashed on a missing database); the agent created the database, restarted n8n, and
``curl -sI https://tunnel.example/n8n/ | head -n 3`` (the same nginx, through the tunnel)
answered ``HTTP/1.1 200 OK``. Section 7 still said "Unresolved failure": a failure counted as
fixed only when the same command later succeeded.

By shape: an open failure of a command that runs an HTTP client (``curl``, ``wget``, HTTPie,
``Invoke-WebRequest``) on exactly one URL is fixed by a later call, not failed and not in
flight, that runs an HTTP client on exactly one URL of the same resource and whose output shows
only 2xx/3xx statuses (``HTTP/1.1 200 OK``, or a bare ``200`` printed by ``-w '%{http_code}'``)
and no client error (``curl: (7) …``). The same resource is the same host:port and path (other
flags, or ``-I`` then a ``GET``), or the same path through another host when the path is
non-trivial (not ``/``). A later 200 of another path fixes nothing (``/health`` answering says
nothing of ``/n8n/``). The status line is the proof, so a later ``| head`` hides nothing.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from compactor._util import lazy_pattern
from compactor.facts import Call
from compactor.facts.commands import programs

from .local_again import OPEN
from .local_records import ErrorFact
from .local_session import Session
from .local_text import call_line

__all__ = ["judge_same_path"]

_CLIENTS = frozenset(
    "curl curl.exe wget wget.exe http https xh invoke-webrequest iwr invoke-restmethod irm".split()
)
_URL_RE = lazy_pattern(r"https?://[^\s'\"`)<>|;&]+")
_STATUS_RE = lazy_pattern(r"(?m)^[ \t]*(?:<[ \t]*)?HTTP/\d(?:\.\d)?[ \t]+(\d{3})\b[^\r\n]*")
_BARE_CODE_RE = lazy_pattern(r"^\s*(\d{3})\s*$")
_CLIENT_ERROR_RE = lazy_pattern(
    r"(?i)\bcurl: \(\d+\)|\bwget: |\bfailed to connect\b|\bconnection refused\b|"
    r"\bcould not resolve\b|\btimed out\b|\bERROR \d{3}\b"
)


def _resource(command: str) -> tuple[str, str] | None:
    """(host:port, path) of the one URL an HTTP-client command fetches, else None."""
    if not _CLIENTS.intersection(programs(command)):
        return None
    urls = {u.rstrip(".,") for u in _URL_RE.findall(command)}
    if len(urls) != 1:
        return None
    parts = urlsplit(urls.pop())
    host = parts.hostname or ""
    if not host:
        return None
    try:
        port = parts.port
    except ValueError:  # a malformed port ("host:abc")
        return None
    netloc = f"{host.lower()}:{port or (443 if parts.scheme == 'https' else 80)}"
    return netloc, parts.path or "/"


def _answered_ok(text: str, command: str) -> str:
    """The 2xx/3xx status line ``text`` (a call's output) shows, or '' when it shows none, or
    any other status or a client error."""
    if _CLIENT_ERROR_RE.search(text[:4_000]):
        return ""
    statuses = _STATUS_RE.findall(text[:8_000])
    if statuses:
        if any(code[0] not in "23" for code in statuses):
            return ""
        first = _STATUS_RE.search(text)
        return first.group(0).strip().lstrip("<").strip() if first else ""
    bare = _BARE_CODE_RE.match(text)
    if bare and "http_code" in command and bare.group(1)[0] in "23":
        return f"HTTP status {bare.group(1)}"
    return ""


def _same(failed: tuple[str, str], later: tuple[str, str]) -> bool:
    if failed[1].rstrip("/") != later[1].rstrip("/"):
        return False
    return failed[0] == later[0] or failed[1].strip("/") != ""


def judge_same_path(s: Session) -> None:
    """Mark ``fixed`` each open failure of a one-URL HTTP probe whose resource a later probe
    found answering 2xx/3xx (module docstring)."""
    pending: list[tuple[ErrorFact, tuple[str, str]]] = []
    for err in s.errors:
        if err.after not in OPEN or err.signature[0] != "shell":
            continue
        command = next((t[2:] for t in err.signature[2] if t.startswith("$ ")), "")
        found = _resource(command) if command else None
        if found is not None:
            pending.append((err, found))
    if not pending:
        return
    flying = {c.id for c in s.in_flight}
    texts = {r.call_id: r for e in s.entries for r in e.results if r.call_id}
    answered: list[tuple[Call, tuple[str, str], str]] = []  # probes that got a 2xx/3xx
    for call in s.calls:
        line = call.command or ""
        if not line or call.id in s.failed_calls or call.id in flying or "://" not in line:
            continue
        later, result = _resource(line), texts.get(call.id)
        if later is None or result is None or result.is_error:
            continue
        status = _answered_ok(result.text, line)
        if status:
            answered.append((call, later, status))
    for err, failed in pending:
        for call, later, status in answered:
            if call.index > err.index and _same(failed, later):
                what = f"path {failed[1]}" if failed[1].strip("/") else f"address {failed[0]}/"
                err.after, err.by = "fixed", call_line(call, 160)
                err.why = f"the same {what} answered {status}"
                break
