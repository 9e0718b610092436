"""A credential carried in a URL: a query (or fragment) parameter whose name denotes one, and a
subscription link's token (blind check 56, N6: the user pasted a VPN subscription link
``https://host/Path?k=<long hex>`` and the embedded summary kept the key; no ``name = value``
rule reads ``k``, and a URL's query is no assignment the summary's masking reads).

Two shape rules, in :mod:`.masking`'s built-in rules as kind ``api_key`` (so the transcript
masker and the summary's :mod:`.shapes` share them):

* :data:`URL_QUERY_RE`: ``?name=value``, ``&name=value``, ``#name=value`` (also ``&amp;``) right
  after a URL's non-blank text, with ``name`` one of ``k``, ``key``, ``apikey``, ``api_key``,
  ``token``, ``access_token``, ``auth``, ``sig``, ``signature``, ``secret``, ``password``,
  ``pwd``, ``pass``, ``code``, ``subscription``, ``sub``, ``sid``, ``session`` (any case);
* :data:`URL_PATH_RE`: the path segment right after ``/sub/``, ``/subscribe/``, ``/link/`` or
  ``/token/``.

The value is masked only when it looks random (:func:`random_value`: 16 characters or more of
hex/base64url, digits and letters mixed, not words joined by ``_``/``-``; ``code`` only from 20
characters, an OAuth code's length): ``?key=name``, ``?page=2``, ``?token=true`` and
``?session=user_settings`` stay. Only the value is replaced; the URL around it stays.
:data:`URL_PREFILTERS` are the rules' superset tests in Rust's ``regex`` syntax
(:mod:`.secret_scan`), a scan group of their own in :mod:`.shapes`."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["URL_HINTS", "URL_PREFILTERS", "URL_SHAPES", "random_value"]

_NAMES = (
    r"k|key|apikey|api_key|token|access_token|auth|sig|signature|secret|password|pwd|pass"
    r"|subscription|sub|sid|session"
)
_VALUE_CHARS = r"A-Za-z0-9_\-.~%+/"
_SEGMENTS = r"sub|subscribe|link|token"
_AT = r"(?:(?<=\S)[?&#]|&amp;)"
_VALUE_END = rf"=*)(?![{_VALUE_CHARS}=])"

URL_QUERY_RE = re.compile(rf"{_AT}(?i:{_NAMES})=(?P<secret>[{_VALUE_CHARS}]{{16,512}}{_VALUE_END}")
"""A credential parameter's value in a URL's query or fragment."""
URL_CODE_RE = re.compile(rf"{_AT}(?i:code)=(?P<secret>[{_VALUE_CHARS}]{{20,512}}{_VALUE_END}")
"""``code``: often a short confirmation code; an OAuth code is long (20 characters or more)."""
URL_PATH_RE = re.compile(
    rf"(?<=[A-Za-z0-9])/(?i:{_SEGMENTS})/(?P<secret>[A-Za-z0-9_\-]{{16,512}}=*)"
    r"(?![A-Za-z0-9_\-=]|\.[A-Za-z0-9]|\*\*\*)"
)
"""A subscription link's token: the path segment after ``/sub/``, ``/subscribe/``, ``/link/``,
``/token/`` (not a file's name: ``…/link/abc123….html``). A segment that runs on into ``=VALUE``
or into more characters is not one, nor is it once what follows is masked (``=***``,
``***x.html``): masking twice changes nothing (a token in bold, ``**…/sub/TOKEN**``, still is)."""

_WORDY = re.compile(r"(?:[A-Za-z]+[0-9]*|[0-9]+)(?:[_\-.~](?:[A-Za-z]+[0-9]*|[0-9]+))*")
"""Words and numbers joined by ``_``/``-``/``.``: ``user_profile_2024``, ``release-notes-v2``
(a part is letters, then perhaps digits: random text mixes them more)."""


def random_value(value: str) -> bool:
    """A random-looking credential value: 16+ characters, digits and letters both, not a
    path (``/a/b``) nor words and numbers joined by separators."""
    core = value.rstrip("=")
    if len(core) < 16 or core.startswith("/") or core.count("/") > 2:
        return False
    if not (any(ch.isdigit() for ch in core) and any(ch.isalpha() for ch in core)):
        return False
    return _WORDY.fullmatch(core) is None


URL_SHAPES: tuple[tuple[re.Pattern[str], Callable[[str], bool]], ...] = (
    (URL_QUERY_RE, random_value),
    (URL_CODE_RE, random_value),
    (URL_PATH_RE, random_value),
)
"""The rules and the check a value each matched must pass (:mod:`.masking` adds them)."""
URL_HINTS: tuple[tuple[str, ...], ...] = (("=",), ("=",), ("/sub", "/link/", "/token/"))
"""What every match of each rule holds, lowered: one ``=`` (a long text's next test is the
Rust scan of :data:`URL_PREFILTERS`; the names as hints cost the summary 5 ms of substring
searches on the tiny bench shape, 590 KB)."""
URL_PREFILTERS: tuple[str, ...] = (
    rf"[?&#;](?i-u:{_NAMES}|code)=[{_VALUE_CHARS}]{{16}}",
    rf"[A-Za-z0-9]/(?i-u:{_SEGMENTS})/[A-Za-z0-9_\-]{{16}}",
)
"""What every match of the two rules holds, in Rust's ``regex`` syntax (no look-around)."""
