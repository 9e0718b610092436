"""Secret masking: replace credentials in a transcript before a summarizer sees it.

A summarizer (often a third-party model) reads the whole compacted part of a transcript, and its
summary is written back into the agent's history. Any API key, token, password or private key in
that part would travel to the summarizer and survive in the summary. :class:`SecretMasker` finds
them with regular expressions and replaces each one with a typed placeholder::

    [REDACTED:api_key#1]   [REDACTED:password#2]   [REDACTED:private_key#1]

* **Typed and stable.** The same secret value gets the same placeholder everywhere a masker sees
  it (so a summary can still say "the key used in step 3 is the one from step 1"); a different
  value of the same kind gets the next number.
* **JSON-safe.** Placeholders hold only ``[A-Za-z0-9_.:#\\-\\]]`` characters, and a match never
  starts or ends inside a ``\\`` escape, so tool-call ``arguments`` stay valid JSON. Should a
  (custom) pattern still break an arguments string that was valid JSON, that string is masked
  value by value instead (parsed, masked, dumped).
* **Only the secret is replaced.** ``password=hunter2`` becomes ``password=[REDACTED:password#1]``
  and ``postgres://app:s3cret@db`` becomes ``postgres://app:[REDACTED:url_password#1]@db``: the
  summary keeps the fact that a password was set, and where.
* **Conservative.** Built-in rules match well-known key formats and explicit assignments only. A
  value that is obviously not a secret is left alone: placeholders such as ``$TOKEN``,
  ``${DB_PASSWORD}``, ``<your-key>``, ``{{ vault }}``, ``***`` or ``your_api_key``, code such as
  ``password=self.password`` or ``api_key=os.environ[...]``, type annotations (``password: str``)
  and prose (``the password: it must be long``). ``data:`` URLs (base64 media) are never touched.
* **Nothing public holds a secret.** Values are remembered only as keyed BLAKE2 digests (for the
  stable numbering); :attr:`SecretMasker.counts` and ``repr()`` show kinds and counts only.

Built-in kinds (:data:`SECRET_KINDS`; the rule table is :mod:`.rules`), tried in this order (an
earlier rule wins an overlap):

``private_key``
    PEM blocks ``-----BEGIN … PRIVATE KEY-----`` … ``-----END … PRIVATE KEY-----``, also with
    JSON-escaped ``\\n`` newlines; a block whose END line is missing (truncated output) is masked
    to the end of its base64 body.
``jwt``
    ``eyJ…`` ``.`` ``…`` ``.`` ``…`` (three base64url segments, the first one a JSON header).
``api_key``
    OpenAI ``sk-``/``sk-proj-``…, Anthropic ``sk-ant-``…, AWS ``AKIA``/``ASIA``…, GitHub
    ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``/``github_pat_``, GitLab ``glpat-``, Slack
    ``xox[abposr]-``/``xapp-``, Google ``AIza``…, Stripe ``sk_live_``/``rk_live_`` (and
    ``_test_``), Hugging Face ``hf_``, npm ``npm_``, Telegram bot ``123456789:AA…``,
    Weights & Biases ``wandb_v1_`` and
    ``wandb login <40 hex>``, Supabase ``sb_secret_``; then, after ``url_password`` and
    ``bearer_token``, generic assignments: ``api_key=…``, ``"apiKey": "…"``, ``x-api-key: …``,
    ``client_secret``, ``secret_key``, ``service_role_key``, ``access_token``, ``auth_token``,
    ``api_token``, ``aws_secret_access_key``
    (any prefix: ``MY_SERVICE_API_KEY=…``), and ``--api-key``/``--token`` command-line flags;
    last, a random-looking token right after a credential word in any language (``API是…``,
    ``token: …``, ``la clave es …``: :mod:`.labelled`); then, as ``password``, a value given in
    prose (``密码是…``, ``the password is …``, ``sshpass -p …``: :mod:`.prose`).
``url_password``
    ``scheme://user:password@host``: only the password.
``bearer_token``
    ``Authorization: Bearer|Basic|Token|Bot …``, and ``Bearer …`` alone with a value of 16+
    characters that has a digit or is mixed-case (``Bearer authentication`` is prose).
``password``
    ``password=…``, ``"password": "…"``, ``PASSWORD: …`` (``passwd``, ``pwd``, ``passphrase``,
    any prefix such as ``DB_PASSWORD``), ``--password …``. A ``:`` assignment without quotes
    counts only when the value ends its line (``Password: hunter2``), so prose after a colon is
    kept; the word in other languages too (``Passwort:``, ``пароль =``); never across a line
    break (``HSM_PASSWORD=`` ending its line is empty). Also a literal an expect/pexpect script
    sends to a password prompt (``send "…\\r"``, ``sendline('…')``: :mod:`.logins`).
``password_hash``
    A crypt-format hash (``$5$salt$hash``, ``$2b$…``, ``$argon2id$…``), whole: a shadow entry
    keeps its user name and fields (:mod:`.logins`).

Custom patterns are ``(name, regex)`` pairs; ``name`` becomes the kind. When the regex has a named
group ``secret``, only that group is replaced, else the whole match. Custom patterns run after the
built-in ones.
"""

