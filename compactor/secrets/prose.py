"""A credential the user gives in prose, in any common language (blind check 52, S1: the user
pasted an SSH password as "…，密码是XXXX" and the summary printed it twice; no ``name = value``
assignment and no key shape was there, and the value was too short and too plain for
:mod:`.labelled`'s random-token rule).

Three shape rules, in :mod:`.masking`'s built-in rules (so the transcript masker and the
summary's :mod:`.shapes` share them):

* :data:`PROSE_BARE_RE`: a credential word (``password``, ``passwd``, ``pwd``, ``pass phrase``,
  ``passcode``, ``PIN``, ``token``, ``secret``, ``API key``, ``credentials``, ``mot de passe``,
  ``Passwort``, ``Kennwort``, ``contraseña``, ``senha``, ``пароль``, optionally "for root" /
  "of the VM"), then ``is``/``was``/``are``/``es``/``est``/``ist``/``lautet``/``é``/``это``/a
  dash/``:``/``=``/``：``, then an unquoted value; or a CJK/Japanese/Korean credential word
  (``密码``, ``口令``, ``密钥``, ``令牌``, ``パスワード``, ``暗証番号``, ``비밀번호``, ``암호``)
  and a space. The value must look like a secret (:func:`secret_looking`: a digit or a
  symbol, not a path, URL, call, hyphenated word or ``ENV_NAME``), so prose ("the password is
  required", "password reset flow") and code (``password: str``, ``password=None``,
  ``password=os.environ[…]``, ``password=getpass()``) are kept.
* :data:`PROSE_PLAIN_RE`: a value that needs no such look: after a CJK/Japanese/Korean word and
  its particle or copula (``密码是admin``, ``密码都是…``, ``パスワードは…``, ``비밀번호는 …``,
  ``口令：…``: an ASCII run inside CJK prose is the value), or quoted after any of the words and
  separators (``password is "swordfish"``); and ``sshpass -p X``.
* :data:`SUDO_PIPE_RE`, :data:`SUDO_HERE_RE`: what ``sudo -S`` reads as its password
  (``echo 'X' | sudo -S …``, ``printf '%s\n' X | sudo -S …``, ``sudo -S … <<< X``).
* :data:`MYSQL_SPACED_RE`: ``mysql … -p X`` (the value after a space; ``mysql -pX`` and
  ``-p'X'`` are :mod:`.shapes`' ``PASSWORD_SHAPES``); a plain word there is a database's name.

Only the value is replaced; the words around it stay. ``user:pass@host`` in a URL is
:mod:`.masking`'s ``url_password`` rule. :data:`PROSE_PREFILTERS` are the rules' superset tests
in Rust's ``regex`` syntax (:mod:`.secret_scan`)."""

from __future__ import annotations

import re

from compactor._util import code_reference

from .plausible import NOT_SECRET_RE

__all__ = [
    "MYSQL_SPACED_RE",
    "PROSE_BARE_RE",
    "PROSE_HINTS",
    "PROSE_PLAIN_RE",
    "PROSE_PREFILTERS",
    "PROSE_SPACED_RE",
    "PROSE_TIGHT_RE",
    "PROSE_WORD_RE",
    "SUDO_HERE_RE",
    "SUDO_HINTS",
    "SUDO_PIPE_RE",
    "WIDE_HINTS",
    "plain_value",
    "secret_looking",
    "spaced_value",
    "tight_value",
]

