"""``compact eval``: what of an original transcript survives in its compacted version.

:func:`evaluate_files` reads both transcripts (any format) and :func:`evaluate` compares them.
What a resuming agent needs is listed from the ORIGINAL, by category, and each item is looked
for in the whole COMPACTED transcript (the summary and every message kept after it):

* **current request** — the last real user request (injected context, CLI slash commands and
  earlier summaries are not requests);
* **user requests** — every distinct user request;
* **last action** — the calls of the last assistant message that made calls (their commands,
  paths or names) and the first error line of those that failed;
* **in flight** — calls without a result;
* **running jobs** — ids of background jobs started and never seen finishing
  (:func:`compactor.facts.background_jobs`, judged by shape);
* **last-round facts** — paths, identifiers, numbers (versions, ports, exit codes, amounts) and
  error lines of the last :data:`LAST_ROUNDS` rounds (a round: an assistant message with calls,
  its results and what followed), file contents that a reading call printed aside;
* **ended** — whether the compacted text's claim about where work stands ("the last request was
  answered", "nothing is pending" or "still in progress") agrees with how the original ended,
  read independently of the embedded summarizer (:mod:`compactor.runs.ended`): 1 when it
  agrees, 0 (and a wrong statement) when it contradicts, no item when it claims nothing;
* **stated request**, **user words in results**, **failures shown** — the current request the
  compacted text states against the original's last request, the user's words carried in tool
  results, the failure lines of the last rounds' results (:mod:`compactor.runs.evalchecks`).

An item scores 1 when its text is found as written (case, whitespace, backticks, Markdown
escapes and ANSI colour codes aside), else the share of its word pairs found (a request cut or
paraphrased keeps some); it counts as *kept* at :data:`KEPT` or more. A category's score is its
items' mean; the overall score (0–100) is the weighted mean of the categories that have items
(:data:`WEIGHTS`). Plain data out; the CLI renders it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace

from compactor._json import JsonObject
from compactor._util import lazy_pattern
from compactor.facts import (
    Call,
    Entry,
    amounts,
    background_jobs,
    clean,
    command_of,
    entry_of,
    identifiers,
    is_reading_call,
    numbers,
    one_line,
    outcome,
    paths,
)
from compactor.facts.noise import CLI_COMMANDS, command_markup, strip_ansi
from compactor.facts.templates import SLOT_RE
from compactor.models.local_template import template_quote
from compactor.models.local_typed import typed_words
from compactor.models.local_unreadable import unreadable
from compactor.schema import AgenticMessage, Message

from .claims import Contradiction, contradictions
from .ended import end_claim, ending_of
from .evalchecks import failure_lines, stated_request, user_words
from .evalmask import SecretValues
from .evalplaceholders import Original, Placeholders, follow_placeholders
from .evalshell import machine_record, shell_failure

__all__ = [
    "KEPT",
    "LAST_ROUNDS",
    "WEIGHTS",
    "Category",
    "Evaluation",
    "Item",
    "evaluate",
    "evaluate_files",
]

KEPT = 0.8
LAST_ROUNDS = 3
WEIGHTS = {
    "current request": 2.0,
    "last action": 2.0,
    "in flight": 1.5,
    "running jobs": 1.5,
    "ended": 2.0,
    "user requests": 1.0,
    "last-round facts": 1.0,
    "stated request": 2.0,
    "user words in results": 1.5,
    "failures shown": 1.5,
}
_MAX_FACTS = 60
"""Last-round facts looked for at most (the latest first)."""
_ITEM_CHARS = 300
_WORD_RE = lazy_pattern(r"[a-z0-9_]+(?:[.\-/][a-z0-9_]+)*")
_LOCAL_COMMAND_RE = lazy_pattern(r"^\s*(?:<command-name>\s*)?/[a-z\-]+\b")
_CLI_COMMANDS = CLI_COMMANDS | frozenset(
    "/plan /init /release-notes /upgrade /terminal-setup /privacy-settings".split()
)
"""Claude Code's own CLI commands (settings, views, the session itself): never a request, with
or without arguments (``/compact keep the API`` only steers the CLI's summary)."""
_LOCAL_OUTPUT = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated",
)
"""What the CLI writes as a user message around a local command: its output, never a request."""
_HEAD_CHARS, _HEAD_WORDS = 60, 3
"""A long command counts as kept when its first characters (the program and its first
arguments, at least this many words) are found as written: summaries shorten long commands."""
_TEMPLATE_HEAD = 120
"""A template with an empty input slot: the characters of its opening a summary should keep
(the embedded summarizer quotes 160: :func:`~compactor.models.local_template.template_quote`)."""