from __future__ import annotations

import copy
import dataclasses
import heapq
import json
import os
import re
from collections.abc import Sequence

from compactor._json import JsonValue
from compactor._util import env_name, lazy_pattern
from compactor.errors import ConfigError
from compactor.schema import AgenticMessage, Block, M, Message, loads_json

from .plausible import NOT_SECRET_RE, plausible_value
from .rules import BUILTIN_RULES, SECRET_KINDS, VALUE_GROUPS, Rule, has_digit_and_letter
from .secret_scan import clean_messages, scan

__all__ = ["SECRET_KINDS", "SecretMasker", "mask_messages"]

_KIND_NAME_RE = lazy_pattern(r"[A-Za-z0-9_.\-]{1,64}")
_PLACEHOLDER_RE = lazy_pattern(r"\[REDACTED:[A-Za-z0-9_.\-]{1,64}#\d+\]")
# base64 media inline in text: never a secret, and mangling it would break the media.
_DATA_URI_RE = lazy_pattern(r"data:[\w.+\-]+/[\w.+\-]+;base64,[A-Za-z0-9+/=]+")


def _escape_unit_start(text: str, pos: int) -> tuple[int, int] | None:
    """The (start, end) of the ``\\`` escape that strictly contains ``pos``, if any."""
    for p in range(pos - 1, max(-1, pos - 6), -1):
        if text[p] != "\\":
            continue
        run = 0
        q = p - 1
        while q >= 0 and text[q] == "\\":
            run += 1
            q -= 1
        if run % 2:
            continue  # this backslash is itself escaped
        nxt = text[p + 1 : p + 2]
        size = 6 if nxt == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", text[p + 2 : p + 6]) else 2
        if p < pos < p + size:
            return p, p + size
        return None
    return None