_LATIN = (
    r"(?<![A-Za-z0-9_\-.])(?:(?i:passwords?|passwd|pwd|pass[ \t]?phrase|passcode|token|secret"
    r"|api[ _\-]?key|credentials?|mot[ \t]+de[ \t]+passe|passwort|kennwort|senha"
    r"|contrase[ñn\ufffd]a)|PIN|[Пп]ароль|ПАРОЛЬ)(?![A-Za-z0-9_])(?:\*\*?|__?)?"
)
"""The credential words written with Latin (or Cyrillic) letters; ``PIN`` in capitals only;
``contrasena`` and ``contrase�a`` (a mis-decoded ñ) too; a Markdown emphasis may close the word
(``**Password**: …``, blind check 59 N1)."""
_FOR = r"(?:[ \t]+(?i:for|of|to|on|de|für|для)(?:[ \t]+[\w.@\-]{1,40}){1,3}?)?"
_VERBS = r"(?i:is|was|are|es|est|ist|lautet|era)|é|É|это|Это|—|–|-"
"""An optional "for root" / "of the VM" between the word and its verb."""
_LATIN_SEP = (
    r"(?:[ \t]*(?:[:=：＝]|->)(?:\*\*?|__?)?[ \t]*"  # ``**Password:** `…```: bold closes after
    rf"|[ \t]+(?:{_VERBS})(?:[ \t]*:)?[ \t]+)"
)
_WIDE = r"(?:密码|密碼|口令|密钥|秘钥|密鑰|令牌|パスワード|暗証番号|비밀번호|암호)"
_WIDE_GLUE = r"(?:[ \t]*(?:[就都也还還]?[是为為]|は|が|는|은|이|가|[：:=＝])[ \t]*)"
_CHARS = r"A-Za-z0-9!#$%&*+\-./:=?@^_~"
_VALUE = rf"(?P<secret>[{_CHARS}]{{0,63}}[{_CHARS.replace('./:', '/').replace('?', '')}])"
_END = rf"(?=[.:?]*(?![{_CHARS}\[(]))"
"""The value ends before a sentence's ``.``/``:``/``?`` and never before ``(`` or ``[`` (code)."""
_OPEN = "[\"'`“「«]"
_CLOSE = "[\"'`”」»]"

PROSE_BARE_RE = re.compile(rf"(?:{_LATIN}{_FOR}{_LATIN_SEP}|{_WIDE}[ \t]+){_VALUE}{_END}")
"""An unquoted value after a credential word and its verb (see the module doc)."""
PROSE_PLAIN_RE = re.compile(
    rf"(?:{_WIDE}{_WIDE_GLUE}(?P<wq>{_OPEN})?|{_LATIN}{_FOR}{_LATIN_SEP}(?P<lq>{_OPEN})"
    rf"|(?<![\w\-])sshpass[ \t]+(?:-[a-oq-zA-Z]\S*[ \t]+)*-p[ \t]*(?P<sq>{_OPEN})?)"
    rf"{_VALUE}(?(wq){_CLOSE}|(?(lq){_CLOSE}|(?(sq){_CLOSE}|{_END})))"
)
"""A value after a CJK word and its copula, a quoted value, or ``sshpass -p``'s value."""
PROSE_TIGHT_RE = re.compile(rf"{_WIDE}{_VALUE}{_END}")
"""A value written straight after a CJK/Japanese/Korean word, no separator (``密码abc123XY也是
对的``; blind check 67, S3); it ends at the first CJK character (:func:`tight_value` judges it)."""
PROSE_SPACED_RE = re.compile(
    rf"{_WIDE}[ \t]+{_VALUE}(?=[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\u3040-\u30ff"
    r"\u4e00-\u9fff\uac00-\ud7af)\]」』】]|[ \t]*(?:\n|\r|\\[nr]|$))"
)
"""A plain value after a CJK/Japanese/Korean word and a space, that CJK text, a bracket or the
line's end closes (``（密碼 hunter）``: blind check 71, S2 — :data:`PROSE_BARE_RE` asks for a
digit or a symbol, and Latin words in CJK prose are set off by spaces too)."""
MYSQL_SPACED_RE = re.compile(
    rf"(?i:\b(?:mysql|mysqldump|mysqladmin|mariadb))\b[^\n|;&]{{0,200}}?"
    rf"(?<![\w\-])-p[ \t]*{_VALUE}{_END}"
)
"""``mysql … -p X``: masked only when ``X`` looks like a secret (else a database's name)."""


