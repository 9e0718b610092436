"""Section 8 names the session's irreversible actions (blind check 67 N2/N3, issue 28).

cc_ce_env: "Worked around by Bash: npx prisma migrate reset --force (succeeded)" was all the
summary said of a reset that wiped the data of a production database; a resuming agent did not
know the data was gone. :func:`irreversible_items` writes one line in section 8 (where the
current request's steps are) naming each successful call that destroyed or overwrote data for
good (:func:`compactor.facts.irreversible.irreversible`), what it destroyed and, for a database,
why its target looked remote or production. A refused, failed or unanswered call destroyed
nothing and is not named.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from compactor.facts import argument_texts, cut
from compactor.facts.irreversible import (
    DB_EFFECTS,
    env_database_host,
    irreversible,
    remote_target,
)

from .local_session import Session, once
from .local_text import code

__all__ = ["irreversible_items"]

_SHOWN = 3
_TEMPLATES = (".example", ".sample", ".template", ".dist")


def _env_host(arguments: str, path: object) -> str | None:
    """The database host a call writing a ``.env`` file sets (``None``: it sets none)."""
    if isinstance(path, str) and path:
        name = PurePosixPath(path.replace("\\", "/")).name
        if not name.startswith(".env") or name.endswith(_TEMPLATES):
            return None
    return env_database_host("\n".join(argument_texts(arguments)))


def irreversible_items(s: Session, width: int) -> list[str]:
    """One line naming the irreversible actions of the session's successful calls (at most
    :data:`_SHOWN`, the latest), or none."""
    found = [f"{code(cut(part, width))} ({note})" for part, note in once(s, _irreversible)]
    if not found:
        return []
    shown = found[-_SHOWN:]
    more = f" (and {len(found) - _SHOWN} earlier)" if len(found) > _SHOWN else ""
    return ["Irreversible: " + "; ".join(shown) + more]


def _irreversible(s: Session) -> list[tuple[str, str]]:
    """(the command's part, what it did) of each irreversible action, in order (read once: each
    render lists them)."""
    found: list[tuple[str, str]] = []
    env_host: str | None = None
    since = s.last_request.index if s.last_request is not None else -1
    for call in s.calls:
        ok = call.id in s.answered and call.id not in s.failed_calls and call.id not in s.refused
        if not ok:
            continue
        if "DATABASE_URL" in call.arguments and ".env" in call.arguments:
            args = call.args
            host = _env_host(call.arguments, args.get("file_path") or args.get("path"))
            env_host = host if host is not None else env_host
        command = call.command
        if not command:
            continue
        for part, effect in irreversible(command):
            note = effect
            if effect in DB_EFFECTS or effect.startswith(("dropped ", "emptied ")):
                if target := remote_target(part, env_host):
                    note += f"; its target looked remote/production: {target}"
            note += "; before the current request" if call.index < since else ""
            found.append((part, note))
    return found
