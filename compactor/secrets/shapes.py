"""Key-shaped values masked in a text that is already written, such as the embedded summary
(issue 28, blind check 13: a diff's removed line ``"description": "AIza…"`` carried a Firebase
API key into the summary, under a key name that no credential word flags).

:func:`mask_key_shapes` applies the built-in rules of :mod:`.masking` that find a secret by its
shape (PEM private keys, JWTs, OpenAI/Anthropic ``sk-``, AWS ``AKIA…``, GitHub ``ghp_``/``gho_``/
``github_pat_``, GitLab, Slack ``xox…``, Google ``AIza…``, Stripe ``sk_live_``, Hugging Face,
npm, URL passwords, ``Authorization: Bearer …``, ``--token …`` flags), not the ``name = value``
assignments (``_util.mask_secret_values`` masks those in a summary), and writes ``***`` for
each value: one owner for the shapes, the same checks (a ``$TOKEN`` placeholder is kept).

Blind check 14 printed a database password in clear: :data:`PASSWORD_SHAPES` adds the shapes a
password has in code and commands without a ``password = value`` assignment: SQL's ``WITH
PASSWORD '…'`` / ``IDENTIFIED BY '…'``, a literal fallback after an environment variable
(``password: process.env.DB_PASSWORD || '…'``, ``os.getenv("DB_PASSWORD", "…")``), and
``mysql -p'…'`` / ``mysql -pvalue``. A value masked anywhere in the text is masked wherever else
the text repeats it (``bcrypt hash of '…'`` in a quoted earlier summary)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from .masking import SHAPE_RULES, ShapeRule
from .plausible import NOT_SECRET_RE

__all__ = ["PASSWORD_SHAPES", "mask_key_shapes"]

MASK = "***"

_QUOTED = r"""(?P<qq>\\?['"])(?P<secret>[^'"\\\n]{3,200})(?P=qq)"""
_CREDENTIAL = r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_\-]?key)"

PASSWORD_SHAPES: tuple[ShapeRule, ...] = (
    # SQL: CREATE USER u WITH PASSWORD 'x', ALTER ROLE … PASSWORD 'x', IDENTIFIED BY 'x'
    (
        re.compile(rf"(?i:\bpassword|\bidentified\s+by)\s+{_QUOTED}"),
        ("password", "identified"),
        None,
    ),
    # a literal fallback: password: process.env.DB_PASSWORD || 'x' (also ?? and Python's or)
    (
        re.compile(
            rf"(?i:{_CREDENTIAL})\w*(?:\\?['\"])?\s{{0,3}}[:=]\s{{0,3}}"
            rf"[^\n'\"|?]{{1,80}}?(?:\|\||\?\?|\bor\b)\s{{0,3}}{_QUOTED}"
        ),
        ("pass", "pwd", "secret", "token", "key"),
        None,
    ),
    # os.getenv("DB_PASSWORD", "x"), os.environ.get('API_TOKEN', 'x')
    (
        re.compile(
            rf"(?i:getenv|environ\.get|env\.get)\(\s*(?P<nq>\\?['\"])\w*(?i:{_CREDENTIAL})\w*"
            rf"(?P=nq)\s*,\s*{_QUOTED}"
        ),
        ("getenv", "environ.get", "env.get"),
        None,
    ),
    # PGPASSWORD='x' / MYSQL_PWD=x on a command line (collected, so that repeats are masked)
    (
        re.compile(rf"(?<![\w\-])[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PWD)={_QUOTED}"),
        ("pass", "pwd"),
        None,
    ),
    (
        re.compile(
            r"(?<![\w\-])[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PWD)=(?P<secret>[^\s'\"\\;&|]{3,})"
        ),
        ("pass", "pwd"),
        None,
    ),
    # mysql -p'x' (any command), mysql … -pvalue
    (re.compile(rf"(?<![\w\-])-p{_QUOTED}"), ("-p'", '-p"', "-p\\"), None),
    (
        re.compile(
            r"(?i:\b(?:mysql|mysqldump|mysqladmin|mariadb))\b[^\n|;&]{0,200}?"
            r"(?<![\w\-])-p(?P<secret>[^\s'\"\\]{3,})"
        ),
        ("mysql", "mariadb"),
        None,
    ),
)
"""Password shapes with no ``name = value`` assignment (see the module doc)."""

_RULES: tuple[ShapeRule, ...] = SHAPE_RULES + PASSWORD_SHAPES


def _masked(
    m: re.Match[str], check: Callable[[str], bool] | None, seen: set[str] | None = None
) -> str:
    group: str | int = "secret" if "secret" in m.re.groupindex else 0
    value = m.group(group)
    if not value or NOT_SECRET_RE.match(value) or (check is not None and not check(value)):
        return m.group(0)
    if seen is not None:
        seen.add(value)
    start, end = m.span(group)
    whole = m.group(0)
    return whole[: start - m.start()] + MASK + whole[end - m.start() :]


def _repeatable(value: str) -> bool:
    """A masked value distinctive enough to mask where else it occurs (not a plain word)."""
    return len(value) >= 6 and (any(not ch.isalpha() for ch in value) or len(value) >= 12)


def mask_key_shapes(text: str, found: set[str] | None = None) -> str:
    """``text`` with every key-shaped secret value shown as ``***`` (see the module doc);
    ``found`` (if given) gets every value masked, for the caller to mask its repeats too."""
    lowered = text.lower() if text.isascii() else None  # (?i) reads some non-ASCII as ASCII
    seen: set[str] = set()
    for regex, hints, check in _RULES:
        if lowered is not None and hints and not any(h in lowered for h in hints):
            continue
        text = regex.sub(functools.partial(_masked, check=check, seen=seen), text)
    for value in sorted(filter(_repeatable, seen), key=len, reverse=True):
        text = re.sub(rf"(?<![\w\-]){re.escape(value)}(?![\w\-])", MASK, text)
    if found is not None:
        found.update(seen)
    return text
