"""Commands that destroy or overwrite data for good, and whether their target looked remote
(blind check 67 N2/N3, issue 28).

cc_ce_env §4 said "Worked around by Bash: npx prisma migrate reset --force (succeeded)": the
reset wiped the data of the project's production database, and nothing in the summary said so; a
resuming agent read it as one step among others. cc_ce_root kept ``git checkout --ours`` for 12
conflicted files without saying that it discarded the remote side. By the command's shape,
:func:`irreversible` names what such a command destroyed (one owner for the summarizer):

* a database reset or drop: ``prisma migrate reset``, ``prisma db push --force-reset`` /
  ``--accept-data-loss``, SQL ``DROP DATABASE|TABLE|SCHEMA`` and ``TRUNCATE`` run by a command
  (a migration file being written is no command), ``dropdb``, Redis ``FLUSHALL``/``FLUSHDB``;
* git history or work discarded: ``git reset --hard``, ``git push --force``/``-f``/
  ``--force-with-lease``/``+branch``, ``git clean -f…``, ``git checkout --ours|--theirs``;
* volumes and files deleted: ``docker compose down -v``, ``docker volume rm|prune``, ``rm -rf`` of
  a path that is not a temporary, cache or build folder (PowerShell's ``Remove-Item -Recurse
  -Force`` and cmd's ``rmdir /s /q`` too) (``node_modules``, ``dist``, ``build``,
  ``/tmp``, ``__pycache__``, ``.next`` … are made again by a build).

:func:`remote_target` says why a database command's target looked remote or production: a
database URL (or ``-h HOST``) in the command, else the ``DATABASE_URL`` of a ``.env`` written
before it, whose host is not local, or the words prod/production/railway/supabase/neon/rds.
``git reset --soft``, ``rm -rf node_modules``, ``prisma migrate dev`` and ``DROP INDEX`` are not
irreversible here.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .commands import is_reading_program, main_program, programs
from .samecommand import unwrapped

__all__ = ["DB_EFFECTS", "env_database_host", "irreversible", "remote_target"]

_HINT_RE = lazy_pattern(
    r"prisma|drop|truncate|flush|reset|push|clean|--ours|--theirs|down|volume|rm\s|remove|rd\s"
    r"|rmdir|ri\s",
    re.IGNORECASE,
)
"""Words one of the commands below needs (a cheap test before splitting a command)."""
_SPLIT_RE = lazy_pattern(r"\s*(?:&&|\|\||;(?![\"'])|\n|(?<![|])\|(?![|]))\s*")

RESET = "reset the database: its data was deleted"
DATA_LOSS = "accepted data loss: what the schema change dropped lost its data"
FLUSHED = "deleted every key of the Redis database"
DB_EFFECTS = frozenset({RESET, DATA_LOSS, FLUSHED})
"""The effects whose target :func:`remote_target` is asked about (with a dropped database
object's, which names the object)."""

_PRISMA_RESET_RE = lazy_pattern(r"\bprisma\s+(?:migrate\s+reset|db\s+push\b.*--force-reset)\b")
_PRISMA_LOSS_RE = lazy_pattern(r"\bprisma\s+db\s+push\b.*--accept-data-loss\b")
_SQL_DROP_RE = lazy_pattern(
    r"\bDROP\s+(DATABASE|TABLE|SCHEMA)\s+(?:IF\s+EXISTS\s+)?([\"`\[]?[\w.$-]+)", re.IGNORECASE
)
_SQL_TRUNCATE_RE = lazy_pattern(
    r"(?:^|[\"';(]\s*|\s-c\s+\S?)TRUNCATE\s+(?:TABLE\s+)?(?!-)([\"`]?[\w.]+)", re.IGNORECASE
)
_DROPDB_RE = lazy_pattern(r"(?:^|\s)dropdb\s+(?:-\S+\s+(?:\S+\s+)?)*?([\w.-]+)\s*$")
_FLUSH_RE = lazy_pattern(r"\bFLUSH(?:ALL|DB)\b", re.IGNORECASE)
_GIT_RE = lazy_pattern(r"^(?:sudo\s+)?git(?:\s+-C\s+\S+)?\s+(\S+)(.*)$", re.DOTALL)
_COMPOSE_DOWN_RE = lazy_pattern(
    r"\bdocker(?:\s+|-)compose\b.*\bdown\b.*(?:\s-v\b|\s--volumes\b|\s-[a-z]*v[a-z]*\b)"
)
_VOLUME_RM_RE = lazy_pattern(r"\bdocker\s+volume\s+(?:rm|remove|prune)\b")
_RM_RE = lazy_pattern(r"^(?:sudo\s+)?rm\s+(.+)$", re.DOTALL)
_WIN_RM_RE = lazy_pattern(r"^(?:Remove-Item|ri|rmdir|rd)\s+(.+)$", re.DOTALL | re.IGNORECASE)
_REBUILT = frozenset(
    "node_modules dist build out .next .nuxt .turbo .cache .parcel-cache __pycache__ "
    ".pytest_cache .mypy_cache .ruff_cache .tox .venv venv target coverage .coverage tmp temp "
    ".gradle .svelte-kit .expo .angular .vite bin obj package-lock.json yarn.lock pnpm-lock.yaml "
    "bun.lockb".split()
)
"""Folders (and lock files) a build, an install or a test run makes again: deleting them loses no
data."""
_TEMP_RE = lazy_pattern(r"(?:^|/)(?:tmp|temp|var/tmp|cache)(?:/|$)|\$\{?\w*(?:TMP|TEMP|tmp|temp)")


def irreversible(command: str) -> list[tuple[str, str]]:
    """The parts of ``command`` that destroy or overwrite data for good, each with what it
    destroyed (module docstring); none for most commands."""
    if _HINT_RE.search(command) is None:
        return []
    script = unwrapped(command)
    if "<<" in script:  # a here-document a file is written from is data, not a command
        script = _HEREDOC_RE.sub(_kept_heredoc, script)
    found: list[tuple[str, str]] = []
    for part in _SPLIT_RE.split(script):
        part = part.strip()
        if part and (effect := _effect(part)) is not None:
            found.append((part, effect))
    return found


_HEREDOC_RE = lazy_pattern(
    r"^([^\n]*)<<-?[ \t]*(['\"]?)(\w+)\2[^\n]*\n.*?(?:\n[ \t]*\3[ \t]*(?=\n|$)|\Z)",
    re.DOTALL | re.MULTILINE,
)


def _kept_heredoc(m: re.Match[str]) -> str:
    """A here-document fed to a program (``psql <<SQL``) as it is; one written to a file (``cat >
    f <<EOF``, ``tee f``) as its opening line only."""
    head = m.group(1)
    if ">" in head or programs(head)[-1:] in (["cat"], ["tee"]):
        return head
    return m.group(0)


_NOT_RUN = frozenset({"echo", "printf", "grep", "rg", "cat", "sed", "awk", "git"})
"""Programs whose SQL words are text they print, search or record, never a query they run."""


def _effect(part: str) -> str | None:
    if (git := _GIT_RE.match(part)) is not None:
        return _git_effect(git.group(1), git.group(2).split())
    program = main_program(part)
    if program in _NOT_RUN or is_reading_program(program):
        return None  # ``grep -rn "DROP TABLE" migrations/``, ``echo TRUNCATE``
    if _PRISMA_RESET_RE.search(part) is not None:
        return RESET
    if _PRISMA_LOSS_RE.search(part) is not None:
        return DATA_LOSS
    if (drop := _SQL_DROP_RE.search(part)) is not None:
        kind, name = drop.group(1).lower(), drop.group(2).strip('"`[]')
        return f"dropped {kind} {name}: its data was deleted"
    if (trunc := _SQL_TRUNCATE_RE.search(part)) is not None:
        return f"emptied table {trunc.group(1).strip(chr(34) + '`')}: its rows were deleted"
    if (dropdb := _DROPDB_RE.search(part)) is not None:
        return f"dropped database {dropdb.group(1)}: its data was deleted"
    if "redis" in part.lower() and _FLUSH_RE.search(part) is not None:
        return FLUSHED
    if _COMPOSE_DOWN_RE.search(part) is not None:
        return "deleted the containers' volumes and the data in them"
    if _VOLUME_RM_RE.search(part) is not None:
        return "deleted Docker volumes and the data in them"
    if (rm := _RM_RE.match(part)) is not None:
        return _rm_effect(rm.group(1).split())
    if (win := _WIN_RM_RE.match(part)) is not None:
        return _win_rm_effect(win.group(1).split())
    return None


def _git_effect(sub: str, words: list[str]) -> str | None:
    flags = [w for w in words if w.startswith("-")]
    if sub == "reset" and "--hard" in flags:
        return "discarded the uncommitted changes"
    if sub == "push" and (
        any(f in ("-f", "--force") or f.startswith("--force-with-lease") for f in flags)
        or any(w.startswith("+") and len(w) > 1 for w in words)
    ):
        return "overwrote the remote branch's history"
    short = "".join(f[1:] for f in flags if not f.startswith("--"))
    dry = "n" in short or "--dry-run" in flags
    if sub == "clean" and not dry and ("--force" in flags or "f" in short):
        return "deleted untracked files"
    if sub in ("checkout", "restore") and ("--ours" in flags or "--theirs" in flags):
        other = "their (incoming)" if "--ours" in flags else "our (local)"
        return f"kept one side of the conflict: {other} side's changes were discarded"
    return None


def _rm_effect(words: list[str]) -> str | None:
    flags = "".join(w.lstrip("-") for w in words if w.startswith("-") and not w.startswith("--"))
    longs = {w for w in words if w.startswith("--")}
    recursive = "r" in flags.lower() or "--recursive" in longs
    forced = "f" in flags or "--force" in longs
    if not (recursive and forced):
        return None
    targets = [w.strip("\"'") for w in words if not w.startswith("-") and w not in (">", "2>")]
    data = [t for t in targets if t and not _rebuilt(t)]
    if not data:
        return None
    return "deleted " + ", ".join(data[:3]) + (" …" if len(data) > 3 else "") + " for good"


def _win_rm_effect(words: list[str]) -> str | None:
    """PowerShell's ``Remove-Item -Recurse -Force PATH`` (``-r``/``-fo`` too), cmd's ``rmdir /s
    /q PATH``: as ``rm -rf``."""
    flags = {w.lower() for w in words if w[:1] in "-/"}
    recursive = flags & {"-recurse", "-r", "/s"}
    forced = flags & {"-force", "-fo", "/q"}
    if not (recursive and forced):
        return None
    return _rm_effect(["-rf", *(w for w in words if w[:1] not in "-/" and not w.startswith("$"))])


def _rebuilt(path: str) -> bool:
    """Whether ``path`` is a temporary, cache or build folder (or a file in one)."""
    if _TEMP_RE.search(path) is not None or path.startswith("/tmp"):
        return True
    parts = [p for p in path.replace("\\", "/").rstrip("/*").split("/") if p not in ("", ".")]
    return bool(parts) and (parts[-1] in _REBUILT or any(p in _REBUILT for p in parts[:-1]))


_DB_URL_RE = lazy_pattern(
    r"\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|sqlserver|cockroachdb)://"
    r"(?:[^@\s/\"']*@)?([\w.-]+)",
    re.IGNORECASE,
)
_HOST_FLAG_RE = lazy_pattern(r"(?:\s-h\s*|\s--host[= ])([\w.-]+)")
_PROD_RE = lazy_pattern(r"\b(?:prod|production|railway|rlwy|supabase|neon|rds)\b", re.IGNORECASE)
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "host.docker.internal"})
_ENV_DB_RE = lazy_pattern(r"^\s*(?:export\s+)?[A-Z_]*DATABASE_URL\s*=\s*[\"']?(\S+)", re.MULTILINE)