@dataclass(frozen=True, slots=True)
class Item:
    """One thing looked for: its text, its score (0..1) and how it was found."""

    text: str
    score: float
    how: str
    """``verbatim``, ``NN% of its words`` or ``missing``."""

    @property
    def kept(self) -> bool:
        return self.score >= KEPT


@dataclass(slots=True)
class Category:
    """The items of one category and their mean score."""

    name: str
    weight: float
    items: list[Item] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(i.score for i in self.items) / len(self.items) if self.items else 1.0

    @property
    def kept(self) -> int:
        return sum(1 for i in self.items if i.kept)


@dataclass(slots=True)
class Evaluation:
    """What :func:`evaluate` found."""

    original: str
    compacted: str
    format: str
    categories: list[Category]
    summary_found: bool
    contradictions: list[Contradiction] = field(default_factory=list)
    """Claims of the summary about where work stands that the original contradicts
    (:mod:`compactor.runs.claims`); not part of the score, which only measures what was kept."""
    placeholders: Placeholders = field(default_factory=Placeholders)
    """The reduction's placeholders followed: a result whose named file holds it exactly is
    kept (:mod:`compactor.runs.evalplaceholders`)."""

    @property
    def score(self) -> float:
        """0–100: the weighted mean of the categories that have items."""
        used = [c for c in self.categories if c.items]
        total = sum(c.weight for c in used)
        return 100.0 * sum(c.weight * c.score for c in used) / total if total else 100.0

    def as_dict(self) -> JsonObject:
        """The JSON shape ``compact eval --json`` prints."""
        return {
            "original": self.original,
            "compacted": self.compacted,
            "format": self.format,
            "summary_found": self.summary_found,
            "score": round(self.score, 1),
            "categories": [
                {
                    "name": c.name,
                    "weight": c.weight,
                    "kept": c.kept,
                    "total": len(c.items),
                    "score": round(100 * c.score, 1),
                    "items": [{**asdict(i), "kept": i.kept} for i in c.items],
                }
                for c in self.categories
            ],
            "contradictions": [asdict(c) for c in self.contradictions],
            "placeholders": self.placeholders.as_dict(),
        }


# -- matching ---------------------------------------------------------------------------------

_ESCAPE_RE = lazy_pattern(r"\\([\\`*_{}\[\]()#+\-.!|<>&~])")


def _normal(text: str) -> str:
    """``text`` as items are matched: no ANSI colour codes (an item is the ANSI-free line, the
    compacted text may keep them between its words: blind check 44), Markdown escapes and
    backticks, lower case, one space between words."""
    text = _ESCAPE_RE.sub(r"\1", strip_ansi(text)).replace("`", "").lower()
    return " ".join(text.split())


def _pairs(text: str) -> set[tuple[str, str]]:
    words = _WORD_RE.findall(text)
    if len(words) == 1:
        return {(words[0], "")}
    return set(itertools.pairwise(words))


