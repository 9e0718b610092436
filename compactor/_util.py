"""Small internal helpers shared by the core (no public API)."""

from __future__ import annotations

import copy
import gc
import inspect
import re
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import TypeVar, Union, cast

T = TypeVar("T")

MaybeAwaitable = Union[T, Awaitable[T]]  # noqa: UP007 - a runtime alias, 3.11-compatible
"""A value or an awaitable of it: user callables may be plain or coroutine functions."""


_GC_THRESHOLDS = (100_000, 50, 100)
"""The cyclic collector's thresholds while a run holds a history (:func:`fewer_gc_passes`)."""
_gc_depth = 0
_gc_saved: tuple[int, int, int] = (700, 10, 10)


@contextmanager
def fewer_gc_passes() -> Iterator[None]:
    """Run the cyclic garbage collector less often inside the block (nested or concurrent
    blocks share one setting; the last to leave puts the thresholds back).

    A run holds a history of up to millions of small objects (records, lines, messages, the
    summarizer's views), none in a cycle; at the default thresholds (a young pass every 700
    allocations, a full pass whenever the long-lived objects grew by a quarter) the collector
    walked them again and again: 30 % of a run's time on a file of a million tiny messages.
    Reference counting still frees every acyclic object at once; cycles (exceptions, asyncio)
    are still collected, every 100,000 allocations.
    """
    global _gc_depth, _gc_saved
    if _gc_depth == 0:
        _gc_saved = gc.get_threshold()
        gc.set_threshold(*_GC_THRESHOLDS)
    _gc_depth += 1
    try:
        yield
    finally:
        _gc_depth -= 1
        if _gc_depth == 0:
            gc.set_threshold(*_gc_saved)


def fewer_gc_passes_to_the_end() -> None:
    """:func:`fewer_gc_passes` for the rest of the process: for the command line only, which
    ends with ``os._exit`` (``compactor.cli.app.main``). Its start-up then walks no young
    objects every 700 allocations (~3 ms of a 0.1 s start), and the end of a run does not walk
    the history it still holds (the run is kept to the end, not freed: 5-9 ms after a 50 MB
    ``--strategy reduce``). A block of :func:`fewer_gc_passes` inside puts back these values."""
    gc.set_threshold(*_GC_THRESHOLDS)


async def maybe_await(value: MaybeAwaitable[T]) -> T:
    """Await ``value`` when it is awaitable, else return it."""
    if inspect.isawaitable(value):
        return await value
    return value


def run_without_loop(coro: Coroutine[object, None, T]) -> T:
    """Run ``coro`` to its end without an event loop, so that asyncio is not even imported.

    For a coroutine that never waits on a loop (``compact run --strategy reduce`` with a
    counter of its own: nothing in it awaits I/O; BENCHMARKS.md, issue 30). A bare ``yield``
    (``asyncio.sleep(0)``) is passed over; anything else it yields (a future: it needed a loop
    after all) is answered with a RuntimeError raised inside it, which its own error handling
    reports.
    """
    step: object = None
    try:
        while True:
            step = coro.send(None) if step is None else coro.throw(_NoEventLoopError(repr(step)))
    except StopIteration as done:
        result: T = done.value
        return result


class _NoEventLoopError(RuntimeError):
    def __init__(self, what: str) -> None:
        super().__init__(f"awaited {what[:80]} outside an event loop")


async def call_maybe_async(fn: Callable[..., MaybeAwaitable[T]], *args: object) -> T:
    """Call a sync or async user callable and return its (awaited) result."""
    return await maybe_await(fn(*args))


