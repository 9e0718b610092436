"""Key-shaped values masked in a text that is already written, such as the embedded summary
(issue 28, blind check 13: a diff's removed line ``"description": "AIza…"`` carried a Firebase
API key into the summary, under a key name that no credential word flags).

:func:`mask_key_shapes` applies the built-in rules of :mod:`.rules` that find a secret by its
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
from collections.abc import Callable, Sequence

from .labelled import LABELLED_RE, LABELLED_WIDE_HINTS
from .plausible import NOT_SECRET_RE
from .prose import (
    MYSQL_SPACED_RE,
    PROSE_BARE_RE,
    PROSE_PLAIN_RE,
    PROSE_PREFILTERS,
    PROSE_SPACED_RE,
    PROSE_TIGHT_RE,
    PROSE_WORD_RE,
    SUDO_HERE_RE,
    SUDO_PIPE_RE,
)
from .rules import SHAPE_RULES, ShapeRule
from .secret_scan import PREFILTERS, FastScan
from .url_query import URL_PREFILTERS, URL_SHAPES

__all__ = ["PASSWORD_PREFILTERS", "PASSWORD_SHAPES", "mask_key_shapes"]

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

_WS = r"[\s\x1c-\x1f]"  # Python's \s: Rust's and the four separators U+001C..U+001F
PASSWORD_PREFILTERS: tuple[str, ...] = (
    rf"(?i-u:password|identified{_WS}+by){_WS}+\\?['\"]",
    rf"""[:=]{_WS}{{0,3}}[^\n'"|?]{{1,80}}(?:\|\||\?\?|or){_WS}{{0,3}}\\?['"]""",
    r"(?i-u:getenv|environ\.get|env\.get)\(",
    r"(?:PASSWORD|PASSWD|PWD)=",
    r"-p\\?['\"]",
    r"(?i-u:mysql|mariadb)",
)
"""What every match of a :data:`PASSWORD_SHAPES` rule holds, in Rust's ``regex`` syntax (for
:class:`.secret_scan.FastScan`): a superset test, checked by a property test."""

_RULES: tuple[ShapeRule, ...] = tuple(
    (regex, hints + LABELLED_WIDE_HINTS if regex is LABELLED_RE else hints, check)
    for regex, hints, check in SHAPE_RULES + PASSWORD_SHAPES
)
"""The rules with their hints; the labelled rule's include its non-ASCII words (its own hints
cover an ASCII text only)."""
_SCAN_FROM = 32_768
"""A text this long or longer is first searched by the Rust scans (building them imports
pydantic-core: about 25 ms, what Python's rules take over some 40 KB of text)."""
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""İ ı ſ K: Python's ``(?i)`` reads them as ``i``, ``s``, ``k``, ``lower()`` does not."""


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


@functools.cache
def _scans() -> tuple[FastScan, FastScan, FastScan, FastScan]:
    own = PROSE_PREFILTERS + URL_PREFILTERS
    shapes = tuple(p for p in PREFILTERS if p not in own)
    return (
        FastScan(shapes),
        FastScan(PASSWORD_PREFILTERS),
        FastScan(PROSE_PREFILTERS),
        FastScan(URL_PREFILTERS),
    )


_SHAPE_REGEXES = frozenset(regex for regex, _, _ in SHAPE_RULES)
_PROSE_REGEXES = frozenset(
    (PROSE_PLAIN_RE, PROSE_BARE_RE, PROSE_TIGHT_RE, MYSQL_SPACED_RE, PROSE_SPACED_RE)
) | {SUDO_PIPE_RE, SUDO_HERE_RE, PROSE_WORD_RE}
"""Their own group: prose that names a token or a password ("the token is …") runs these
three rules, not every shape rule (blind check 52: the bench's summaries hold such prose)."""
_URL_REGEXES = frozenset(regex for regex, _ in URL_SHAPES)
"""Their own group too: a summary's URLs hold ``?``, ``&`` and ``=`` (blind check 56)."""
_GROUPS: dict[re.Pattern[str], int] = {
    **dict.fromkeys(_SHAPE_REGEXES, 0),
    **dict.fromkeys(_PROSE_REGEXES, 2),
    **dict.fromkeys(_URL_REGEXES, 3),
}
"""Each rule's scan group (:func:`_scans`); the password shapes are group 1."""


def _hinted(text: str) -> list[ShapeRule]:
    """The rules one of whose hints ``text`` holds (lowered as ``(?i)`` reads it): no other
    rule can match it, nor the text the rules before it leave (they only write ``***``)."""
    lowered = text.lower()
    if not text.isascii() and any(ch in text for ch in "\u0130\u0131\u017f\u212a"):
        lowered = text.translate(_FOLD).lower()
    return [rule for rule in _RULES if any(h in lowered for h in rule[1])]


def mask_key_shapes(text: str, found: set[str] | None = None) -> str:
    """``text`` with every key-shaped secret value shown as ``***`` (see the module doc);
    ``found`` (if given) gets every value masked, for the caller to mask its repeats too.
    A long text is first searched by the Rust scans of the three groups of rules (a summary's
    paths hold ``key`` and ``token``, hints of several rules)."""
    return _mask(text, found, _hinted(text), scan=len(text) >= _SCAN_FROM)


def _mask(text: str, found: set[str] | None, rules: Sequence[ShapeRule], scan: bool) -> str:
    seen: set[str] = set()
    maybe: dict[int, bool] = {}  # per group of rules: may one match the text as it is now
    for regex, _, check in rules:
        if scan:
            group = _GROUPS.get(regex, 1)
            if group not in maybe:
                maybe[group] = _scans()[group].may_match(text)
            if not maybe[group]:
                continue
        new = regex.sub(functools.partial(_masked, check=check, seen=seen), text)
        if new is not text and new != text:
            text = new
            maybe.clear()  # a rule wrote ***: scan the new text again
    for value in sorted(filter(_repeatable, seen), key=lambda v: (-len(v), v)):  # (one order)
        text = re.sub(rf"(?<![\w\-]){re.escape(value)}(?![\w\-])", MASK, text)
    if found is not None:
        found.update(seen)
    return text