class _Haystack:
    """The compacted transcript's text, normalized once, and its word pairs."""

    def __init__(self, text: str, mask: Callable[[str], str] = str) -> None:
        self.mask = mask
        """Shows an item of the original as the summary does: its secrets ``***``."""
        self.raw = text
        self.text = _normal(text)
        self.pairs = _pairs(self.text)
        self.words = set(_WORD_RE.findall(self.text))

    def item(self, text: str) -> Item:
        text = self.mask(text)
        shown = one_line(text)[:_ITEM_CHARS]
        wanted = _normal(text)
        if not wanted:
            return Item(shown, 1.0, "verbatim")
        if wanted in self.text:
            return Item(shown, 1.0, "verbatim")
        pairs = _pairs(wanted)
        if not pairs:
            return Item(shown, 0.0, "missing")
        if len(pairs) == 1:
            (a, b), *_ = pairs
            found = a in self.words and (not b or b in self.words) and (a, b) in self.pairs
            return Item(shown, 1.0 if found else 0.0, "its words" if found else "missing")
        share = len(pairs & self.pairs) / len(pairs)
        how = f"{round(100 * share)}% of its words" if share else "missing"
        return Item(shown, share, how)

    def exact(self, text: str) -> Item:
        """Found as written or not at all (an id, a path, a number)."""
        text = self.mask(text)
        shown = one_line(text)[:_ITEM_CHARS]
        found = _normal(text) in self.text
        return Item(shown, 1.0 if found else 0.0, "verbatim" if found else "missing")


# -- what the original holds ------------------------------------------------------------------


def _request_text(e: Entry) -> str | None:
    """The text of a user request as a summary would quote it (local-command markup as
    ``/name args``), or None when ``e`` is no request: injected context, the CLI's own commands
    (``/exit``, ``/compact``: markup or typed) and their output (``<local-command-stdout>``)."""
    if e.role != "user" or e.internal or e.injected or not e.text.strip():
        return None
    text = e.text.strip()
    if text.startswith(_LOCAL_OUTPUT):
        return None
    markup = command_markup(text)
    if markup is not None:  # "/name args", or "/name (a CLI command)" without arguments
        name = markup.split()[0]
        if name in _CLI_COMMANDS:
            return None
        return markup.removesuffix(" (a CLI command)")
    if _LOCAL_COMMAND_RE.match(text) and len(text) < 200 and "\n" not in text:
        return None
    if machine_record(text):  # a harness's record (a queued task's registration: check 22)
        return None
    if unreadable(text):  # binary bytes, control characters: no request (blind check 76 N1)
        return None
    return text


def _asked(text: str) -> str:
    """What of a request a summary is expected to keep: the user's own words when ``text`` is a
    command template with them in its input slot (spec-kit's ``## User Input`` block, then pages
    of outline), the template's opening words when the slot is empty; else the whole text
    (blind check 32: a ``/speckit.plan`` expansion scored 28.9 % for a summary that stated
    the request right, on the template's 2,750 characters the summary rightly left out)."""
    if template_quote(text, _ITEM_CHARS) is None:
        return text
    typed = typed_words(text).strip()
    if typed:
        return typed
    body = " ".join(SLOT_RE.sub(" ", text, count=1).split())
    return body[:_TEMPLATE_HEAD].rsplit(" ", 1)[0]


def _is_request(e: Entry) -> bool:
    return _request_text(e) is not None


def _command_item(hay: _Haystack, text: str) -> Item:
    """:meth:`_Haystack.item` for a call's command; a long command shortened in the compacted
    text (``git status … || true if [ ! -d .git ]; then git init … AGENTS." >/dev/null fi``)
    counts as kept when its head (the program and its first arguments) is there as written."""
    found = hay.item(text)
    flat = " ".join(text.split())
    if found.kept or len(flat) <= _HEAD_CHARS:
        return found
    head = flat[:_HEAD_CHARS].rsplit(" ", 1)[0]
    if len(head.split()) >= _HEAD_WORDS and _normal(head) in hay.text:
        return Item(found.text, max(found.score, KEPT), "its head")
    return found


def _call_text(call: Call) -> str:
    command = command_of(call)
    if command is not None:
        return command
    for key in ("file_path", "path", "notebook_path", "url", "query", "pattern", "filename"):
        value = call.args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return call.name


def _last_rounds(entries: list[Entry]) -> list[Entry]:
    starts = [e.index for e in entries if e.role == "assistant" and e.calls and not e.internal]
    if starts:
        first = starts[-LAST_ROUNDS:][0]
    else:
        requests = [e.index for e in entries if _is_request(e)]
        first = requests[-1] if requests else 0
    return [e for e in entries if e.index >= first and not e.internal and not e.injected]