_URL_CREDENTIALS_RE = (
    r"(?i)(\b[a-z][a-z0-9+.\-]{0,20}://)[^\s/?#@\"'<>]+(?=@[^\s/?#@]*[A-Za-z0-9\]])"
)
_QUERY_SECRET_NAME = (
    r"(?:[a-z0-9]+[_\-.])*(?:api[_\-]?key|key|keys|token|tokens|sig|signature|secret|password"
    r"|passwd|pwd|pass|auth|authorization|credentials?|session|code)"
)
"""Query parameters whose values are credentials: ``api-key``, ``key``, ``token``,
``access_token``, ``sig`` (an Azure SAS), ``client_secret``, ``password``, ``auth``, ... (a
name ending in one of these words after ``_``, ``-`` or ``.``)."""
_QUERY_CREDENTIALS_RE = r"(?i)([?&;]" + _QUERY_SECRET_NAME + r"=)[^&#;\s\"'<>]+"


class _Patterns:
    """The credential patterns, compiled on first use: compiling them took ~2 ms of every
    start-up, and ``compact check`` on a good file never needs them (issues 29 and 31)."""

    def __init__(self) -> None:
        self.url_credentials = re.compile(_URL_CREDENTIALS_RE)
        self.query_credentials = re.compile(_QUERY_CREDENTIALS_RE)
        self.query_name = re.compile(r"(?i)" + _QUERY_SECRET_NAME)
        self.secrets = (
            re.compile(r"sk-[A-Za-z0-9_\-]{8,}"),
            re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
            # URL credentials (``http://bob:pw@host``, ``https://TOKEN@host``): the whole userinfo
            self.url_credentials,
            # query-string credentials (``?api-key=…``, ``&sig=…``): the value
            self.query_credentials,
        )


_compiled: list[_Patterns] = []


def _patterns() -> _Patterns:
    """The compiled credential patterns (compiled by the first call)."""
    if not _compiled:
        _compiled.append(_Patterns())
    return _compiled[0]


MIN_FREE_TEXT_SECRET = 8
"""Header values and URL credentials shorter than this are masked where they are known as
secrets (``config show``, the URL itself) but not hunted for in free text: a value such as
``X-Title: compact`` would otherwise erase a common word from every message and summary."""