def _one_edit(word: str) -> list[str]:
    """``word`` and the words one typo away from it (a letter replaced, added, dropped or two
    swapped) that keep its first three letters; longest first."""
    abc = "abcdefghijklmnopqrstuvwxyz"
    out = {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}
    out |= {word[:i] + c + word[i + 1 :] for i in range(len(word)) for c in abc}
    out |= {word[:i] + c + word[i:] for i in range(len(word) + 1) for c in abc}
    out |= {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    return sorted((w for w in out if w.startswith(word[:3])), key=lambda w: (-len(w), w))


PROSE_WORD_RE = re.compile(
    rf"(?<![A-Za-z0-9_\-./])(?i:{'|'.join(_one_edit('password'))})[ \t]+{_VALUE}{_END}"
)
"""A value right after the word ``password`` and a space, no "is" nor ``:`` ("username
<e-mail> password <value>"), or after the word with one typo ("passwork <value>"): blind check
75, S2. Masked only when the value looks like a credential (:func:`spaced_value`): "password
reset", "password manager", "the password field" are prose."""
PROSE_WORD_HINTS: tuple[str, ...] = ("pas",)

_SUDO_S = (
    r"sudo(?=(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*S[A-Za-z]*(?![\w\-]))"
    r"(?:[ \t]+-[A-Za-z]+)+(?![\w\-])"
)
"""``sudo`` with flag-only options, one of them ``-S`` (read the password from stdin)."""
_STDIN_VALUE = (
    r"(?P<q>['\"])?(?P<secret>(?(q)[^'\"\n\\]{1,100}?|[^\s'\"\\|;&<>()`$]{1,100}))"
    r"(?:\\n)?(?(q)(?P=q))"
)
SUDO_PIPE_RE = re.compile(
    r"(?<![\w\-])(?:echo(?:[ \t]+-[neE]{1,3})*|printf(?:[ \t]+(?P<f>['\"]?)%s(?:\\n)?(?P=f))?)"
    rf"[ \t]+{_STDIN_VALUE}[ \t]*\|[ \t]*{_SUDO_S}"
)
"""``echo 'V' | sudo -S …``, ``echo V | sudo -S``, ``printf '%s\\n' V | sudo -S``, ``printf 'V\\n' |
sudo -S -k``: ``V`` is the sudo password (blind check 75, S1: a value piped into ``sudo -S`` was
printed 17 times, the user's message that gave it too). The whole match, up to the flags, reads
as plain ``sudo`` (:func:`compactor.models.local_retries.contains_command`: the retry of a
failed ``sudo CMD``); ``echo text | sudo tee F`` (no ``-S``) is no password."""
SUDO_HERE_RE = re.compile(
    rf"(?<![\w\-]){_SUDO_S}[^\n|;&<>]{{0,200}}?<<<[ \t]*{_STDIN_VALUE}(?![^\s|;&)])"
)
"""``sudo -S CMD <<< V``: the here-string is the sudo password."""
SUDO_HINTS: tuple[str, ...] = ("sudo",)

PROSE_HINTS: tuple[str, ...] = (
    *("pass", "pwd", "pin", "token", "secret", "api", "credential", "kennwort", "senha"),
    *("contrase", "пароль", "密码", "密碼", "口令", "密钥", "秘钥", "密鑰", "令牌"),
    *("パスワード", "暗証番号", "비밀번호", "암호"),
)
"""What every match of the two prose rules holds, lowered (``sshpass`` holds ``pass``)."""
WIDE_HINTS: tuple[str, ...] = PROSE_HINTS[11:]
"""What every match of :data:`PROSE_TIGHT_RE` holds: a CJK/Japanese/Korean word."""
MYSQL_HINTS: tuple[str, ...] = ("mysql", "mariadb")

_RUST_LATIN = (
    r"(?:(?i-u:passwords?|passwd|pwd|pass[ \t]?phrase|passcode|token|secret|api[ _\-]?key"
    r"|credentials?|mot[ \t]+de[ \t]+passe|passwort|kennwort|senha)|(?i-u:contrase).(?i-u:a)"
    r"|PIN|[Пп]ароль|ПАРОЛЬ)"
)
_RUST_FOR = r"(?:\*\*?|__?)?(?:[ \t]+(?i:for|of|to|on|de|für|для)(?:[ \t]+[^\s/:=]{1,40}){1,3})?"
_RUST_SEP = (
    r"(?:[ \t]*(?:[:=：＝]|->)(?:\*\*?|__?)?[ \t]*"
    r"|[ \t]+(?:(?i-u:is|was|are|es|est|ist|lautet|era)|é|É|это|Это|—|–|-)(?:[ \t]*:)?[ \t]+)"
)
_RUST_SECRETISH = (
    r"(?:[A-Za-z./]+[0-9#$%&*+\-=@^_~]|[0-9&+\-=@^_~]"
    r"|[A-Za-z./]*[:?!]+[A-Za-z0-9!#$%&*+\-/=@^_~.])"
)
"""The start of an unquoted value :func:`secret_looking` can take: a digit or a symbol other
than ``.`` and ``/`` after letters, dots and slashes (``:`` and ``?`` end no value, ``!``
no secret: "compact!"; ``$``,
``%``, ``*`` and ``#`` start none: ``NOT_SECRET_RE``, so the summary's ``***`` is no value)."""
PROSE_PREFILTERS: tuple[str, ...] = (
    rf"{_RUST_LATIN}{_RUST_FOR}{_RUST_SEP}(?:[\"'`“「«]|{_RUST_SECRETISH})",
    rf"{_WIDE}[ \t]*(?:[^ \t\n]{{1,2}}[ \t]*)?[\"'`“「«]?[{_CHARS}]",
    r"sshpass|sudo|(?i-u:mysql|mariadb)[^\n|;&]{0,220}-p",
    r"(?i-u:pas[a-z]{0,3}(?:w|ord)[a-z]{0,4})[ \t]+[A-Za-z0-9!#$%&*+\-./:=?@^_~]{6}",
)
"""What every match of the three rules holds, in Rust's ``regex`` syntax (no look-around): a
superset test (no look-around: a word's bounds are left out)."""

_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
_ENV = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*")
_VERSION = re.compile(r"[vV]?\d+(?:\.\d+)+(?:[-+][\w.]+)?")
_PATH = re.compile(r"[\w.\-@]*(?:/[\w.\-@]+)+?(\.[A-Za-z][A-Za-z0-9]{0,5})?/?")


def plain_value(value: str) -> bool:
    """A value after a CJK copula, in quotes or after ``sshpass -p``: anything but a
    placeholder, a type, a path or a value already masked (``password:***``: masking twice)."""
    if len(value) < 3 or NOT_SECRET_RE.match(value) or "***" in value:
        return False
    return not (value.startswith(("/", "./", "~/")) or "://" in value)


def secret_looking(value: str) -> bool:
    """An unquoted value in prose that is a secret, not a word, path, URL or code: it has a
    digit or a symbol other than ``.`` and ``/``; not a hyphenated word (``re-used``), an
    ``ENV_NAME``, a version (``v1.2.3``), ``settings.password`` or a path (``src/v2/app.py``)."""
    if len(value) < 4 or not plain_value(value):
        return False
    core = value.rstrip("!")  # "the token is great!": a sentence's "!"
    if not any(ch.isdigit() or (ch not in "./" and not ch.isalnum()) for ch in core):
        return False  # a word, a file's name (``models.json``) or path (``src/app/x.rs``)
    if _HYPHENATED.fullmatch(value) or _ENV.fullmatch(value) or _VERSION.fullmatch(value):
        return False
    if "/" in value and (m := _PATH.fullmatch(value)) and (m.group(1) or value.count("/") > 1):
        return False  # ``src/v2/app.py``, ``api/v1/users``
    return not code_reference(value)


_ALGORITHM = re.compile(
    r"(?i:sha|md|aes|rsa|dsa|ecdsa|ed|utf|crc|des|tls|ssl|hs|rs|es|x|base|pbkdf|argon|blake"
    r"|curve|bcrypt|scrypt|sm|p)[-_]?\d{1,5}[a-z]?"
    r"|\d{1,4}-?(?i:bits?|bytes?|chars?|characters|digits?|kb|mb|gb)"
)
"""``SHA256``, ``AES-128``, ``UTF16``, ``256bit``, ``12-chars``: a scheme's name or a size, not
a password."""


def spaced_value(value: str) -> bool:
    """A value after ``password`` and only a space (or its typo) that is a credential: 6
    characters or more, and a digit or a symbol (:func:`secret_looking`) or mixed case inside a
    word of letters (``hUnterTwo``); not an algorithm's name (``SHA256``)."""
    if len(value) < 6 or _ALGORITHM.fullmatch(value):
        return False
    if secret_looking(value):
        return True
    mixed = any(ch.isupper() for ch in value[1:]) and any(ch.islower() for ch in value)
    return mixed and value.isalpha() and plain_value(value) and not code_reference(value)


def tight_value(value: str) -> bool:
    """A value glued to a CJK credential word that is a secret: 6 digits or more, or
    :func:`secret_looking`, 8 characters or more, and letters with digits, or both cases with a
    symbol (``密码abc123XY``; not ``密码md5`` nor ``密钥ID`` nor ``密钥2048位``)."""
    if len(value) >= 6 and value.isdigit() and value.isascii():
        return True  # a PIN-like password (密码<6 digits>也是对的: blind check 67 S3)
    if len(value) < 8 or not secret_looking(value):
        return False
    letters = [ch for ch in value if ch.isalpha()]
    if letters and any(ch.isdigit() for ch in value):
        return True
    symbol = any(not ch.isalnum() for ch in value)
    return symbol and any(ch.isupper() for ch in letters) and any(ch.islower() for ch in letters)