def _round_facts(entries: list[Entry]) -> Iterator[tuple[str, bool]]:
    """(fact, exact) of the last rounds, latest message first."""
    calls: dict[str, Call] = {c.id: c for e in entries for c in e.calls if c.id}
    for e in reversed(_last_rounds(entries)):
        texts: list[tuple[str, bool]] = [(e.text, False)]
        texts += [(a, False) for c in e.calls for a in _call_strings(c)]
        for r in e.results:
            call = calls.get(r.call_id)
            if is_reading_call(call) or (call is not None and "read" in call.name.lower()):
                continue  # file content: the file's path is the fact, not its lines
            texts.append((r.text, True))
            for line in outcome(r, call).lines:
                yield line, False
        for text, from_result in texts:
            if not text:
                continue
            window = text if len(text) <= 20_000 else text[:10_000] + "\n" + text[-10_000:]
            for _, found in paths(window):
                yield found, True
            for _, found in identifiers(window):
                yield found, True
            for _, found in numbers(window, from_result=from_result):
                yield found, True
            if from_result:
                for found in amounts(window):
                    yield found, True


def _call_strings(call: Call) -> Iterator[str]:
    command = command_of(call)
    if command is not None:
        yield command
        return
    for value in call.args.values():
        if isinstance(value, str) and len(value) <= 2_000:
            yield value


def _haystack(
    messages: Sequence[Message | AgenticMessage],
    mask: Callable[[str], str] = str,
    named: Sequence[str] = (),
) -> _Haystack:
    """The compacted text, with the original results its placeholders name (``named``)."""
    parts: list[str] = []
    entries = [entry_of(i, msg) for i, msg in enumerate(messages)]
    for e in entries:
        parts.append(e.text)
        for c in e.calls:
            parts += [c.name, *_call_strings(c)]
        parts += [r.text for r in e.results]
    return _Haystack("\n".join([*parts, *_derived(entries), *named]), mask)


def _derived(entries: list[Entry]) -> list[str]:
    """The texts the items are derived as, derived the same way from the compacted messages: a
    request as ``/name args`` (not its markup), a result's outcome lines ("The user rejected
    this call: …"), the user's words in results, the failure lines. A message kept as it was
    holds them in that form too (blind check 76 N6: an output byte-identical to its input scored
    96.9, its rejection outcomes and a ``/update-config`` request counted lost)."""
    calls: dict[str, Call] = {c.id: c for e in entries for c in e.calls if c.id}
    found: list[str] = []
    for e in entries:
        if (text := _request_text(e)) is not None:
            found.append(clean(_asked(text)))
        for r in e.results:
            found += outcome(r, calls.get(r.call_id)).lines
    found += [clean(w) for w in user_words(entries)]
    found += failure_lines(entries, _last_rounds)
    return found