_REGISTERED_SECRETS: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember a secret (an API key in use) so every later :func:`redact` masks it."""
    if value and len(value) >= 4:
        _REGISTERED_SECRETS.add(value)


def redact(text: str, secrets: list[str] | tuple[str, ...] = ()) -> str:
    """Remove known secret values (given or registered) and key-shaped strings from ``text``."""
    for secret in sorted({*secrets, *_REGISTERED_SECRETS}, key=lambda v: (-len(v), v)):
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    for pattern in _patterns().secrets:
        text = pattern.sub(lambda m: (m.group(1) if m.lastindex else "") + "***", text)
    return text


CJK_PUNCTUATION = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
"""CJK symbols and punctuation (``、。「」``) and the full-width ASCII punctuation
(``，：（）``), as a character-class body: never part of a name or of a secret value."""
_QUOTED = r"""(?:"[^"\n]*"|'[^'\n]*'|«[^»\n]*»|`[^`\n]*`|“[^”\n]*”|「[^」\n]*」)"""
_BARE_CHAR = rf"""[^\s"',;/()\[\]{{}}«»“”`:=\uff1a\uff1d{CJK_PUNCTUATION}]"""
_MORE_VALUE = (
    rf"""(?P<value>{_QUOTED}|{_BARE_CHAR}*?[\d!@#$%^&*+_~?-]{_BARE_CHAR}*?"""
    rf"""(?=[ \t]*(?:\n|$|[,;/)\]}}、，。]|\.(?:\s|$)|(?:(?:and|or|및)\b|&)|\()))"""
    r"""(?![ \t]*[:=\uff1a\uff1d])"""
)
"""A further value in a list after a credential label (``passwords: «a», «b»``, ``password: a1,
b2``, ``pw: a1 / b2``): quoted, or a bare token with a digit or a symbol that ends where the
list goes on or the clause ends; never a key (``, "user": …``, ``, user=…``)."""
_MORE_SEP = r"""[ \t]*(?:[,/、，](?:[ \t]*(?:and|or)\b)?|(?:(?:and|or|및)\b|&))[ \t]*"""
_MORE = "(?i)" + _MORE_SEP + _MORE_VALUE  # compiled on first use (re caches it)
_SECRET_VALUE = (  # compiled on first use (re caches it): _util is imported at every start-up
    r"""(?i)((?<![A-Za-z0-9_-])(?:\\*["'])?[\w.-]*?(?:passwords?|passwd|secret|token|api[_-]?key"""
    r"""|(?:access|private|secret|role|master|signing|encryption)[_-]?key|pw"""
    r"""|비밀번호|암호|密码|密碼|パスワード|contraseña|senha|passwort|kennwort"""
    r"""|mot[ \t]de[ \t]passe|пароль)(?:\\*["'])?[ \t]*"""
    r"""(?:=>|[:=\uff1a\uff1d])[ \t]*)"""
    r"""(\\+"[^"\n]*?\\+"|"[^"\n]*"|'[^'\n]*'|[\w.:\\>-]+\([ \t]*(?:"[^"\n]*"|'[^'\n]*')"""
    r"""|\\*["'][^\s"'\\`…]+(?=`|…|\n|$)"""
    rf"""|[^\s"',;}}{CJK_PUNCTUATION}]+)"""
    rf"""((?:{_MORE_SEP}{_MORE_VALUE.replace("?P<value>", "?:")})*)"""
)
"""A value assigned to a key named like a credential: YAML ``PASSWORD: "x"``, env
``API_KEY=x``, JSON ``"client_secret": "x"``, PHP/Ruby ``'password' => 'x'`` (the key ends with
the credential word); a call whose first argument is a string literal is a value too
(``'password' => Hash::make('x')``, ``password=bcrypt("x")``: blind check 24 printed a seeded
admin password in clear after masking the ``>`` of ``=>``). CJK and full-width punctuation
bounds a name and a value, and ``：``/``＝`` assign (blind check 29, S1:
``、SUPABASE_SECRET_KEY=sb_secret_…。`` was printed: no ``secret_key`` name, and a CJK
character before a name counted as a word character)."""
SECRET_VALUE_PREFILTER = (
    r"(?:(?i-u:passwords?|passwd|secret|token|key|pw|senha|passwort|kennwort|passe)"
    r"|(?i-u:contrase).(?i-u:a)"
    r"|[^\x00-\x7f])(?:\\*[\"'])?[ \t]*[:=\uff1a\uff1d]"
)
"""What every match of :data:`_SECRET_VALUE` holds, in Rust's ``regex`` syntax (a superset
test for ``secrets.secret_scan.FastScan``): the end of its credential word (a non-ASCII word
ends in a non-ASCII letter, ``contraseña`` in ``a``), quotes, blanks and the separator."""
_ENV_NAME = r"[A-Z][A-Z0-9_]*"  # os.getenv("DB_PASSWORD"): the name of a variable, no secret
_NOT_A_VALUE = frozenset({"str", "string", "int", "bool", "none", "null", "true", "false", "***"})


def env_name(value: str) -> bool:
    """Whether a string literal is an environment variable's name (``os.getenv("DB_PASSWORD")``,
    ``env('API_KEY')``): no secret. Shared by the summary masker and ``secrets.masking``."""
    return re.fullmatch(_ENV_NAME, value) is not None


_CODE_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_CODE_WORDS = ("key", "pass", "pwd", "token", "secret", "auth", "cred")


def code_reference(value: str) -> bool:
    """Whether an unquoted value given to a credential-named key is code, not a secret: an
    identifier path without digits that is an attribute access or names a credential
    (``self.password``, ``settings.service_key``, ``user_pwd``). Shared by the summary masker
    and ``secrets.plausible`` so that both judge alike."""
    if any(ch.isdigit() for ch in value):
        return False
    if not re.fullmatch(_CODE_NAME, value):
        return code_expression(value)
    low = value.lower()
    return "." in low or any(word in low for word in _CODE_WORDS)


