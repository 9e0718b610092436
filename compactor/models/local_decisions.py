"""Which assistant sentences state a decision, a cause, a change or a result, ask the user
something, or announce the next step.

:func:`decision_score` (3 = a decision or cause, 2 = a change or result, 1 = a reason) and
:func:`scored_sentences` / :func:`scored_once` (a text's scoring sentences, read only where a
keyword of :func:`may_state_decision` stands) give section 5 its decisions;
:func:`asks_user`, :func:`listed_questions` and :func:`announces_step` tell whether a final
message waits for the user or promises a next step; :func:`strip_list_mark` drops a bullet.
"""

from __future__ import annotations

import functools
import re

from compactor._util import lazy_pattern
from compactor.facts import clean, cut, lowers_exactly, one_line, sentence_spans, sentences_holding
from compactor.facts.selffix import is_self_correction

__all__ = [
    "MEMO_MOST",
    "SHORT_TEXT",
    "announces_step",
    "asks_user",
    "decision_score",
    "listed_questions",
    "may_state_decision",
    "scored_once",
    "scored_sentences",
    "strip_list_mark",
]

_QUESTION_RE = lazy_pattern(
    r"[?？]\s*$|\b(?:would you like|do you want|shall I|should I|let me know|want me to|"
    r"when you are ready|ready to \w+ when you)\b",
    re.IGNORECASE,
)
_STRONG_RE = re.compile(
    r"\b(?:decision|decided|decide to|going with|went with|chose|opted|instead of|rather than|"
    r"root cause|the cause|caused by|turns out|found that|the (?:bug|issue|problem|fix) "
    r"(?:is|was)|fixed by)\b"
    # "changed the limit from 3 to 5", "switched from `python` to `python3`"
    r"|\b(?:changed|switched|moved|bumped|increased|decreased|raised|lowered|updated|renamed|"
    r"set|reduced|replaced)\b[^.]{0,80}?\bfrom (?:`[^`]{1,40}`|\S*\d\S*) to (?:`[^`]{1,40}`|\S*\d)"
    # what a check established: "confirmed `config/master.key` is gitignored and never committed"
    r"|(?:^|\b(?:I|we)(?:['’]ve| have)? |[—:,] )(?:confirmed|verified)\b(?: that)?[^;]{0,80}?"
    r"\b(?:is|are|was|were|has|have)(?:n['’]t| not| never)?\b",
    re.IGNORECASE,
)
"""Sentences that state a decision, a cause or a verified finding (kept first)."""
_CHANGE_RE = re.compile(
    r"\b(?:(?:I|we)(?:'ve| have)?\s+(?:just\s+)?(?:changed|updated|fixed|added|removed|replaced|"
    r"renamed|moved|created|implemented|refactored|switched|rewrote|deleted|reverted|bumped|"
    r"pinned|disabled|enabled|re-enabled|installed|configured|increased|decreased|raised|"
    r"lowered|set|made|found|confirmed|verified|traced|wrote)|(?:all )?\d+ (?:tests? )?"
    r"(?:pass(?:ed|es)?|fail(?:ed|s)?)|coverage|deployed|pushed|committed|merged|tagged|"
    r"released|published)\b",
    re.IGNORECASE,
)
"""Sentences that state a change made or a result obtained."""
_WEAK_RE = re.compile(
    r"\b(?:because|due to|the fix|works now|succeeded|fail(?:s|ed|ing)?|(?:was|were|is|are|did) "
    r"not|(?:wasn|weren|isn|aren|didn)'t|now (?:returns|passes|works|fails|prints|raises|rejects|"
    r"uses|handles))\b",
    re.IGNORECASE,
)
_DONE_PREFIX_RE = re.compile(r"^(?:done|fixed|found it|result|cause|fix|decision)\s*[:—-]", re.I)
_ANY_DECISION_RE = lazy_pattern(
    "|".join(f"(?:{p.pattern})" for p in (_DONE_PREFIX_RE, _STRONG_RE, _CHANGE_RE, _WEAK_RE)),
    re.IGNORECASE,
)
_ANY_DECISION_LOW_RE = lazy_pattern(_ANY_DECISION_RE.pattern.replace("(?:I|we)", "(?:i|we)"))
"""Any of the four: one search rules out a sentence without a keyword of any weight (``LOW``:
the same of a sentence lower-cased, ``I`` the only capital: twice as fast; perf68)."""
_DECISION_WORDS = frozenset(
    # _DONE_PREFIX_RE (besides "done" and "result", below) and _STRONG_RE
    "fix fixed found cause caused decision decided decide chose opted going went "
    "instead rather turns bug issue problem "
    # the verbs of _STRONG_RE (before "from") and of _CHANGE_RE (after "I" / "we")
    "changed switched moved bumped increased decreased raised lowered updated renamed set reduced "
    "replaced added removed created implemented refactored rewrote deleted reverted pinned "
    "disabled enabled installed configured made confirmed verified traced wrote "
    # test counts and results of _CHANGE_RE
    "pass passed passes fail failed fails coverage deployed pushed committed merged tagged "
    "released published "
    # _WEAK_RE (besides "… not" and "now …", below)
    "because due succeeded failing wasn weren isn aren didn".split()
)
"""A sentence that scores (a pattern of :data:`_ANY_DECISION_RE` matches) holds one of these
as a word, or one of :data:`_NEGATED`, or ``now`` with one of :data:`_NOW_WORDS`, or ``done`` or
``result`` with a ``:`` or ``-`` (``Done: …``):
every pattern's keyword stands between word boundaries (or starts the sentence), so it is a
whole word of ``[a-z0-9]+`` in the lower-cased text (when lower-casing is what the patterns
compare: :func:`~compactor.facts.lowers_exactly`). ``test_models_local_text``
checks it with hypothesis and keyword by keyword. Splitting a text into words costs a few
microseconds, the patterns about fifteen per sentence."""
_NEGATED = ("was not", "were not", "is not", "are not", "did not")
_NOW_WORDS = frozenset("works returns passes fails prints raises rejects uses handles".split())
_WORD_RE = lazy_pattern(r"[a-z0-9]+")
_NOT_WORD_TO_SPACE = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))
"""A ``bytes.translate`` table: what :data:`_WORD_RE` does not take becomes a space."""


