"""Decisions from the dialogue (issue 28, point 2): what the user said about the assistant's
proposals (rejected, accepted, the options picked), moved here from
:mod:`compactor.models.local_state`; and (blind check 9) an earlier answer the user disputed
next or a later result overtook, labelled so when the summary quotes it; (blind check 17) the
latest answer before the current request, quoted before a longer earlier one."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Entry, finds_any, one_line, sentences

from .local_again import BLOCKED, CONFIRMED_GONE, EXPECTED_ANSWER, ON_PURPOSE
from .local_alternative import alternatives, names_alternative
from .local_corrected import CORRECTED, corrects
from .local_decisions import MEMO_MOST, SHORT_TEXT, strip_list_mark
from .local_numbered import named_items
from .local_offers import declines_extras, is_ask
from .local_optlist import offer_scope
from .local_overtakes import overtakes
from .local_reask import closing_ask, reasked_suggestion, refers_back
from .local_restated import amended_by, rejects_approach, restated_proposals
from .local_reverted import not_accepted
from .local_session import Session
from .local_takeup import takes_up
from .local_typed import typed_words

__all__ = ["answered_later", "judge_disputed", "judge_proposals", "resolved"]

_REJECTS_RE = lazy_pattern(
    r"^\W*(?:no\b|nope\b|nah\b|don['’]?t\b|do not\b|not (?:that|this|like that)\b|instead\b|"
    r"rather\b|stop\b|wait\b|wrong\b|that['’]?s (?:wrong|not)\b|let['’]?s not\b|never ?mind\b|"
    r"cancel\b|i (?:don['’]?t|do not) want\b)",
    re.IGNORECASE,
)
_ACCEPTS_RE = lazy_pattern(
    r"^\W*(?:yes|yep|yeah|ok(?:ay)?|sure|sounds good|go ahead|do it|lgtm|approved?|agreed|"
    r"perfect|great|let['’]?s do (?:it|that))\b",
    re.IGNORECASE,
)


_PROPOSES_RE = lazy_pattern(
    r"\b(?:i['’]ll|i will|i would|i['’]d|let['’]s|we should|we could|you could|i suggest|"
    r"i propose|i recommend|my recommendation|how about|shall i|should i|want me to|"
    r"the plan is|plan:|option)\b",
    re.IGNORECASE,
)


_OPTIONS_RE = lazy_pattern(r"^\W{0,6}(?:\d{1,2}[.)]|\(?[a-f]\))\s+\S", re.MULTILINE)
_CHOOSES_RE = lazy_pattern(
    r"^\W*(?:(?:ok(?:ay)?|so|now|then|alright|and|but)\b[,\s]*)*(?:ditch|drop|remove|skip|"
    r"exclude|go with|pick|choose|keep only|let['’]?s go with|i (?:choose|pick|prefer)|"
    r"(?:number|option|item)s? \w+ (?:is|are|sounds?) (?:good|fine|best))\b",
    re.IGNORECASE,
)

_CHOICE_WORDS = (
    "ditch", "drop", "remove", "skip", "exclude", "go with", "pick", "choose", "keep only",
    "prefer", "good", "fine", "best",
)  # fmt: skip
_CHOICE_WORD_RE = re.compile("|".join(_CHOICE_WORDS), re.IGNORECASE)
"""A word every :data:`_CHOOSES_RE` match holds: a request without one picks nothing."""


def _choices(s: Session, request: Entry, said: Entry) -> None:
    """A request that picks among the options one of the assistant's last three messages before
    it listed (a numbered or lettered list): its sentences that choose or drop ("ditch number 5 and
    6", "go with (b)") are decisions of the user."""
    texts = [
        e.text for e in s.entries[max(0, said.index - 40) : request.index]
        if e.role == "assistant" and not e.internal and e.text.strip()
    ][-3:]  # fmt: skip
    if not any(len(_OPTIONS_RE.findall(x)) >= 2 for x in texts):
        return
    picked = [  # with the items its numbers name (re-judged M2: "ditch 5 (…) and 6 (…)")
        (request.index, 3, f"Decided by the user: {one_line(x)}{named_items(x, texts)}")
        for x in sentences(typed_words(request.text))  # not a template's words (blind 13)
        if len(x) <= 300 and _CHOOSES_RE.search(x)
    ]
    if picked:
        s.decisions = sorted([*s.decisions, *picked], key=lambda d: d[0])


_ASKS_TO_PICK_RE = lazy_pattern(
    r"\b(?:pick|choose|select) (?:one|either|between)\b|\bwhich (?:one|option)\b|"
    r"(?:^|\s)\(?[Aa]\)\s+\S.*?\s\(?[Bb]\)\s+\S",
    re.IGNORECASE | re.DOTALL,
)
"""A request that asks the assistant to choose ("PICK ONE: A) … or B) …", "which one?"):
it neither accepts a proposal nor makes a choice (blind check 24, cc-steam)."""


_SAYS_NOTHING_RE = lazy_pattern(
    r"\A\s*(?:\(\s*(?:no|empty)\s+(?:content|output|message|text)\s*\)"
    r"|<(user-memory-input)>(?:(?!</?\1>)[\s\S])*</\1>)\s*\Z",
    re.IGNORECASE,
)
"""A user message that answers nothing: Claude Code's empty-message placeholder ``(no content)``
(its "no" is no refusal) or a memory note wholly (``# …`` → ``<user-memory-input>…``): it
turns down and accepts no proposal (blind check 79 W1, jc_edit)."""


def _verdicts(text: str) -> tuple[bool, bool, bool]:
    """Whether a request rejects, accepts, may choose (:func:`judge_proposals`)."""
    rejects = _REJECTS_RE.match(text) is not None or rejects_approach(text)  # (BENCH46 W5)
    accepts = not rejects and (_ACCEPTS_RE.match(text) or _BARE_RE.match(text)) is not None
    choosing = finds_any(text, _CHOICE_WORDS, _CHOICE_WORD_RE)
    if (accepts or choosing) and len(text) <= 2_000 and _ASKS_TO_PICK_RE.search(text):
        return rejects, False, False  # a request to choose (blind check 24)
    return rejects, accepts, choosing


def judge_proposals(s: Session) -> None:
    """Decisions from the dialogue: the proposals (``I'll …``, ``we should …``, ``I recommend
    …``) of the last assistant message before a request are turned down when the request starts
    by saying so ("no", "don't", "instead …"): they go to :attr:`Session.rejected` and out of the
    decisions; when it accepts them ("yes", "go ahead") they are decisions accepted by the user.
    Causes and results the message stated stay what they are. Like the decisions, only the
    requests in the newest ``READ_CHARS`` of a longer head are judged."""
    previous = -1
    judged: dict[str, tuple[bool, bool, bool]] = {}  # a short request's verdicts, once per text
    named: dict[str, str | None] = {}  # a short request's named option, once per text
    for request in s.requests:
        start, previous = previous + 1, request.index
        if request.index < s.read_from:
            continue  # decisions are read in the newest READ_CHARS of a longer head only
        if _SAYS_NOTHING_RE.match(request.text):
            continue  # "(no content)", a memory note: no answer to a proposal (79 W1)
        verdicts = judged.get(request.text)
        if verdicts is None:
            verdicts = _verdicts(request.text)
            if len(request.text) <= SHORT_TEXT and len(judged) < MEMO_MOST:
                judged[request.text] = verdicts
        rejects, accepts, choosing = verdicts
        if not (rejects or accepts or choosing):
            continue  # none: the message before it is not looked for
        said = next(
            (
                e
                for e in reversed(s.entries[start : request.index])
                if e.role == "assistant" and e.text.strip() and not e.internal
            ),
            None,
        )
        if said is None or _step_number(request.text, said.text):
            continue
        if choosing:
            _choices(s, request, said)
        if not (rejects or accepts):
            continue
        declined = accepts and declines_extras(request.text, said.text)
        if declined:  # "okay if you think we're good, let's move on" (blind check 15)
            rejects, accepts = True, False
        proposals = [one_line(strip_list_mark(x)) for x in sentences(said.text) if _proposes(x)]
        picked, chosen = _named_option(request.text, named) if accepts else None, []
        if picked is not None:  # "okay, option 1": that option only (blind check 13)
            proposals = [x for x in proposals if option_label(x) is not None]
            scoped = chosen_option(offer_scope(said.text), picked)  # (BENCH45 W1)
            chosen = scoped or chosen_option(said.text, picked)
        if rejects and rejects_approach(request.text):  # all of the message (BENCH46 W5)
            s.rejected.extend(proposals)
            s.decisions = not_accepted(
                [d for d in s.decisions if not (d[0] == said.index and d[2] in proposals)],
                said.index,
                request.text,
            )
            continue
        if not proposals and picked is None:
            continue
        kept = [d for d in s.decisions if not (d[0] == said.index and d[2] in proposals)]
        restated = [] if declined else restated_proposals(request.text, proposals)
        if restated:  # "no … and move X to Y": the user's own instruction (BENCH46 W3)
            s.rejected.extend(x for x in proposals if x not in restated)
            amended = (said.index, 3, amended_by(request.text))
            s.decisions = sorted([*kept, amended], key=lambda d: d[0])
        elif rejects:
            s.rejected.extend(x for x in proposals if not (declined and is_ask(x)))
            s.decisions = kept
        else:
            offered = [asked] if (asked := closing_ask(said.text)) else proposals
            if picked is None and not takes_up(one_line(typed_words(request.text)), offered):
                continue  # "ok great, … why is that?": acknowledged, not taken up (58 W5)
            yes = [x for x in (chosen if picked is not None else proposals) if not is_ask(x)]
            if picked is None and (alt := alternatives(said.text)):  # (BENCH50 W6)
                yes = [x for x in yes if x not in alt or names_alternative(request.text, alt[x])]
            if again := reasked_suggestion(s, said):  # (49 N3)
                yes = [again]
            elif picked is None and (asked := closing_ask(said.text)):  # (BENCH55 W3)
                if refers_back(asked):  # "… with all these refinements?": them too
                    yes = [*yes, asked]
                else:  # the statements before it stay as said
                    yes, kept = [asked], s.decisions
            accepted = [(said.index, 3, f"Accepted by the user: {x}") for x in yes]
            s.decisions = sorted([*kept, *accepted], key=lambda d: d[0])


_OFFERS_RE = lazy_pattern(
    r"\b(?:which|choose|choice|pick|select|options?|prefer|quel(?:le)?s?|lequel|laquelle|choisi\w*"
    r"|opci[oó]n|elige|cu[aá]l|welche[rsn]?|w[aä]hle|number|num[ée]ro|nummer)\b"
    r"|选|哪个|哪一|编号|序号|どれ|どちら|番号|어느|번호"
    r"|\b\d{1,2}\s*(?:,|/|or|ou|o|oder|或)\s*\d{1,2}\b[^\n.!?]{0,40}\?",
    re.IGNORECASE,
)
"""A question that offers choices: "which one", "choose", "option", "1, 2 or 3?"."""
_YES_NO_RE = lazy_pattern(
    r"\b(?:y|yes|o|oui|s|s[ií])[`'\"]?\s*/\s*[`'\"]?(?:n|no|non)\b|"
    r"\b(?:continue|continuer|proceed|go on|move on|passer|weiter|seguir|continuar)\b[^\n?]{0,40}"
    r"\b(?:to )?(?:step|étape|etape|phase|stage|paso|schritt|part)\s*#?\d",
    re.IGNORECASE,
)
"""A yes/no question (``(y / n / edit)``) or "continue to step 3?": no choice among items."""


def _step_number(reply: str, said: str) -> bool:
    """Whether a bare number the user replied with (``3``) is no pick of the same-numbered
    item of the assistant's message: its closing question offers no choice (``Continuer vers
    l'étape 3 ? (y / n / edit)``: the list above it is a plan; blind check 27, W3)."""
    bare = _BARE_RE.match(one_line(reply)) if len(reply) <= 40 else None
    if bare is None or not bare.group(1).isdigit():
        return False
    tail = said[-600:]
    if _YES_NO_RE.search(tail) is not None:
        return True
    return _OFFERS_RE.search(tail) is None


def _named_option(text: str, memo: dict[str, str | None]) -> str | None:
    """:func:`named_option` of a request, once per short text ("ok", "yes": asked often)."""
    if text in memo:
        return memo[text]
    picked = named_option(text)
    if len(text) <= SHORT_TEXT and len(memo) < MEMO_MOST:
        memo[text] = picked
    return picked


_PROMISE_RE = lazy_pattern(
    r"\b(?:i['’]ll|i will)\s+(?:let you know|keep you (?:posted|updated|informed)|report back|"
    r"get back to you|notify you|ping you|update you|tell you)\b",
    re.IGNORECASE,
)
"""A promise to report back ("I'll let you know when it's done."): no proposal to accept."""


def _proposes(sentence: str) -> bool:
    """Whether an assistant sentence proposes something the user's yes or no decides: not a
    table row ("| 6 | … want me to …": one cell of a listing) nor a promise to report back."""
    return (
        _PROPOSES_RE.search(sentence) is not None
        and not sentence.lstrip().startswith("|")
        and _PROMISE_RE.search(sentence) is None
    )


_LABEL_RE = lazy_pattern(
    r"^\W{0,8}(?:(?:option|choice|plan|approach|alternative|variant)(?:\s+#?|\s*#)\s*(\d{1,2}|[A-Za-z])"
    r"(?![\w'’])|(\d{1,2}|[A-Ha-h])[.)]\s|\(([A-Ha-h]|\d{1,2})\)\s)",
    re.IGNORECASE,
)
"""An option's label where its line or sentence starts: ``**Option 1:**``, ``Plan B -``,
``2.``, ``b)``, ``(c)``."""
_NAMED_RE = lazy_pattern(
    r"\b(option|choice|plan|approach|alternative|variant|number)(?:\s+#?|\s*#)\s*(\d{1,2}|[A-Za-z])"
    r"(?![\w'’])(?!\s*(?:,|&|\+|and\b|or\b)\s*(?:\d|[A-Za-z]\b))",
    re.IGNORECASE,
)
_ORDINAL_RE = lazy_pattern(
    r"\b(first|second|third|fourth|fifth)(?:\s+(?:one|option|choice|approach|plan|way|"
    r"alternative)\b|\W*$)",
    re.IGNORECASE,
)
_BARE_RE = lazy_pattern(
    r"^\W*(?:(?i:yes|yep|yeah|ok(?:ay)?|sure|go|do)\W+)*(?:(?i:option|choice|plan)\s*#?\s*)?"
    r"(\d{1,2}|[A-H])(?:\W+(?i:please|pls|thanks))?\W*$"
)
"""A reply that is only an option's label ("B", "2", "option 1 please"): it picks that one."""
_ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5"}
_LETTERS = "abcdefgh"


def _label(value: str) -> str:
    """An option's label, one spelling: ``B`` and ``b`` are ``b``, ``2`` is ``2``."""
    return value.lower()


def option_label(line: str) -> str | None:
    """The label an option's line starts with (:data:`_LABEL_RE`), or None."""
    m = _LABEL_RE.match(line)
    if m is None:
        return None
    return _label(next(g for g in m.groups() if g is not None))


def chosen_option(text: str, picked: str) -> list[str]:
    """The line of ``text`` that starts with option ``picked``'s label (the n-th letter for
    "the first" when the options are lettered), as one line; none when no line does."""
    letter = _LETTERS[int(picked) - 1] if picked.isdigit() and 0 < int(picked) <= 8 else ""
    labelled = [(option_label(x), x) for x in text.splitlines()]
    for want in (picked, letter):
        found = [one_line(strip_list_mark(x)) for label, x in labelled if want and label == want]
        if found:
            return found[:1]
    return []


def named_option(reply: str) -> str | None:
    """The one option a user's reply names ("okay try again option 1", "plan B", "the first
    one", "2", "A"), or None; a letter after "plan" or "approach" counts only as a capital
    ("plan a trip" names nothing)."""
    flat = one_line(reply)
    if len(flat) > 300:
        return None
    found = {
        _label(m.group(2))
        for m in _NAMED_RE.finditer(flat)
        if m.group(2).isdigit() or m.group(2).isupper() or m.group(1).lower() == "option"
    }
    found.update(_ORDINALS[m.group(1).lower()] for m in _ORDINAL_RE.finditer(flat))
    if (bare := _BARE_RE.match(flat)) is not None:
        found.add(_label(bare.group(1)))
    return found.pop() if len(found) == 1 else None


_DISPUTES_RE = lazy_pattern(
    r"^\W*(?:(?:yes|yeah|yep|ok(?:ay)?|sure|right)\W+but\b|but\b|no\b|nope\b|wrong\b|not true\b|"
    r"incorrect\b|that['’]?s (?:wrong|not|incorrect|false)\b|you['’]?re wrong\b|"
    r"(?:it )?(?:still|doesn['’]?t|does not|didn['’]?t|did not|isn['’]?t|is not)\b|"
    r"you (?:didn['’]?t|did not|haven['’]?t|have not|forgot|missed|broke)\b|"
    r"(?:it )?(?:fail(?:s|ed)?|crash(?:es|ed)?|broke(?:n)?|error)\W*$)",
    re.IGNORECASE,
)
"""A next message that disputes the answer before it ("yes but …", "no, …", "still says …",
"you didn't …", "fail")."""
_SHOUT_RE = lazy_pattern(r"\b[A-Z]{4,}\b")
"""A capitalised word: three of them are a protest ("I BUILT THE AGENTS BRIDGE")."""
_CHALLENGE_RE = lazy_pattern(
    r"[?!？！]|\b(?:why|where|how come|what the|not|never|again|still|wrong|broke(?:n)?)\b|"
    r"n['’]t\b",
    re.IGNORECASE,
)
"""What makes capitals a protest (blind check 57 W2): a question, an exclamation, a negation or
"still", "again", "wrong"; capitals without one name things ("POWER BI AND PYTHON AND EXCEL" in
a new change request that builds on the answer: no dispute)."""
_CLAIMS_RE = lazy_pattern(
    r"\b(?:success(?:ful(?:ly)?)?|succeeded|complete[d]?|fixed|resolved|running|works|working|"
    r"passe[sd]|done|finished|ready)\b|✅",
    re.IGNORECASE,
)
"""Words of an answer that says the work went well (a later failure overtakes it)."""
_CLAIM_HEAD = 600
_GONE = frozenset(
    {"fixed", "skipped", "meant to fail", "not found", "rejected", "worked around"}
    | {"worked around by", "fixed by editing", "user ran", "ended later", "user fixed"}
    | {"got past"}  # a rerun of the same command got past it (local_newerror, blind check 37)
    | {BLOCKED}  # the harness refused it: it never ran (blind check 51, W5)
    | {CONFIRMED_GONE}  # `ls X` exits 2 right after `rm -rf X`: as meant (fix57a)
    | {ON_PURPOSE}  # "Refusing to …": the script's own decision, no crash (fix57a)
    | {EXPECTED_ANSWER}  # an unflagged probe's 404 the assistant called normal (blind 62 W4)
)
"""What became of a failure that does not overtake an answer (it was fixed, or not a failure)."""


def resolved(after: str) -> bool:
    """Whether a failure's ``after`` says it was fixed, got past or is no failure to fix."""
    return after in _GONE


def judge_disputed(s: Session) -> None:
    """An earlier answer the summary quotes verbatim (:attr:`Session.deliverable`, when a later
    request followed it) that the user disputed in the next message ("yes but …", "no, …",
    "still says …", "fail", a protest in capitals), or whose claim of success ("running
    successfully", "complete") a later failed call overtook, gets
    :attr:`Session.deliverable_note` saying so, with the words or the failure (issue 28)."""
    d, last = s.deliverable, s.last_request
    if d is None or last is None or d.index > last.index:
        return
    after = next((r for r in s.requests if r.index > d.index), None)
    said = one_line(typed_words(after.text)) if after is not None else ""  # not a template's
    if said and (_DISPUTES_RE.match(said) or _protests(said)):
        s.deliverable_note = f"the user disputed it next: {_quoted(said)}"
        return
    if said and corrects(said, d.text):  # sent the review's URL, "look again" (BENCH46 W6)
        s.deliverable_note = f"{CORRECTED}: {_quoted(said)}"
        return
    if _CLAIMS_RE.search(d.text[:_CLAIM_HEAD]) is None:
        return
    nxt = after.index if after is not None else None
    for err in s.errors:
        if err.index > d.index and err.after not in _GONE and overtakes(s, d, nxt, err):
            why = f": {_short(err.outcome.lines[0], 120)}" if err.outcome.lines else ""
            s.deliverable_note = f"a later result overtook it: {_short(err.call, 100)} failed{why}"
            return


_AGREES_RE = lazy_pattern(
    r"^\W*(?:yes|yeah|yep|sure|of course|ok(?:ay)?|да|конечно|хорошо|ладно|ага|oui|sí|ja)(?!\w)",
    re.IGNORECASE,
)
"""A reply that starts by agreeing ("yes of course", "да конечно"): no dispute (blind check 15)."""


def _protests(said: str) -> bool:
    """Whether the user's own words protest in capitals (three words or more) without agreeing:
    with a question, an exclamation or a negation (:data:`_CHALLENGE_RE`), not a follow-up
    request that names things in capitals (blind check 57 W2)."""
    return (
        len(_SHOUT_RE.findall(said)) >= 3
        and _AGREES_RE.match(said) is None
        and _CHALLENGE_RE.search(said) is not None
    )


def _short(text: str, limit: int) -> str:
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _quoted(text: str) -> str:
    return "'" + _short(text, 200).replace("'", "’") + "'"


def answered_later(s: Session) -> None:
    """Blind check 17 (liza-main): the long "no direct link found … which option?" was quoted as
    the earlier answer, while the user then sent the link and "The video is downloaded" ended
    that turn. The latest answer before the current request (the assistant's text that ended
    its turn, with no call after it) is quoted first; the longer one after it, as older."""
    d, last = s.deliverable, s.last_request
    if d is None or last is None or d.index > last.index or s.entries[d.index] is not d:
        return
    for e in reversed(s.entries[d.index + 1 : last.index]):
        if e.role == "assistant" and not e.internal and (e.calls or e.text.strip()):
            same = s.reply is not None and s.reply.text.strip() == e.text.strip()
            if not e.calls and not same and e not in s.harness_errors:  # (same: said above)
                s.deliverable, s.revised = e, d
            return
