"""The first pass of secret masking: which texts may hold a secret at all, at the speed of bytes.

:mod:`compactor.secrets.masking`'s rules are Python regular expressions. Python's ``re`` tries an
alternation at every position of a text (about 20 ns a character: a second or more for a 50 MB
transcript, most of which holds no secret). Rust's ``regex`` crate finds literals with SIMD
prefilters at a fraction of a nanosecond a byte, and pydantic-core (which the model SDKs
already depend on) compiles a string ``pattern`` with it: :class:`FastScan` uses that for a
yes/no search over a whole list of texts in one call. A text it clears skips every hinted
built-in rule; any other text goes through the exact rules as before.

**Never wrong, only slower.** :data:`PREFILTERS` must match everything a hinted built-in rule
can match (each rule's literal part, or an assignment's key word followed by a separator).
Where the two engines differ, the scan says "maybe": a text that is not valid UTF-8 (a lone
surrogate), and a non-ASCII text holding ``İ ı ſ K`` (Python's ``(?i)`` reads them as ``i``,
``s``, ``k``; the patterns below fold ASCII only). Without pydantic-core every answer is "maybe".
The patterns are searched one by one: together in one regex they defeat Rust's literal
prefilter (ten times slower), apart each costs a memory pass.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from compactor.schema import AgenticMessage, Block, Message

from .labelled import LABELLED_PREFILTERS
from .logins import CRYPT_PREFILTER, PROMPT_PREFILTER
from .prose import PROSE_PREFILTERS
from .url_query import URL_PREFILTERS

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator

__all__ = [
    "API_KEY_WORDS",
    "OTHER_PASSWORD_WORDS",
    "PASSWORD_WORDS",
    "PREFILTERS",
    "FastScan",
    "clean_messages",
    "message_texts",
    "scan",
]

API_KEY_WORDS = (
    r"(?:api[_.\-]?key|apikey|api[_.\-]?secret|api[_.\-]?token|secret[_.\-]?key|"
    r"client[_.\-]?secret|access[_.\-]?token|auth[_.\-]?token|secret[_.\-]?access[_.\-]?key|"
    r"private[_.\-]?token|(?:service[_.\-]?)?role[_.\-]?key)"
)
"""The key words an ``api_key`` assignment's name ends with (any case)."""
PASSWORD_WORDS = r"(?:password|passwd|passphrase|pwd)"
"""The key words a ``password`` assignment's name ends with (any case)."""
OTHER_PASSWORD_WORDS = (
    r"(?:passwort|kennwort|senha|contrase[ñn]a|mot[ \t]de[ \t]passe|пароль"
    r"|密码|密碼|パスワード|비밀번호)"
)
"""The word "password" in other languages, a whole ``password`` assignment's name (``Passwort:
geheim``, ``пароль = qwerty``; blind check 71, S2: masked as ``PASSWD="…"`` is)."""

PREFILTERS: tuple[str, ...] = (
    "PRIVATE KEY-----|eyJ|sk-|A(?:KIA|SIA|BIA|CCA|IDA|ROA)|github_pat_|glpat-|xapp-|AIza|hf_"
    "|npm_|://|Bearer|(?i-u:wandb)|sb_secret_|[0-9]:AA",
    "gh[pousr]_|xox[abposr]-|[sr]k_(?:live|test)_",
    "(?i-u:authorization)|--(?i-u:api-?key|token|secret|auth-token|password|passwd)",
    # an assignment: the name ends with its key word, then a quote, spaces and ':' or '='
    r"(?i-u:key|token|secret|pwd|passwd|password|passphrase)\\?[\"']?[\s\x1c-\x1f]{0,3}[:=：＝]",
    r"(?:(?i-u:passwort|kennwort|senha|contrase|passe)|(?i:пароль)|密码|密碼|パスワード|비밀번호)"
    r"[^:=：＝\n]{0,3}[:=：＝]",
    # a crypt password hash; a literal sent to a password prompt (secrets.logins)
    CRYPT_PREFILTER,
    PROMPT_PREFILTER,
    # a token of 20 characters after a credential word in any language (masking.labelled)
    *LABELLED_PREFILTERS,
    # a password in prose, in any language (masking.prose)
    *PROSE_PREFILTERS,
    # a credential in a URL's query or a subscription link (secrets.url_query)
    *URL_PREFILTERS,
)
"""Together: what every match of a hinted built-in rule of :mod:`compactor.secrets.masking`
contains."""
_FOLDS_TO_ASCII = "[\u0130\u0131\u017f\u212a]"
"""İ ı ſ K: Python's ``(?i)`` matches them to ASCII letters (a text holding one is a maybe)."""


