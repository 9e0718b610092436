"""The built-in secret rules :class:`~compactor.secrets.masking.SecretMasker` applies, in order.

Each :class:`Rule` is a kind, a regex, the check a matched value must pass and the hints (lowercase
substrings) one of which every match contains; the table (:data:`BUILTIN_RULES`) is tried in
order, an earlier rule winning an overlap (see :mod:`.masking` for what each kind covers).
:data:`SHAPE_RULES` are the rules that find a secret by its shape alone (:mod:`.shapes`). Kept
apart from the masker so the rule table and the code that applies it change separately.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from compactor._util import CJK_PUNCTUATION

from . import prose, url_query
from .labelled import LABELLED_HINTS, LABELLED_RE, WANDB_LOGIN_RE, WANDB_RE, labelled_token
from .logins import CRYPT_HASH_RE, CRYPT_HINTS, PROMPT_ANSWER_RE, PROMPT_HINTS
from .secret_scan import API_KEY_WORDS, OTHER_PASSWORD_WORDS, PASSWORD_WORDS

SECRET_KINDS: tuple[str, ...] = (
    "api_key",
    "bearer_token",
    "jwt",
    "password",
    "password_hash",
    "private_key",
    "url_password",
)
"""The kinds of secret the built-in rules find (the ``kind`` in ``[REDACTED:kind#n]``)."""

# Characters that may surround a token-shaped secret (a boundary is any other character).
_TOKEN_CHARS = r"A-Za-z0-9_\-"
_B = rf"(?<![{_TOKEN_CHARS}])"
_E = rf"(?![{_TOKEN_CHARS}])"

# A quote, possibly JSON-escaped (\" inside an arguments string that holds JSON text).
_Q = r"""(?:\\?["'])"""
# An unquoted value: no whitespace, quotes, backslashes (never splits an escape) or brackets, and
# no CJK or full-width punctuation (``、KEY=value。``: blind check 29, S1).
_BARE = rf"""[^\s"'`\\,;&<>(){{}}\[\]|{CJK_PUNCTUATION}]"""
# ``=``, ``:``, ``=>``, ``:=``, also after a type annotation (``password: str = "..."``).
# Blanks only, never a line break: ``HSM_PASSWORD=`` ending its line is empty, the next line is
# no value (blind check 71, N3).
_SEP = (
    r"""[ \t]{0,3}(?::[ \t]{0,3}[A-Za-z_][\w.\[\]|, ]{0,40}?[ \t]{0,3}(?==))?"""
    r"""(?:=>|:=|=|:|\uff1a|\uff1d)[ \t]{0,3}"""
)

_API_KEY_NAME = rf"[A-Za-z0-9_.\-]{{0,40}}?{API_KEY_WORDS}"
_PASSWORD_NAME = rf"(?:[A-Za-z0-9_.\-]{{0,40}}?{PASSWORD_WORDS}|{OTHER_PASSWORD_WORDS})"


def _assignment(name: str) -> str:
    """``name = value`` in its usual spellings; the value is one of the groups ``VALUE_GROUPS``."""
    return (
        rf"(?<![A-Za-z0-9])(?P<name>{name})(?:{_Q})?{_SEP}(?:"
        # quoted: "password": "hunter2", password='x' (JSON escapes inside are whole units)
        r"""(?P<q>["'])(?P<secret>(?:\\[^\n]|(?!(?P=q))[^\\\n])+)(?P=q)"""
        # quoted with escaped quotes, inside a JSON string: \"password\": \"x\"
        r"""|\\(?P<eq_q>["'])(?P<esc>[^\\\n"']+)\\(?P=eq_q)"""
        # a call whose first argument is a literal: 'password' => Hash::make('x') (blind check 24)
        r"""|[A-Za-z_][\w.:\\>-]{0,60}\(\s{0,3}(?P<cq>["'])(?P<call>(?:\\[^\n]|(?!(?P=cq))[^\\\n])+)(?P=cq)"""
        # bare, ending its line (the only bare form a ':' may introduce)
        rf"|(?P<line>{_BARE}+)(?=[ \t]*(?:\n|\r|$|\\[nr]|[,;}}\])\"'{CJK_PUNCTUATION}]))"
        # bare after '=' (command lines, env files, query strings)
        rf"|(?<=[=>])(?P<eq>{_BARE}+)"
        # bare and mid-line after ':' (only random-looking values: see plausible_value)
        rf"|(?P<word>{_BARE}+)"
        r")"
    )


VALUE_GROUPS = ("secret", "esc", "call", "line", "eq", "word")


def _flag(names: str) -> str:
    return rf"(?<![\w\-])--(?:{names})(?:=|[ \t]+)(?P<secret>{_BARE}+)"


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    regex: re.Pattern[str]
    check: Callable[[str], bool] | None = None
    assignment: bool = False
    """The match has a ``name`` group and one of the ``VALUE_GROUPS`` (see _assignment)."""
    builtin: bool = True
    hints: tuple[str, ...] = ()
    """Lowercase substrings one of which every match contains: a text with none of them skips
    the regex (most texts hold no secret; a substring test costs far less than a scan)."""


def has_digit_and_letter(value: str) -> bool:
    return any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value)


def _random_looking(value: str) -> bool:
    """A bearer token: has a digit, or is long and not one plain word."""
    if any(ch.isdigit() for ch in value):
        return True
    letters = [ch for ch in value if ch.isalpha()]
    mixed = any(ch.isupper() for ch in letters) and any(ch.islower() for ch in letters)
    return len(value) >= 20 and mixed and "_" not in value


def _after_prefix(prefix_len: int) -> Callable[[str], bool]:
    return lambda v: has_digit_and_letter(v[prefix_len:])


_PEM_BEGIN = r"-----BEGIN (?:[A-Z0-9]+(?: [A-Z0-9]+)* )?PRIVATE KEY-----"
_PEM_END = r"-----END (?:[A-Z0-9]+(?: [A-Z0-9]+)* )?PRIVATE KEY-----"

UNHINTED_RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        re.compile(
            # the body stops at a quote (JSON syntax) or at the next BEGIN line
            rf"{_PEM_BEGIN}(?:(?:[^\"-]|-(?!----BEGIN))*?{_PEM_END}"
            # truncated block (no END line): the header lines and base64 lines that follow
            r"|(?:(?:\\[nr]|[\r\n])+(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info):[^\r\n\\\"]*))*)"
        ),
        lambda v: re.search(r"[A-Za-z0-9+/]{16}", v) is not None,
    ),
    Rule(
        "jwt",
        re.compile(rf"{_B}eyJ[A-Za-z0-9_\-]{{10,}}\.[A-Za-z0-9_\-]{{10,}}\.[A-Za-z0-9_\-]*{_E}"),
    ),
    Rule(
        "api_key",
        re.compile(rf"{_B}sk-ant-[A-Za-z0-9_\-]{{20,}}{_E}"),
        _after_prefix(7),
    ),
    Rule(
        "api_key",
        re.compile(rf"{_B}sk-[A-Za-z0-9_\-]{{20,}}{_E}"),
        _after_prefix(3),
    ),
    Rule("api_key", re.compile(rf"{_B}(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[0-9A-Z]{{16}}{_E}")),
    Rule("api_key", re.compile(rf"{_B}gh[pousr]_[A-Za-z0-9]{{30,}}{_E}"), _after_prefix(4)),
    Rule("api_key", re.compile(rf"{_B}github_pat_[A-Za-z0-9_]{{22,}}{_E}"), _after_prefix(11)),
    Rule("api_key", re.compile(rf"{_B}glpat-[A-Za-z0-9_\-]{{20,}}{_E}"), _after_prefix(6)),
    Rule(
        "api_key",
        re.compile(rf"{_B}(?:xox[abposr]|xapp)-[A-Za-z0-9\-]{{10,}}{_E}"),
        _after_prefix(5),
    ),
    Rule("api_key", re.compile(rf"{_B}AIza[0-9A-Za-z_\-]{{35}}{_E}")),
    Rule(
        "api_key",
        re.compile(rf"{_B}(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{{16,}}{_E}"),
        _after_prefix(8),
    ),
    Rule("api_key", re.compile(rf"{_B}hf_[A-Za-z0-9]{{30,}}{_E}"), _after_prefix(3)),
    Rule("api_key", re.compile(rf"{_B}npm_[A-Za-z0-9]{{36}}{_E}"), _after_prefix(4)),
    Rule("api_key", re.compile(rf"(?:(?<=bot)|{_B})\d{{8,10}}:AA[\w\-]{{33}}{_E}", re.A)),
    Rule("api_key", WANDB_RE, _after_prefix(9)),
    # Supabase's secret key (sb_publishable_ is public; service-role JWTs are jwt; blind 29)
    Rule("api_key", re.compile(rf"{_B}sb_secret_[A-Za-z0-9_\-]{{20,}}{_E}")),
    Rule("api_key", WANDB_LOGIN_RE),
    Rule(
        "url_password",
        re.compile(
            r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,20}://"
            r"[^\s:/@\"'<>\\]*:(?P<secret>[^\s/@\"'<>\\]+)@(?=[A-Za-z0-9\[])"
        ),
    ),
    Rule(
        "bearer_token",
        re.compile(
            r"(?i:authorization)(?:\\?[\"'])?\s{0,3}[:=]\s{0,3}(?:\\?[\"'])?\s{0,3}"
            r"(?i:bearer|basic|token|bot)\s+(?P<secret>[A-Za-z0-9\-._~+/]{7,}[A-Za-z0-9\-_~+/]=*)"
        ),
    ),
    Rule(
        "bearer_token",
        re.compile(
            r"(?<![A-Za-z])Bearer\s+"
            r"(?P<secret>[A-Za-z0-9\-._~+/]{15,}[A-Za-z0-9\-_~+/]=*)(?![\w$<{])"
        ),
        _random_looking,
    ),
    Rule("api_key", re.compile(_assignment(_API_KEY_NAME), re.IGNORECASE), assignment=True),
    Rule("api_key", re.compile(_flag(r"api-?key|token|secret|auth-token"), re.IGNORECASE)),
    Rule("password", re.compile(_assignment(_PASSWORD_NAME), re.IGNORECASE), assignment=True),
    Rule("password", re.compile(_flag(r"password|passwd"), re.IGNORECASE)),
    # a token right after a credential word, in any language: "API是…", "token: …" (blind 27)
    Rule("api_key", LABELLED_RE, labelled_token),
    # a password in prose: "密码是…", "the password is …", sshpass -p …, mysql -p … (blind 52)
    Rule("password", prose.PROSE_PLAIN_RE, prose.plain_value),
    Rule("password", prose.PROSE_BARE_RE, prose.secret_looking),
    Rule("password", prose.PROSE_TIGHT_RE, prose.tight_value),  # 密码abc123XY (blind 67)
    Rule("password", prose.MYSQL_SPACED_RE, prose.secret_looking),
    Rule("password", prose.PROSE_SPACED_RE, prose.plain_value),  # （密碼 hunter） (blind 71)
    # the password piped into ``sudo -S`` or given as its here-string (blind 75, S1)
    Rule("password", prose.SUDO_PIPE_RE, prose.plain_value),
    Rule("password", prose.SUDO_HERE_RE, prose.plain_value),
    # "password <value>" with no "is" nor ":", "passwork <value>" (blind 75, S2)
    Rule("password", prose.PROSE_WORD_RE, prose.spaced_value),
    # what an expect/pexpect script sends to a password prompt; a crypt hash (blind 71, S1/S2)
    Rule("password", PROMPT_ANSWER_RE, lambda v: len(v.strip()) >= 2),
    Rule("password_hash", CRYPT_HASH_RE),
    # a credential in a URL's query, ``?k=<hex>``, or a subscription link's token (blind 56)
    *(Rule("api_key", regex, check) for regex, check in url_query.URL_SHAPES),
)