def _escape_safe(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` so that it neither starts nor ends inside a ``\\`` escape."""
    unit = _escape_unit_start(text, start)
    if unit is not None:
        start = unit[1]
    unit = _escape_unit_start(text, end)
    if unit is not None:
        end = unit[0]
    return start, max(start, end)


def _disjoint(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted ``spans`` with overlapping ones joined (a placeholder inside a data URL)."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _identity(value: str) -> str:
    """The value a secret is recognised by: JSON escapes decoded (``\\n`` = newline)."""
    if "\\" in value:
        try:
            decoded = json.loads('"' + value + '"')
        except ValueError:
            return value
        if isinstance(decoded, str):
            return decoded
    return value


class SecretMasker:
    """Masks secrets in text and messages; see the module docstring for the rules.

    One masker numbers secrets consistently across all the calls made on it, and
    :attr:`counts` accumulates. Use one masker per transcript.
    """

    __slots__ = (
        "_builtin",
        "_counts",
        "_custom_names",
        "_digest_key",
        "_ids",
        "_next",
        "_rules",
    )

    def __init__(self, patterns: Sequence[tuple[str, str]] = (), *, builtin: bool = True) -> None:
        rules: list[Rule] = list(BUILTIN_RULES) if builtin else []
        names: list[str] = []
        for item in patterns:
            if not (isinstance(item, tuple | list) and len(item) == 2):
                raise ConfigError(f"secret pattern {item!r} is not a (name, regex) pair")
            name, regex = item
            if not isinstance(name, str) or not _KIND_NAME_RE.fullmatch(name):
                raise ConfigError(
                    f"secret pattern name {name!r} must be 1-64 characters of "
                    "letters, digits, '_', '.' or '-'"
                )
            if not isinstance(regex, str) or not regex:
                raise ConfigError(f"secret pattern {name!r}: the regex must be a non-empty string")
            try:
                compiled = re.compile(regex)
            except re.error as err:
                raise ConfigError(f"secret pattern {name!r}: invalid regex: {err}") from err
            rules.append(Rule(name, compiled, builtin=False))
            names.append(name)
        self._rules = tuple(rules)
        self._builtin = builtin
        self._custom_names = tuple(names)
        self._digest_key = os.urandom(16)
        self._ids: dict[bytes, str] = {}
        self._next: dict[str, int] = {}
        self._counts: dict[str, int] = {}

    def __repr__(self) -> str:
        return (
            f"SecretMasker(custom={list(self._custom_names)!r}, "
            f"builtin={self._builtin}, "
            f"masked={sum(self._counts.values())})"
        )

    @property
    def counts(self) -> dict[str, int]:
        """Kind → number of occurrences masked so far (sorted by kind; a copy)."""
        return dict(sorted(self._counts.items()))

    # -- text ---------------------------------------------------------------------------------

    def mask_text(self, text: str) -> str:
        """``text`` with every secret replaced by its placeholder."""
        if not text:
            return text
        spans = self._find(text)
        if not spans:
            return text
        out: list[str] = []
        pos = 0
        for start, end, kind in spans:
            out.append(text[pos:start])
            out.append(self._placeholder(kind, text[start:end]))
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def _find(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping (start, end, kind) secret spans, in text order.

        Linear in the number of matches: ``taken`` stays sorted and disjoint, each rule's
        matches come in text order, so one pointer walks ``taken`` per rule and the rule's new
        spans are merged in afterwards (40,000 bearer tokens in one 2.4 MB tool output took
        52 s when every match was compared with every span taken before).
        """
        rules = self._rules
        if not scan().may_match(text):  # most texts: one pass, and no hinted rule can match
            rules = tuple(rule for rule in rules if not rule.hints)
            if not rules:
                return []
        taken: list[tuple[int, int]] = [m.span() for m in _PLACEHOLDER_RE.finditer(text)]
        if "base64," in text:
            taken = sorted([*taken, *(m.span() for m in _DATA_URI_RE.finditer(text))])
            taken = _disjoint(taken)
        found: list[tuple[int, int, str]] = []
        # (?i) reads ı, İ, ſ and K as ASCII letters, lower() does not: hints for ASCII only
        lowered = text.lower() if text.isascii() else None
        for rule in rules:
            if rule.hints and lowered is not None and not any(h in lowered for h in rule.hints):
                continue
            added: list[tuple[int, int]] = []
            i = 0
            last_end = 0
            for match in rule.regex.finditer(text):
                span = self._secret_span(rule, match, text)
                if span is None:
                    continue
                start, end = _escape_safe(text, *span)
                if start >= end or start < last_end:
                    continue  # empty, or overlapping this rule's previous span
                while i < len(taken) and taken[i][1] <= start:
                    i += 1
                if i < len(taken) and taken[i][0] < end:
                    continue  # overlaps a span an earlier rule (or a placeholder) holds
                added.append((start, end))
                last_end = end
                found.append((start, end, rule.kind))
            if added:
                taken = list(heapq.merge(taken, added))
        found.sort()
        return found

    @staticmethod
    def _secret_span(rule: Rule, match: re.Match[str], text: str) -> tuple[int, int] | None:
        if rule.assignment:
            group = next(g for g in VALUE_GROUPS if match.group(g) is not None)
            value = match.group(group)
            if group == "call" and env_name(value):
                return None  # os.getenv("DB_PASSWORD"): a variable's name
            bare = group in ("line", "eq", "word")
            if not plausible_value(value, match.group("name"), text, match.end(group), bare):
                return None
            if group == "word" and not has_digit_and_letter(value):
                return None  # "the password: must be long" is prose
            return match.span(group)
        group_name: str | int = "secret" if "secret" in match.re.groupindex else 0
        value = match.group(group_name)
        if not value:
            return None
        if rule.builtin and NOT_SECRET_RE.match(value):
            return None
        if rule.check is not None and not rule.check(value):
            return None
        return match.span(group_name)

    def _placeholder(self, kind: str, value: str) -> str:
        import hashlib  # here only: a run that masks nothing need not load OpenSSL (~1 ms)

        digest = hashlib.blake2b(
            _identity(value).encode("utf-8", "surrogatepass"), key=self._digest_key, digest_size=16
        ).digest()
        placeholder = self._ids.get(digest)
        if placeholder is None:
            number = self._next.get(kind, 0) + 1
            self._next[kind] = number
            placeholder = f"[REDACTED:{kind}#{number}]"
            self._ids[digest] = placeholder
        used = placeholder[len("[REDACTED:") : placeholder.rindex("#")]
        self._counts[used] = self._counts.get(used, 0) + 1
        return placeholder

    # -- JSON arguments -----------------------------------------------------------------------

    def mask_arguments(self, arguments: str) -> str:
        """Mask a tool call's JSON ``arguments``; valid JSON stays valid JSON."""
        if not arguments:
            return arguments
        try:
            loads_json(arguments)
        except ValueError:
            return self.mask_text(arguments)
        state = (dict(self._ids), dict(self._next), dict(self._counts))
        masked = self.mask_text(arguments)
        if masked == arguments:
            return masked
        try:
            loads_json(masked)
        except ValueError:
            # A pattern matched across JSON syntax: undo, and mask value by value instead.
            self._ids, self._next, self._counts = state
            return json.dumps(self._mask_json(loads_json(arguments)), ensure_ascii=False)
        return masked

    def _mask_json(self, value: JsonValue) -> JsonValue:
        if isinstance(value, str):
            return self.mask_text(value)
        if isinstance(value, list):
            return [self._mask_json(v) for v in value]
        if isinstance(value, dict):
            return {self.mask_text(k): self._mask_json(v) for k, v in value.items()}
        return value

    # -- messages -----------------------------------------------------------------------------

    def mask_messages(self, messages: list[M]) -> list[M]:
        """``messages`` with every secret masked; the input is never changed.

        A message with nothing to mask is returned as it is (no copy: a long history is not
        duplicated to find it clean); one with a secret is a deep copy with the masked texts.
        Masked: ``Message.content``, every ``Part.text`` (and non-``data:`` ``Part.url``),
        ``ToolCall.arguments``, ``reasoning_content``; for :class:`AgenticMessage`, every block's
        ``text``, ``arguments`` and non-``data:`` ``url``, recursively into
        ``function_tool_result`` content. Ids, names, roles and ``extra`` are left as they are.
        """
        out: list[M] = []
        # One fast pass over every text first (secret_scan): a message it clears is returned
        # as it is, unless a custom rule (which no prefilter knows) has to read it.
        hinted = all(rule.hints for rule in self._rules)
        clean = clean_messages(messages) if hinted else [False] * len(messages)
        if all(clean):
            return list(messages)
        for msg, skip in zip(messages, clean, strict=True):
            if skip:
                out.append(msg)
            elif isinstance(msg, Message):
                out.append(self._masked_message(msg))
            elif isinstance(msg, AgenticMessage):
                out.append(self._masked_agentic(msg))
            else:
                out.append(msg)
        return out

    def _mask_url(self, url: str | None) -> str | None:
        if url is None or url.startswith("data:"):
            return url
        return self.mask_text(url)

    def _masked_message(self, msg: Message) -> Message:
        # The fields in a fixed order: placeholders are numbered by first appearance.
        content = self.mask_text(msg.content)
        parts = [
            (self.mask_text(p.text) if p.text is not None else None, self._mask_url(p.url))
            for p in msg.parts
        ]
        arguments = [self.mask_arguments(c.arguments) for c in msg.tool_calls]
        reasoning = msg.reasoning_content
        if reasoning is not None:
            reasoning = self.mask_text(reasoning)
        if (
            content == msg.content
            and reasoning == msg.reasoning_content
            and all(a == c.arguments for a, c in zip(arguments, msg.tool_calls, strict=True))
            and all(pair == (p.text, p.url) for pair, p in zip(parts, msg.parts, strict=True))
        ):
            return msg
        out = copy.deepcopy(msg)
        out.content = content
        for part, (text, url) in zip(out.parts, parts, strict=True):
            part.text, part.url = text, url
        for call, args in zip(out.tool_calls, arguments, strict=True):
            call.arguments = args
        out.reasoning_content = reasoning
        return out

    def _masked_agentic(self, msg: AgenticMessage) -> AgenticMessage:
        blocks = [self._masked_block(b) for b in msg.blocks]
        if all(new is old for new, old in zip(blocks, msg.blocks, strict=True)):
            return msg
        return dataclasses.replace(
            msg, blocks=blocks, usage=copy.deepcopy(msg.usage), extra=copy.deepcopy(msg.extra)
        )

    def _masked_block(self, block: Block) -> Block:
        """``block`` itself when it holds no secret, else a new block with the masked texts."""
        text = self.mask_text(block.text) if block.text is not None else None
        arguments = self.mask_arguments(block.arguments) if block.arguments is not None else None
        url = self._mask_url(block.url)
        content = [self._masked_block(sub) for sub in block.content]
        if (
            text == block.text
            and arguments == block.arguments
            and url == block.url
            and all(new is old for new, old in zip(content, block.content, strict=True))
        ):
            return block
        return dataclasses.replace(block, text=text, arguments=arguments, url=url, content=content)


def mask_messages(
    messages: list[M], patterns: Sequence[tuple[str, str]] = ()
) -> tuple[list[M], dict[str, int]]:
    """Mask ``messages`` with a fresh :class:`SecretMasker`: (masked messages, counts by kind);
    see :meth:`SecretMasker.mask_messages`."""
    masker = SecretMasker(patterns)
    masked = masker.mask_messages(messages)
    return masked, masker.counts
