"""A secret introduced by a credential word rather than assigned to a credential-named key
(blind check 27, S1: the user answered "<team>就是这个，API是wandb_v1_…" and the summary printed
the 86-character Weights & Biases key twice: no vendor shape knew ``wandb_v1_``, and no
``name = value`` assignment was there).

:data:`LABELLED_RE` finds a long random-looking token right after a credential word, in
English or in the common spellings of other languages (``API``, ``API key``, ``token``,
``password``, ``密钥``, ``令牌``, ``密码``, ``トークン``, ``비밀번호``, ``clave``, ``mot de
passe``, ``Schlüssel``, ``senha``, ``пароль`` …), with any separator or none after a non-ASCII
word (``是``, ``：``, ``=``, ``is``, ``es``, ``est``, a space). :func:`labelled_token` then keeps
only a value that looks random: 20 characters or more, letters and digits interleaved (at least
four changes between a letter and a digit), and a part that is not a word with a version
number (``api_v2``, ``sha256``). So prose ("the API is documented", "token count 12345",
"password reset flow"), identifiers (``token_count_2024``), paths and URLs (the token stops
before ``/``, ``.ext`` or ``://``) and placeholders (``your_api_key_here_123…``) are kept; a
git sha after "commit" has no credential word before it. A 40-hex key (W&B's classic key) is
masked only after a credential word (or after ``wandb login``).

:data:`WANDB_RE` is the vendor shape: ``wandb_v1_…`` anywhere."""

from __future__ import annotations

import re
from itertools import pairwise

from .plausible import NOT_SECRET_RE

__all__ = [
    "LABELLED_HINTS",
    "LABELLED_PREFILTERS",
    "LABELLED_RE",
    "LABELLED_WIDE_HINTS",
    "WANDB_LOGIN_RE",
    "WANDB_RE",
    "labelled_token",
]

_ASCII_WORDS = (
    *("api", "key", "keys", "token", "tokens", "secret", "secrets", "password", "passwords"),
    *("passwd", "pwd", "passphrase", "credential", "credentials", "auth", "bearer"),
    *("clave", "chave", "senha", "passwort", r"mot\s+de\s+passe"),
    *("apikey", "apiKey", "APIKey", "api_key", "api-key", "access_token", "accessToken"),
)
"""Credential words written in ASCII (English, Spanish ``clave``, Portuguese ``chave``/``senha``,
German ``Passwort``, French ``mot de passe``)."""
_WIDE_WORDS = (
    *("密钥", "秘钥", "密鑰", "令牌", "密码", "密碼", "口令", "キー", "トークン", "パスワード"),
    *("키", "토큰", "비밀번호", "암호", "clé", "contraseña", "schlüssel", "ключ", "токен"),
    "пароль",
)
"""Credential words with non-ASCII letters (Chinese, Japanese, Korean, French ``clé``, Spanish
``contraseña``, German ``Schlüssel``, Russian)."""


def _spellings(words: tuple[str, ...]) -> str:
    """``words`` in lower case, capitalised and in capitals, as one alternation (not ``(?i)``,
    which makes the prefilter's literals, and so the fast scan, several times slower); a word
    with non-ASCII letters also JSON-escaped (``\\u5bc6\\u94a5``: a tool call's arguments)."""
    forms = {f: None for w in words for f in (w, w[:1].upper() + w[1:], w.upper())}
    wide = [_escaped(f, hexes) for f in forms if not f.isascii() for hexes in ("%04x", "%04X")]
    return "|".join([f.replace(r"\S", r"\s") for f in forms] + list(dict.fromkeys(wide)))


def _escaped(text: str, hexes: str) -> str:
    """``text`` as a JSON string with ``ensure_ascii`` writes it, as a regex."""
    return "".join(ch if ch.isascii() else "\\\\u" + hexes % ord(ch) for ch in text)


_WIDE_GLUE = "是为為はが는은이가：＝，"
_ESCAPED_GLUE = "|".join(_escaped(ch, h) for ch in _WIDE_GLUE for h in ("%04x", "%04X"))
_COPULA = r"(?:is|are|was|es|est|ist|é|era|sont|sind|это|=)"  # "API key is …", "la clave es …"
_GLUE = rf"(?:[:=]|=>|->|[{_WIDE_GLUE}]|{_ESCAPED_GLUE})"
"""A separator that may touch both the word and the value (``API是…``, ``token=…``)."""
_SEP = rf"(?:[ \t]{{0,3}}{_GLUE}[ \t]{{0,3}}|[ \t]{{1,3}}{_COPULA}[ \t]{{1,3}}|[ \t]{{1,3}})"
_OPEN = r"""(?:\\?["'`“‘「『])?"""
_TOKEN = (
    r"(?P<secret>[A-Za-z0-9][A-Za-z0-9_\-]{19,}"
    # a base64 value goes on past ``+``, ``/`` and ``=`` (blind check 67, S2: the mask of
    # ``JWT_SECRET=<base64>`` stopped at the first ``+`` and printed the rest); a ``/`` alone
    # (a path) does not: the tail holds a ``+`` or ends with ``=``
    r"(?:[+=][A-Za-z0-9_\-+/=]*|/[A-Za-z0-9_\-/]*[+=][A-Za-z0-9_\-+/=]*)?)"
    r"(?![A-Za-z0-9_\-/@]|\\(?![nrtu\"\\])|\.[A-Za-z0-9]|:/)"  # not a path, file or URL
)