HINTS: tuple[tuple[str, ...], ...] = (
    ("private key-----",),
    ("eyj",),
    ("sk-ant-",),
    ("sk-",),
    ("akia", "asia", "abia", "acca", "aida", "aroa"),
    ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ("github_pat_",),
    ("glpat-",),
    ("xox", "xapp-"),
    ("aiza",),
    ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    ("hf_",),
    ("npm_",),
    (":aa",),
    ("wandb_v1_",),
    ("sb_secret_",),
    ("wandb",),
    ("://",),
    ("authorization",),
    ("bearer",),
    ("key", "secret", "token"),
    ("--",),
    ("pass", "pwd", "senha", "contrase", "kennwort"),
    ("--",),
    LABELLED_HINTS,
    prose.PROSE_HINTS,
    prose.PROSE_HINTS,
    prose.WIDE_HINTS,
    prose.MYSQL_HINTS,
    prose.WIDE_HINTS,
    prose.SUDO_HINTS,
    prose.SUDO_HINTS,
    prose.PROSE_WORD_HINTS,
    PROMPT_HINTS,
    CRYPT_HINTS,
    *url_query.URL_HINTS,
)
"""One entry per rule of ``UNHINTED_RULES``, in order (a test checks each hint is needed)."""

BUILTIN_RULES: tuple[Rule, ...] = tuple(
    Rule(r.kind, r.regex, r.check, r.assignment, r.builtin, hints)
    for r, hints in zip(UNHINTED_RULES, HINTS, strict=True)
)

ShapeRule = tuple[re.Pattern[str], tuple[str, ...], Callable[[str], bool] | None]
SHAPE_RULES: tuple[ShapeRule, ...] = tuple(
    (r.regex, r.hints, r.check) for r in BUILTIN_RULES if not r.assignment
)
"""The built-in rules that find a secret by its shape, not by its name (:mod:`.shapes`): the
regex, its hints, and the check a value it matched must pass; and :data:`NOT_SECRET_RE`."""