_CODE_PATH = r"[A-Za-z_]+(?:(?:\?\.|!?\.)[A-Za-z_]+)*"
_CODE_OPERAND = rf"!{{0,2}}\(?{_CODE_PATH}(?:\((?:{_CODE_PATH}(?:, ?{_CODE_PATH})*)?\))?\)?"
_CODE_BINARY = r" ?(?:===?|!==?|&&|\|\||\?\?|[<>]=?) ?"
_CODE_EXPRESSION = rf"{_CODE_OPERAND}(?:{_CODE_BINARY}{_CODE_OPERAND})*"
_CODE_LITERALS = frozenset({"null", "undefined", "true", "false", "none", "nil"})
_CODE_MOST = 40


def code_expression(value: str) -> bool:
    """Whether an unquoted value is a short expression of names with an operator (``!!apiKey``,
    ``cfg?.apiKey``, ``Boolean(key)``, ``key!==null``, ``a.key||b.key``; at most
    :data:`_CODE_MOST` characters, no digit) one of whose names reads as code: a member
    access or call, camelCase or snake_case, a literal (``null``) or a lowercase name with a
    credential word (blind check 72, N3: ``hasApiKey: !!apiKey`` was shown as ``hasApiKey:
    ***``). ``!Secret``, ``!!hunter`` and ``abc&&def`` name no code: a value still."""
    if len(value) > _CODE_MOST or any(ch.isdigit() for ch in value):
        return False
    if not re.fullmatch(_CODE_EXPRESSION, value) or not re.search(r"[!.(&|?=<>]", value):
        return False
    if "(" in value or "." in value:
        return True
    for name in re.findall(r"[A-Za-z_]+", value):
        low = name.lower()
        if "_" in name or re.search(r"[a-z][A-Z]", name) or low in _CODE_LITERALS:
            return True
        if name[0].islower() and any(word in low for word in _CODE_WORDS):
            return True
    return False


def _more(listed: str, found: set[str] | None) -> str:
    """The further values of a credential label's list (:data:`_MORE_VALUE`), each ``***``
    (blind check 32: "평문: ***, «…»" printed the second of two passwords)."""
    if not listed:
        return listed

    def one(m: re.Match[str]) -> str:
        value = m.group("value")
        quoted = value[0] in "\"'«`“「"
        bare = value[1:-1] if quoted else value
        if not bare.strip() or bare.lower() in _NOT_A_VALUE or bare[0] in "$<{%*":
            return m.group(0)
        if found is not None:
            found.add(bare)
        masked = f"{value[0]}***{value[-1]}" if quoted else "***"
        return m.group(0)[: m.start("value") - m.start()] + masked

    return re.sub(_MORE, one, listed)


def _escaped_or_cut(m: re.Match[str], value: str, found: set[str] | None) -> str:
    """A credential's value quoted with escaped quotes (``\\"password\\":\\"x\\"``, JSON in a
    double-quoted shell string) or cut before its closing quote (``"password":"hunt``): the
    value between the quotes as ``***``, the quotes kept (blind check 34: a curl body's
    password was printed)."""
    lead = re.match(r"\\*[\"']", value)
    opening = lead.group(0) if lead else ""
    closing = re.search(r"\\*[\"']$", value[len(opening) :]) if value[-1] in "\"'" else None
    end = closing.group(0) if closing else ""
    bare = value[len(opening) : len(value) - len(end)]
    if not bare.strip() or bare.lower() in _NOT_A_VALUE or bare[0] in "$<{%*" or _marks(bare):
        return m.group(0)
    if found is not None:
        found.add(bare)
    return f"{m.group(1)}{opening}***{end}{_more(m.group(3), found)}"


def _marks(value: str) -> bool:
    """A few marks and no letter or digit: no value but the text that follows an empty one
    (blind check 71, N3: ``HSM_PASSWORD=`` ended its line, a quote joined the lines, and the
    next line's ``+`` was shown as ``***``; ``expect('Password:')`` lost its ``)``)."""
    return len(value) < 4 and not any(ch.isalnum() for ch in value)