class FastScan:
    """``may_match``: False only when none of ``patterns`` occurs in a text (Rust regex)."""

    __slots__ = ("_folds", "_searches", "_utf8")

    def __init__(self, patterns: Sequence[str]) -> None:
        self._searches: list[SchemaValidator] = []
        self._folds: SchemaValidator | None = None
        self._utf8: SchemaValidator | None = None
        try:
            from pydantic_core import SchemaError, SchemaValidator, core_schema
        except ImportError:  # pragma: no cover - pydantic-core comes with the model SDKs
            return
        config = core_schema.CoreConfig(regex_engine="rust-regex")

        def finder(regex: str) -> SchemaValidator:
            # a list of texts → each text when the regex occurs in it, else None (no match, or
            # not UTF-8)
            item = core_schema.with_default_schema(
                core_schema.str_schema(pattern=regex), default=None, on_error="default"
            )
            return SchemaValidator(core_schema.list_schema(item), config)

        try:
            self._searches = [finder(p) for p in patterns]
            self._folds, self._utf8 = finder(_FOLDS_TO_ASCII), finder("")
        except SchemaError:  # pragma: no cover - a pattern Rust's engine refuses: always "maybe"
            self._searches = []

    @property
    def fast(self) -> bool:
        """Whether the Rust engine is in use (else every answer is "maybe")."""
        return bool(self._searches)

    def may_match(self, text: str) -> bool:
        return self.may_match_each([text])[0]

    def may_match_each(self, texts: list[str]) -> list[bool]:
        """For each text: may a pattern occur in it?"""
        if not self._searches:
            return [True] * len(texts)
        maybe = [False] * len(texts)
        for search in self._searches:
            found = search.validate_python(texts)
            if found.count(None) != len(found):  # in C: most often no text matches
                for i, hit in enumerate(found):
                    if hit is not None:
                        maybe[i] = True
        wide = [i for i, text in enumerate(texts) if not text.isascii()]
        wide = [i for i in wide if not maybe[i]]
        if wide:
            subset = [texts[i] for i in wide]
            assert self._folds is not None  # set with the searches
            assert self._utf8 is not None
            folds = self._folds.validate_python(subset)
            utf8 = self._utf8.validate_python(subset)
            for i, fold, valid in zip(wide, folds, utf8, strict=True):
                maybe[i] = fold is not None or valid is None
        return maybe


@functools.cache
def scan() -> FastScan:
    """The scan of :data:`PREFILTERS` (built on first use: pydantic-core is imported then)."""
    return FastScan(PREFILTERS)


def _url(url: str | None) -> str | None:
    return None if url is None or url.startswith("data:") else url  # never masked


def _block_texts(block: Block) -> Iterator[str]:
    for text in (block.text, block.arguments, _url(block.url)):
        if text:
            yield text
    for sub in block.content:
        yield from _block_texts(sub)


def _texts(msg: object) -> list[str]:
    """Every text of a message that masking reads."""
    if isinstance(msg, Message):
        texts = [msg.content, *(t for p in msg.parts for t in (p.text, _url(p.url)) if t)]
        texts.extend(c.arguments for c in msg.tool_calls)
        if msg.reasoning_content:
            texts.append(msg.reasoning_content)
        return texts
    if isinstance(msg, AgenticMessage):
        return [t for b in msg.blocks for t in _block_texts(b)]
    return []


def message_texts(msg: object) -> list[str]:
    """Every text of a message that masking reads (a tool call's arguments, a result's)."""
    return _texts(msg)


def clean_messages(messages: Sequence[object]) -> list[bool]:
    """For each message: True when no text of it can match a hinted built-in rule. The texts
    are scanned where they are (no joined copy of a message's texts)."""
    texts: list[str] = []
    owners = array("I")  # texts[j] belongs to messages[owners[j]]
    add, own = texts.append, owners.append
    for i, msg in enumerate(messages):
        if type(msg) is Message and not (msg.parts or msg.reasoning_content):
            if msg.content:  # most messages: their content alone, or with tool calls
                add(msg.content)
                own(i)
            for call in msg.tool_calls:
                if call.arguments:
                    add(call.arguments)
                    own(i)
        else:
            found = [text for text in _texts(msg) if text]
            texts.extend(found)
            owners.extend([i] * len(found))
    clean = [True] * len(messages)
    maybe = scan().may_match_each(texts)
    if any(maybe):  # in C; most histories hold few texts to read closely
        for j in [j for j, flag in enumerate(maybe) if flag]:
            clean[owners[j]] = False
    return clean