_BEFORE = r"(?:(?<![A-Za-z])|(?<=\\[nrt])|(?<=\\u[0-9A-Fa-f]{4}))"
"""No letter before an ASCII word, unless it ends a JSON escape (``\\nAPI``, ``\\uff0cAPI``)."""

LABELLED_RE = re.compile(
    rf"(?:{_BEFORE}(?:{_spellings(_ASCII_WORDS)})(?![A-Za-z]){_SEP}{{1,2}}"
    rf"|(?:{_spellings(_WIDE_WORDS)}){_SEP}{{0,2}}){_OPEN}{_TOKEN}"
)
"""A token right after a credential word (see the module doc); the value is ``secret``."""
_GAP = (
    rf"(?:[\s:=>\-\\\"'`“‘「『{_WIDE_GLUE}]|\\u[0-9A-Fa-f]{{4}}"
    r"|is|are|was|es|est|ist|é|era|sont|sind|это){0,20}"
)
_WS = r"\s\x1c-\x1f"  # Python's \s: Rust's and the four separators U+001C..U+001F
_RUST_GAP = _GAP.replace(r"[\s", "[" + _WS)


def _rust_words(words: tuple[str, ...]) -> str:
    return _spellings(words).replace(r"\s", "[" + _WS + "]")


LABELLED_PREFILTERS = tuple(
    rf"(?:{_rust_words(words)}){_RUST_GAP}[A-Za-z0-9][A-Za-z0-9_\-]{{19}}"
    for words in (_ASCII_WORDS, _WIDE_WORDS)
)
"""What every match of :data:`LABELLED_RE` holds, in the syntax of Rust's ``regex`` (no
look-around) for :mod:`.secret_scan`: the word, at most 20 separator units, 20 characters.
Two patterns: ASCII and other literals in one set make Rust's prefilter four times slower."""

LABELLED_HINTS: tuple[str, ...] = (
    *("api", "key", "token", "secret", "pass", "pwd", "credential", "auth", "bearer"),
    *("clave", "chave", "senha", "\\u"),
)
"""What an ASCII text holding a match holds (a non-ASCII text is always read): a word, or a
JSON escape (``\\u5bc6\\u94a5``, ``API\\u662f…``)."""
LABELLED_WIDE_HINTS: tuple[str, ...] = tuple(dict.fromkeys(w.lower() for w in _WIDE_WORDS))
"""What a non-ASCII text holding a match holds besides :data:`LABELLED_HINTS`: a non-ASCII
word, lowered (with ``str.lower``, as the hints are read)."""

WANDB_RE = re.compile(r"(?<![A-Za-z0-9_\-])wandb_v1_[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])")
"""A Weights & Biases API key of the current shape (``wandb_v1_`` + 77 characters)."""
WANDB_LOGIN_RE = re.compile(
    r"(?i:\bwandb\s+login)(?:\s+--?[\w\-]+)*\s+(?P<secret>[0-9a-f]{40})(?![A-Za-z0-9_\-])"
)
"""``wandb login [--relogin] <40-hex key>``: the classic W&B key on a command line."""

_PLAIN_PART_RE = re.compile(r"[A-Za-z]+[0-9]{1,4}|[0-9]{1,4}[A-Za-z]{1,3}|[A-Za-z]+|[0-9]+")
"""A part of an identifier that is a word, a number, or a word with a short number
(``v2``, ``sha256``, ``64bit``, ``2nd``)."""


def labelled_token(value: str) -> bool:
    """Whether a token after a credential word looks random enough to be the secret."""
    if len(value) < 20 or NOT_SECRET_RE.match(value):
        return False
    alnum = value.replace("_", "").replace("-", "")
    if not (any(ch.isdigit() for ch in alnum) and any(ch.isalpha() for ch in alnum)):
        return False
    changes = sum(a.isdigit() != b.isdigit() for a, b in pairwise(alnum))
    if changes < 4:
        return False  # token_count_2024_total, release-2024-01-15-notes
    parts = re.split(r"[_\-]", value)
    return any(part and not _PLAIN_PART_RE.fullmatch(part) for part in parts)