_QUOTE_MARKS = "«»“”‘’「」`"
"""Quote marks other than ASCII quotes around a credential's value (``password: «x»``): the
value they enclose is what ``found`` gets, to be masked where else the summary shows it (a
Hypothesis example in CI: ``«AaAaA222»`` was masked after its label and printed among the
identifiers of section 2)."""


def mask_secret_values(text: str, found: set[str] | None = None) -> str:
    """``text`` with the value of every credential-named key shown as ``***`` (quotes kept).
    A type (``password: str``), a variable (``$TOKEN``, ``${TOKEN}``) or a placeholder
    (``<token>``) is not a value and is kept. ``found`` (if given) gets every value masked."""

    def masked(m: re.Match[str]) -> str:
        value = m.group(2)
        if "(" in value and value[-1] in "\"'":  # a call with a literal argument: mask the literal
            call, _, literal = value.partition("(")
            quote, inner = value[-1], literal.strip()[1:-1]
            if not inner or env_name(inner):
                return m.group(0)
            space = literal[: len(literal) - len(literal.lstrip())]
            if found is not None:
                found.add(inner)
            return f"{m.group(1)}{call}({space}{quote}***{quote}"
        if value[0] == "\\" or (value[0] in "\"'" and value[-1] != value[0]):
            return _escaped_or_cut(m, value, found)  # \"password\":\"x\", a cut "x…
        bare = value.strip("\"'")
        code = value == bare and ("(" in value or "[" in value)  # a call or index: code
        name = re.search(r"[\w.-]+", m.group(1))
        if name and bare.lower() == name.group(0).lower():
            return m.group(0)  # password=password, "client_secret": "client_secret"
        if value == bare and code_reference(value.rstrip(")]")):
            return m.group(0)  # token=registration.registration_token (blind check 25)
        if bare == "***":  # masked by a shape rule before (secrets.prose): its list goes on
            return f"{m.group(1)}{value}{_more(m.group(3), found)}"
        if value == bare and re.fullmatch(r"\*\*\*[+/=][\w+/=-]*", bare):
            # a shape rule masked a base64 value up to its first + / =: all of it (blind 67)
            return f"{m.group(1)}***{_more(m.group(3), found)}"
        if not bare or bare.lower() in _NOT_A_VALUE or bare[0] in "$<{%*" or code or _marks(bare):
            return m.group(0)
        quote = value[0] if value[0] in "\"'" else ""
        if found is not None:  # the value itself, which the summary may show elsewhere bare
            found.add(bare.strip(_QUOTE_MARKS) or bare)
        return f"{m.group(1)}{quote}***{quote}{_more(m.group(3), found)}"

    if "=" not in text and ":" not in text and "\uff1a" not in text and "\uff1d" not in text:
        return text
    return re.sub(_SECRET_VALUE, masked, text)


def mask_url_credentials(text: str) -> str:
    """``text`` with the credentials of every URL in it replaced: the userinfo
    (``http://***@host/v1``) and the values of credential query parameters
    (``?api-key=***``, ``&sig=***``)."""
    if "@" in text:
        text = _patterns().url_credentials.sub(lambda m: m.group(1) + "***", text)
    if "=" in text:
        text = _patterns().query_credentials.sub(lambda m: m.group(1) + "***", text)
    return text


def url_credentials(url: str | None) -> tuple[str | None, str | None]:
    """The (user, password) in ``url``'s userinfo, as written (percent-encoded); Nones when
    it has none or is not a URL."""
    if not url or "@" not in url:
        return None, None
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        return parts.username, parts.password
    except ValueError:
        return None, None