def _remote_host(text: str) -> str:
    """The first database host ``text`` names that is not a local one ("" when none)."""
    hosts = [m.group(1) for m in _DB_URL_RE.finditer(text)]
    hosts += [m.group(1) for m in _HOST_FLAG_RE.finditer(text)]
    for host in hosts:
        low = host.lower().rstrip(".")
        if low in _LOCAL_HOSTS or low.startswith("127.") or low.endswith(".local"):
            continue
        if "." in low:  # a bare name is a service on the machine's own network (docker's `db`)
            return host
    return ""


def env_database_host(text: str) -> str | None:
    """The host of the database URL a ``.env`` text sets (``""``: a local one; ``None``: the
    text sets none)."""
    urls = [m.group(1) for m in _ENV_DB_RE.finditer(text)]
    if not urls:
        return None
    return _remote_host(urls[-1])


def remote_target(command: str, env_host: str | None) -> str:
    """Why ``command``'s database looked remote or production ("" when it did not): a host in
    the command, else ``env_host`` (:func:`env_database_host` of the ``.env`` written last
    before it), else a production word in the command."""
    if host := _remote_host(command):
        return f"host {host}"
    if env_host and _DB_URL_RE.search(command) is None:
        return f"host {env_host}, in the DATABASE_URL of a .env written before"
    if (word := _PROD_RE.search(command)) is not None:
        return f"the command names {word.group(0)}"
    return ""