_KEYWORDS = _DECISION_WORDS | _NOW_WORDS | {"done", "result", "not", "now"}
"""Every word :func:`may_state_decision` and :func:`_keyword_hints` look for."""


def _keywords_in(low: str) -> frozenset[str]:
    """The words of :data:`_KEYWORDS` that the lower-cased ``low`` holds as words (the only
    words the two ask about: not a set of every word of a long text)."""
    if low.isascii():  # the same words, split in C: the non-word bytes made spaces
        return _KEYWORDS.intersection(
            low.encode("ascii").translate(_NOT_WORD_TO_SPACE).decode("ascii").split()
        )
    return _KEYWORDS.intersection(_WORD_RE.findall(low))


def may_state_decision(text: str, low: str = "") -> bool:
    """False when no sentence of ``text`` can state a decision, a cause, a change or a result
    (a text without a keyword of any weight); True otherwise (``low``: ``text`` lower-cased)."""
    if not low and not lowers_exactly(text):
        return True  # lower-casing is not what the patterns compare: no shortcut
    low = low or text.lower()
    words = _keywords_in(low)
    if not _DECISION_WORDS.isdisjoint(words):
        return True
    if ("done" in words or "result" in words) and (":" in low or "-" in low or "—" in low):
        return True  # "Done: …", "Result — …"
    if "not" in words and any(negated in low for negated in _NEGATED):
        return True
    return "now" in words and not _NOW_WORDS.isdisjoint(words)  # "works now", "now returns"


def _keyword_hints(text: str) -> frozenset[str] | None:
    """The keywords of :func:`may_state_decision` that ``text`` holds (so a sentence of it that
    holds none of them, not even as a substring, cannot score; none at all when it says False);
    None when lower-casing is not what the patterns compare (no shortcut)."""
    if not lowers_exactly(text):
        return None
    low = text.lower()
    words = _keywords_in(low)
    hints = set(_DECISION_WORDS.intersection(words))
    if ":" in low or "-" in low or "—" in low:
        hints.update(words.intersection(("done", "result")))
    if "not" in words and any(negated in low for negated in _NEGATED):
        hints.add("not")
    if "now" in words and not _NOW_WORDS.isdisjoint(words):
        hints.add("now")
    return frozenset(hints)


SHORT_TEXT, MEMO_MOST = 200, 4096  # a text this short is judged once a run (in MEMO_MOST)


def scored_once(text: str, memo: dict[str, list[tuple[int, str]]]) -> list[tuple[int, str]]:
    """:func:`scored_sentences`, each on one line; a short text's once a run (``memo``)."""
    if (found := memo.get(text) if len(text) <= SHORT_TEXT else None) is None:
        found = [(score, one_line(sentence)) for score, sentence in scored_sentences(text)]
        if len(text) <= SHORT_TEXT and len(memo) < MEMO_MOST:
            memo[text] = found
    return found


def scored_sentences(text: str) -> list[tuple[int, str]]:
    """(score, sentence without its list mark) of the sentences of ``text`` that state a
    decision, a cause, a change or a result (:func:`decision_score` > 0), in order.

    A sentence is scored only when it holds, as a substring, a keyword that the whole text
    holds as a word (a sentence's words are the text's: sentences split at spaces), and only
    the lines that hold one are split into sentences: a long message with one ``result:`` in it
    is not scored sentence by sentence (issue 28 point 7).
    ``test_models_local_text`` checks with hypothesis that this is scoring every sentence."""
    cleaned = clean(text)
    hints = _keyword_hints(cleaned)
    if hints is not None and not hints:
        return []  # what may_state_decision says: no keyword of any weight
    found: list[tuple[int, str]] = []
    if hints is None:
        for line in cleaned.split("\n"):  # a line break always ends a sentence
            for _, sentence in sentence_spans(line):
                _score_into(found, sentence)
        return found
    hint_re = _hints_re(hints)
    for line in cleaned.split("\n"):
        # Where the line's hints stand (lower-casing keeps positions: lowers_exactly): a
        # sentence is read only when one stands in it. A hint is letters and digits only, so
        # each stands inside one sentence (sentences end at punctuation and white space).
        hits = [m.start() for m in hint_re.finditer(line.lower())]
        for sentence in sentences_holding(line, hits) if hits else ():
            _score_into(found, sentence)
    return found