def url_secrets(url: str | None) -> list[str]:
    """Every credential ``url`` carries, as written and decoded: its userinfo's user and
    password, and the values of its credential query parameters (``?api-key=…``)."""
    found: list[str] = []
    for part in url_credentials(url):
        if part:
            found.extend(dict.fromkeys((part, unquote(part))))
    if url and "=" in url:
        for m in _patterns().query_credentials.finditer(url):
            value = m.group(0)[len(m.group(1)) :]
            found.extend(dict.fromkeys((value, unquote(value))))
    return found


def is_query_secret_name(name: object) -> bool:
    """Whether a query parameter named ``name`` carries a credential (``api-key``, ``sig``)."""
    return isinstance(name, str) and _patterns().query_name.fullmatch(name) is not None


def unquote(text: str) -> str:
    """``text`` percent-decoded (``%40`` → ``@``)."""
    from urllib.parse import unquote as _unquote

    return _unquote(text)


def model_name(model: object) -> str:
    """A human-readable name for a model object (``name`` attribute, else its class)."""
    name = getattr(model, "name", None)
    if isinstance(name, str) and name:
        return name
    return type(model).__name__


def input_for(callee: object, messages: list[T]) -> list[T]:
    """What ``callee`` (a model, a finalize function) is handed: ``messages`` themselves when it
    promises to only read its input (a true ``readonly_input`` attribute), else a deep copy, so
    code that edits its input can never change the caller's history."""
    if getattr(callee, "readonly_input", False) is True:
        return messages
    return copy.deepcopy(messages)


class Record:
    """A small value class with a dataclass's equality and repr, from its ``__slots__`` (in
    field order), for classes defined on every start-up: a dataclass costs ~0.4-0.7 ms to
    define (its methods are generated with ``exec``), a subclass of this ~0.01 ms (issues 29
    and 31). The subclass writes its own ``__init__``. Unhashable, as an ``eq`` dataclass."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__ and isinstance(other, Record):
            return self._values() == other._values()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class FrozenRecord(Record):
    """A :class:`Record` as a ``frozen=True`` dataclass: assigning or deleting a field raises
    :class:`dataclasses.FrozenInstanceError`, and it hashes by its fields. Its ``__init__``
    sets them with ``object.__setattr__``."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:  # type: ignore[override]  # Record's is None (unhashable)
        return hash(self._values())


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled on first use: for the module-level patterns of
    the embedded summarizer and its fact extraction (~430, ~45 ms to compile at import, most
    of which a given run never uses: a run on a coding-agent transcript uses about a quarter).

    The stand-in compiles the pattern the first time any of its attributes but ``pattern`` is
    read, then rebinds every global of the defining module that holds it to the compiled
    pattern, so that its module's functions use the real pattern from then on, at no cost; a
    module that imported it gets the same at its own first use. Only for a pattern used as
    ``NAME.method(...)`` / ``NAME.pattern`` and imported under its own name (never handed to
    ``re`` functions, ``isinstance`` or kept in a container: there the stand-in still works,
    a little slower, but is no ``re.Pattern``)."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags, sys._getframe(1).f_globals))


class _LazyPattern:
    __slots__ = ("_flags", "_real", "_scanned", "_where", "pattern")

    def __init__(self, pattern: str, flags: int, where: dict[str, object]) -> None:
        self.pattern = pattern
        self._flags = flags
        self._where = where
        self._real: re.Pattern[str] | None = None
        self._scanned = {id(where)}  # the module globals it has looked for itself in

    def __getattr__(self, name: str) -> object:
        real = self._real
        if real is None:
            real = self._real = re.compile(self.pattern, self._flags)
            _rebind(self._where, self, real)
        caller = sys._getframe(1).f_globals
        if id(caller) not in self._scanned:  # a module that imported it: rebound at its first use
            self._scanned.add(id(caller))
            _rebind(caller, self, real)
        return getattr(real, name)

    def __repr__(self) -> str:
        return repr(self._real or re.compile(self.pattern, self._flags))


def _rebind(where: dict[str, object], stand_in: _LazyPattern, real: re.Pattern[str]) -> None:
    for key in [k for k, v in where.items() if v is stand_in]:
        where[key] = real