def evaluate(
    original: Sequence[Message | AgenticMessage],
    compacted: Sequence[Message | AgenticMessage],
    *,
    names: tuple[str, str, str] = ("", "", ""),
    raw_original: Original | None = None,
) -> Evaluation:
    """Score what of ``original`` (messages) survives in ``compacted`` (see the module
    docstring); ``names``: (original path, compacted path, format) for the report;
    ``raw_original``: the original's results as its records hold them (what an offload file
    holds: :func:`compactor.runs.run_reduce.originals`)."""
    from .show import summary_message_index

    entries = [entry_of(i, m) for i, m in enumerate(original)]
    followed = follow_placeholders(original, compacted, raw_original)  # (blind check 71 N6)
    hay = _haystack(compacted, SecretValues(original), followed.texts)  # (check 63 S1)
    cats = {name: Category(name, weight) for name, weight in WEIGHTS.items()}
    requests = [t for e in entries if (t := _request_text(e)) is not None]
    if requests:
        cats["current request"].items.append(hay.item(clean(_asked(requests[-1]))))
    seen: set[str] = set()
    for text in requests:
        key = _normal(text)
        if key not in seen:
            seen.add(key)
            cats["user requests"].items.append(hay.item(clean(_asked(text))))
    answered = {r.call_id for e in entries for r in e.results}
    acting = [e for e in entries if e.role == "assistant" and e.calls and not e.internal]
    if acting:
        last = acting[-1]
        results = {r.call_id: r for e in entries[last.index :] for r in e.results}
        for call in last.calls:
            cats["last action"].items.append(_command_item(hay, _call_text(call)))
            r = results.get(call.id)
            if r is not None and (oc := outcome(r, call)).failed and oc.lines:
                cats["last action"].items.append(hay.item(oc.lines[0]))
    for e in entries:
        for call in e.calls:
            if call.id and call.id not in answered and not e.internal:
                cats["in flight"].items.append(_command_item(hay, _call_text(call)))
    for job in background_jobs(entries):
        if job.running:
            cats["running jobs"].items.append(hay.exact(job.id))
    facts: dict[str, bool] = {}
    for fact, exact in _round_facts(entries):
        fact = fact.strip()
        if len(fact) >= 3 and fact not in facts:
            facts[fact] = exact
            if len(facts) >= _MAX_FACTS:
                break
    for fact, exact in facts.items():
        cats["last-round facts"].items.append(hay.exact(fact) if exact else hay.item(fact))
    wrong: list[Contradiction] = []
    ending = ending_of(entries, _is_request)
    at = summary_message_index(compacted)
    ends = [entry_of(i, m) for i, m in enumerate(compacted)]
    claim = end_claim(ends, at, _is_request) if ending is not None else None
    failed = shell_failure(entries)
    shown = hay.item(failed[1]) if failed is not None else None
    if shown is not None:  # the user's own command failed after the last answer (check 22)
        cats["failures shown"].items.append(shown)
    if ending is not None and claim is not None:
        says_answered, words = claim
        said = "claims answered" if says_answered else "claims not answered"
        why = ending.why
        missed = failed is not None and shown is not None and says_answered and not shown.kept
        if failed is not None and missed:  # "nothing is pending", the failure nowhere
            why = f"then the user ran `{failed[0]}` themselves and it failed: {failed[1]}"
            said = "claims nothing is pending"
        if says_answered == ending.answered and not missed:
            cats["ended"].items.append(Item(words, 1.0, f"agrees: {ending.why}"))
        else:
            cats["ended"].items.append(Item(words, 0.0, f"wrong: {said}; {why}"))
            wrong.append(Contradiction("ended", words, f"{said}; {why}"))
    original_name, compacted_name, fmt = names
    summary = entry_of(at, compacted[at]).text if at is not None else ""
    later = at is not None and any(_is_request(e) for e in ends[at + 1 :])
    said_text = "" if later else summary or hay.raw  # a request kept after it is the current one
    stated = stated_request(said_text, requests[-1] if requests else None, entries)
    if stated is not None:  # (blind check 21: a tool result's text stated as the request)
        score, how, wrong_request = stated
        cats["stated request"].items.append(Item("the current request stated", score, how))
        wrong += [wrong_request] if wrong_request is not None else []
    cats["user words in results"].items += [hay.item(clean(w)) for w in user_words(entries)]
    cats["failures shown"].items += [hay.item(x) for x in failure_lines(entries, _last_rounds)]
    for cat in cats.values():  # the items quoting the original's words as they are (S1)
        cat.items = [replace(i, text=hay.mask(i.text), how=hay.mask(i.how)) for i in cat.items]
    return Evaluation(
        original_name,
        compacted_name,
        fmt,
        list(cats.values()),
        at is not None,
        [
            replace(c, claim=hay.mask(c.claim), original=hay.mask(c.original))
            for c in [*wrong, *(contradictions(original, summary) if summary else [])]
        ],
        followed,
    )


def evaluate_files(original: str, compacted: str, format: str | None = None) -> Evaluation:
    """Read ``original`` and ``compacted`` (paths; ``-`` is stdin for one of them) and
    :func:`evaluate` them. A file that cannot be read is a TranscriptError / InputError."""
    from compactor.formats.registry import read_transcript
    from compactor.io import read_input

    from .run_reduce import originals

    shown_a, raw_a = read_input(original)
    first = read_transcript(shown_a, raw_a, format=format, snapshot=False)
    shown_b, raw_b = read_input(compacted)
    second = read_transcript(shown_b, raw_b, format=format, snapshot=False)
    names = (shown_a, shown_b, first.format)
    return evaluate(first.messages, second.messages, names=names, raw_original=originals(first))