def _score_into(found: list[tuple[int, str]], sentence: str) -> None:
    sentence = sentence.strip()
    if sentence:
        sentence = strip_list_mark(sentence)
        score = decision_score(sentence)
        if score:
            found.append((score, sentence))


@functools.lru_cache(maxsize=1024)
def _hints_re(hints: frozenset[str]) -> re.Pattern[str]:
    """A pattern that finds any of ``hints`` (the longest first at a place)."""
    return re.compile("|".join(re.escape(h) for h in sorted(hints, key=lambda h: (-len(h), h))))


_INTENT_RE = lazy_pattern(
    r"^(?:now,?\s+|next,?\s+|then,?\s+)?(?:let me(?! know)|let's|i'll|i will|i'm going to|"
    r"i am going to|next,? i)\b|"
    r"^(?:now|next),?\s+(?:i['’]m\s+)?(?:updating|writing|adding|creating|fixing|running|editing|"
    r"applying|implementing|checking|moving|removing|refactoring|testing|building|changing|"
    r"wiring|porting|converting|migrating|working on|looking at|reading)\b|"
    r"^(?:现在|接下来|下一步|然后|接着)[，,：:]?\s*(?:我(?:来|将|会|要)?|让我)?\s*(?:开始|继续)?\s*"
    r"(?:更新|修改|创建|编写|写|运行|执行|检查|实现|添加|应用|处理|修复|删除|重构|测试|构建|生成|"
    r"读取|查看|完成)|^(?:让我|我来|我将|我会|我现在)",
    re.IGNORECASE,
)
_LIST_MARK_RE = lazy_pattern(r"^(?:[-*•]|\d{1,2}[.)])\s+")


def decision_score(sentence: str) -> int:
    """3 = a decision or cause, 2 = a change or result, 1 = a reason, 0 = none of these."""
    if not 15 <= len(sentence) <= 600 or sentence.rstrip(" *_").endswith(("?", ":")):
        return 0  # a question, or a lead-in ("Here's the fix:") whose content follows
    if sentence.startswith(("|", "[", "#", ">")) or "](" in sentence:
        return 0  # table rows, links, headings, quotes
    low = sentence.lower() if lowers_exactly(sentence) else ""  # (15 characters or more)
    search = _ANY_DECISION_LOW_RE.search if low else _ANY_DECISION_RE.search
    if not may_state_decision(sentence, low) or search(low or sentence) is None:
        return 0  # one pass: no keyword of any weight
    if is_self_correction(sentence):
        return 0  # "my edit did not …, let's fix that": how the work went (re-judged W3)
    strong = _DONE_PREFIX_RE.match(sentence) or _STRONG_RE.search(sentence)
    if _INTENT_RE.match(sentence):
        return 2 if strong else 0  # "Let me …" is a plan, unless it says why
    if strong:
        return 3
    if _CHANGE_RE.search(sentence):
        return 2
    return 1 if _WEAK_RE.search(sentence) else 0


def asks_user(sentence: str) -> bool:
    """Whether a sentence asks the user something (a question, "let me know", "should I")."""
    return _QUESTION_RE.search(sentence) is not None


def announces_step(sentence: str) -> bool:
    """Whether a sentence announces what the assistant does next ("I'll …", "Let me …")."""
    return _INTENT_RE.match(sentence) is not None


def strip_list_mark(sentence: str) -> str:
    """A sentence without its list bullet or number (``- ``, ``2. ``)."""
    return _LIST_MARK_RE.sub("", sentence)


_LIST_ITEM_RE = lazy_pattern(r"^\s*(?:\d{1,2}[.)]|[-*•])\s+(\S.*)$")
_MOST_QUESTIONS, _QUESTION_ITEM = 5, 100


def listed_questions(text: str) -> str:
    """When a final message asks a question and lists what it asks after it (``What do you
    want? 1. Stack: … 2. Shape: … 3. Git: …?``), the question with every listed item (at most
    :data:`_MOST_QUESTIONS`, each cut to :data:`_QUESTION_ITEM` characters), on one line; else
    "" (the message's last question is then the one asked)."""
    lines = text.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i].strip()
        if not line or _LIST_ITEM_RE.match(line) or not asks_user(line):
            continue
        items = []
        for later in lines[i + 1 :]:
            item = _LIST_ITEM_RE.match(later)
            if item is not None:
                items.append(cut(one_line(item.group(1)), _QUESTION_ITEM))
            elif later.strip() and items:
                break
        if len(items) < 2:
            return ""
        shown = items[:_MOST_QUESTIONS] + (["…"] if len(items) > _MOST_QUESTIONS else [])
        return " ".join(
            [cut(one_line(line), _QUESTION_ITEM)] + [f"({n}) {x}" for n, x in enumerate(shown, 1)]
        )
    return ""
