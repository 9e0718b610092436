"""What the local summary shows of a session whatever its limits, worked out once.

A summary is rendered with up to seven sets of limits until it fits (:mod:`compactor.models.local`).
What does not depend on the limits is derived here on the first render and kept in the
:class:`~compactor.models.local_session.Session`: the chronological walk of ``<analysis>``, the
user's rules, the identifiers used, the files the user named, every user message, the tools and
skills used. A later render only picks and shortens.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import TypeVar

from compactor._util import lazy_pattern
from compactor.facts import (
    Entry,
    command_of,
    cut,
    has_known_extension,
    is_reading_call,
    one_line,
    stopped_jobs,
    whole_paths,
    work_identifiers,
)
from compactor.facts.ide import without_ide_note
from compactor.facts.outcomes import unadvised
from compactor.facts.tracebacks import is_library_path, is_log_tag

from .local_aborted import aborted_message, aborted_note
from .local_again import EXPECTED_ANSWER
from .local_answers import user_answers
from .local_cutnames import names_left_out
from .local_decisions import MEMO_MOST, SHORT_TEXT, asks_user
from .local_dialogue import answered_later
from .local_earlier import earlier_line
from .local_latetasks import own_failed
from .local_limits import Limits
from .local_linked import linked_line
from .local_midwork import mid_work_title
from .local_names import cut_names
from .local_noise import local_note, normal_path, pasted_listing, path_in
from .local_pasted import own_sentences
from .local_planmode import plan_rules
from .local_queued import kept_queued, queued_text
from .local_rejected import is_refused, is_stopped, rejected_proposal_title
from .local_reviser import revised_title
from .local_rules import RULE_MARK_RE, is_constraint
from .local_session import Session
from .local_supersede import stale_next
from .local_text import code, prior_sections, prior_users
from .local_typed import own_words, typed_words
from .local_untouched import elsewhere_lines, named_elsewhere, untouched

T = TypeVar("T")

__all__ = [
    "Step",
    "deliverable_title",
    "deliverables",
    "identifiers_used",
    "is_constraint",
    "judge_approved_plan",
    "judge_revised",
    "judge_stale_state",
    "launched_outcomes",
    "named_files",
    "named_lines",
    "prior_concepts",
    "prior_paths",
    "relaunch_step",
    "stems",
    "step_of",
    "tools_used",
    "unadvised",
    "untouched",
    "user_messages",
    "user_rules",
    "walk_steps",
]

Step = tuple[str, Entry | str | None, list[str]]
"""(kind, entry or text, tool names or failed calls) of the chronological walk."""


_NO_NAMES: list[str] = []
"""The names of every step that has none (never changed: a step that gets names gets a list of
its own)."""


def step_of(item: Step | Entry) -> Step:
    """The step an item of :func:`walk_steps` stands for: a bare entry is a request or an
    assistant message that called nothing (a tuple and a list per step cost ~120 bytes a
    message on a history of a million short messages)."""
    if isinstance(item, Entry):
        return ("assistant" if item.role == "assistant" else "user", item, _NO_NAMES)
    return item


def first_indexed(texts: Iterable[str], most: int = MEMO_MOST) -> Iterator[tuple[int, str]]:
    """``texts`` with their positions, without the repeats of a short text (:data:`SHORT_TEXT`)
    already given, for a walk to which a text sent again adds nothing; at most ``most`` texts
    are remembered (a repeat of one that was not is given again: the walk is the same, only
    slower)."""
    seen: set[str] = set()
    for n, text in enumerate(texts):
        if text in seen:
            continue
        if len(text) <= SHORT_TEXT and len(seen) < most:
            seen.add(text)
        yield n, text


def first_times(texts: Iterable[str], most: int = MEMO_MOST) -> Iterator[str]:
    """:func:`first_indexed` without the positions."""
    return (text for _, text in first_indexed(texts, most))


def request_flags(s: Session) -> bytearray:
    """One byte per message index, 1 where a request stands (``flags[e.index]``): a set of
    the requests' indexes costs ~30 bytes a request (a million tiny messages: half requests)."""
    flags = bytearray(max(len(s.entries), max((e.index for e in s.requests), default=-1) + 1))
    for e in s.requests:
        flags[e.index] = 1
    return flags


def walk_steps(s: Session) -> list[Step | Entry]:
    """The chronological steps (:func:`step_of`), read once; only the steps shown are quoted."""
    if s.walk is not None:
        return s.walk
    steps: list[Step | Entry] = []
    requests = request_flags(s)
    local = dict(s.local_commands)
    failed_at = {err.index: err for err in s.errors if err.after != EXPECTED_ANSWER}  # (62 W4)
    for e in s.entries:
        if e.internal:
            steps.append(("note", "An earlier summary of the conversation was given.", _NO_NAMES))
        elif requests[e.index]:
            steps.append(s.trimmed.get(e.index, e) if s.trimmed else e)  # a user step
        elif e.index in local:
            steps.append(("note", local_note(local[e.index]), _NO_NAMES))
        elif s.aborted is not None and e.index == s.aborted.index:  # (blind check 38 W1)
            steps.append(("note", aborted_note(s), _NO_NAMES))
        elif e.role == "assistant":
            said = e.text.strip()
            if not said and steps and step_of(steps[-1])[0] == "assistant":
                if e.calls:
                    kind, what, names = step_of(steps[-1])
                    if names is _NO_NAMES:
                        steps[-1] = (kind, what, [c.name for c in e.calls])
                    else:
                        names.extend(c.name for c in e.calls)
            elif e.calls:
                steps.append(("assistant", e if said else None, [c.name for c in e.calls]))
            elif said:
                steps.append(e)  # an assistant step that called nothing
        elif e.index in failed_at:
            err = failed_at[e.index]  # a call the user rejected is no failure (blind check 26)
            kind = "rejected" if is_refused(err) else "stopped" if is_stopped(err) else "failed"
            last = step_of(steps[-1]) if steps else None
            if last is not None and last[0] == kind:
                last[2].append(err.call)
            else:
                steps.append((kind, None, [err.call]))
    s.walk = steps
    return steps


def _asked(text: str) -> str:
    """Where a user message may lift a hold: all of a short one, the start of a long paste (a
    pasted plan's "change X" or a log's "Add a property" deep inside is nobody's request)."""
    return text if len(text) <= 3_000 else text[:600]


_HEDGE_RE = lazy_pattern(r"^\W*(?:i|we)\s+(?:do not|don['’]?t)\s+(?:think|believe)\b", re.I)
"""A user's opinion or reaction ("I don't think that's it."): a "don't" that orders nothing."""


_QUOTED_END_RE = lazy_pattern(r"(?<=[?!.][\"'”’)\]])\s+(?=\S)")
"""A sentence end inside quotes or brackets (``… submitting?" Never …``): a sentence split
does not cut there, so the question and the rule after it would be one sentence."""


def user_rules(s: Session) -> list[str]:
    """The user's constraints and preferences, each once, without their list marks; not the
    sentences of pasted output (:func:`.local_pasted.own_sentences`). The first
    ``Limits().items`` of them at most (the most any limits show): the requests after the one
    that states the last of them are not read (a long chat of requests: 9 % of the paths shape)."""
    if s.rules is None:
        later = _Later([_asked(e.text) for e in s.requests])
        found = (
            RULE_MARK_RE.sub("", part).strip()
            for n, text in first_indexed(e.text for e in s.requests)  # a repeat adds none
            for x in own_sentences(own_words(text))
            for part in _QUOTED_END_RE.split(one_line(x))
            if is_constraint(part) and not later.lifts(part, n)
        )
        refused = (
            f"{err.by} (the user's reason for rejecting a {_TOOL_RE.split(err.call, 1)[0]} call)"
            for err in s.errors
            if err.after == "rejected" and not asks_user(err.by)  # a question is no rule
        )
        rules: dict[str, None] = {}
        for rule in found:
            rules[rule] = None  # (a repeat keeps its first place)
            if len(rules) == _RULES_SHOWN:
                break
        else:  # (all of them read: the others come after)
            for rule in [*refused, *plan_rules(s)]:
                rules.setdefault(rule, None)
        s.rules = list(rules)
    return s.rules


_RULES_SHOWN = Limits().items
"""The most rules any limits show (section 1 lists the first ``items``)."""


_TOOL_RE = lazy_pattern(r"[(:]")  # where a call line's tool name ends (``Bash: …``, ``Edit(p)``)
_HOLD_RE = lazy_pattern(
    r"\b(?:do not|don['’]?t|dont|no need to)\s+(?:yet\s+)?([a-z]{2,})\b(.*)", re.I
)
_FOR_NOW_RE = lazy_pattern(
    r"\b(?:yet|for now|for the moment|until|before|at this (?:point|stage))\b", re.I
)
_LATER_CHARS = 4_000
_NEGATED = ("not ", "n't ", "nt ", "never ", "no ")


class _Later:
    """The user's requests, to ask whether a later one lifts a prohibition. Where each request
    uses a verb as a word, not negated (in its first :data:`_LATER_CHARS` characters), is found
    once per verb."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.asks: dict[str, list[tuple[int, int]]] = {}

    def _asking(self, verb: str) -> list[tuple[int, int]]:
        """(request, where the verb ends) of each use of ``verb`` not negated."""
        found = self.asks.get(verb)
        if found is None:
            verb_re = re.compile(r"\b" + re.escape(verb) + r"\b", re.IGNORECASE)
            found = self.asks[verb] = [
                (n, m.end())
                for n, text in enumerate(self.texts)
                for m in verb_re.finditer(text, 0, _LATER_CHARS)
                if not text[max(0, m.start() - 12) : m.start()].lower().endswith(_NEGATED)
            ]
        return found

    def lifts(self, rule: str, n: int) -> bool:
        """Whether a request after the ``n``-th lifts ``rule`` (its lifetime is over): it asks
        for what was forbidden, by the same verb not negated ("Do not write any application
        code yet." → "Please write the configuration files"; "do not run migration" → "run
        bin/rails db:migrate now"), for a hold meant to end ("yet", "for now", "until"), or
        else naming right after the verb what the rule named (a word stem of the rule after its
        verb), or any later use of the verb when the rule named only a pronoun ("do not resize
        it": said of one object). "Never …" rules are never lifted this way."""
        hold = _HOLD_RE.search(rule)
        if hold is None or n + 1 >= len(self.texts) or _HEDGE_RE.match(rule) is not None:
            return False  # "I don't think …, keep X": the rule is the "keep", not a hold
        later = [(p, end) for p, end in self._asking(hold.group(1).lower()) if p > n]
        if not later or _FOR_NOW_RE.search(rule) is not None:
            return bool(later)
        objects = stems(hold.group(2))
        if not objects and _PRONOUN_RE.match(hold.group(2)):  # "do not resize it" (blind 25)
            return True  # said of one object: a later request for the verb supersedes it
        after = (self.texts[p][end : end + _OBJECT_REACH].lower() for p, end in later)
        return any(stem in text for text in after for stem in objects)


_OBJECT_REACH = 80
_PRONOUN_RE = lazy_pattern(r"\s*(?:it|them|this|that|these|those|one)\b\W*$", re.I)
"""How far after the verb a later request must name what a prohibition named."""
_SUFFIX_RE = re.compile(r"(?:ions?|ing|ed|es|s)$")
_COMMON_STEMS = frozenset(
    "been have that this with when want know keep going next would like still your what "
    "into them then than there their about could should from will just only some more "
    "nothing anything something none".split()
)


def stems(text: str) -> set[str]:
    """The content words of ``text`` as stems of at most six letters (``migration`` →
    ``migrat``, ``pushed`` → ``push``); none shorter than four."""
    found = set()
    for word in re.findall(r"[a-z]{4,}", text.lower()):
        if word in _COMMON_STEMS:
            continue
        stem = _SUFFIX_RE.sub("", word)[:6]
        if len(stem) >= 4:
            found.add(stem)
    return found


def identifiers_used(s: Session) -> list[str]:
    """Identifiers the user and the assistant wrote, most used first."""
    if s.identifiers is None:
        words: Counter[str] = Counter()  # counted in C; its keys in the order first seen
        requests = request_flags(s)
        known: dict[str, list[str]] = {}  # a short text's identifiers, found once per text
        for e in islice(s.entries, s.read_from, None):  # the newest READ_CHARS of a longer head
            if e.role == "assistant" or requests[e.index]:
                found = known.get(e.text)
                if found is None:
                    found = work_identifiers(e.text)  # not log prefixes, file names
                    if len(e.text) <= SHORT_TEXT and len(known) < MEMO_MOST:
                        known[e.text] = found
                if found:
                    words.update(found)
        s.identifiers = sorted(words, key=lambda w: -words[w])  # stable: first seen first
    return s.identifiers


def named_files(s: Session, most: int) -> list[str]:
    """The first ``most`` files the user's requests name that the transcript did not change,
    each once, in order (a summary shows at most ``most``: the requests after the one that names
    the last of them are not read, which on a long chat full of paths is most of them). Every
    call passes the same ``most``: the first call's list is kept."""
    if s.named is None:
        changed = {f.path.replace("\\", "/").rsplit("/", 1)[-1] for f in s.files.values()}
        found: dict[str, None] = {}
        changed_or_read = {normal_path(f) for f in s.files}  # E:/x/A.md is e:\x\A.md
        for text in first_times(e.text for e in s.requests):  # again: names no new file
            pasted = pasted_listing(text)  # a pasted ``find``'s lines are not files of the work
            said = without_ide_note(typed_words(text))  # not an open file
            for pos, p in whole_paths(said):
                if (
                    p not in pasted
                    and not is_library_path(p)  # a pasted frame's file (blind check 18)
                    and not is_log_tag(said, pos, p)  # a log line's [utils.py:287]
                    and not path_in(p, changed_or_read)
                    and p not in found
                    and p not in s.files
                    and p.rsplit("/", 1)[-1] not in changed
                    and has_known_extension(p)
                ):
                    found[p] = None
            if len(found) >= most:
                break
        s.named = list(found)[:most]
    return s.named


def named_lines(s: Session, most: int, shown: int) -> list[str]:
    """Section 3's lines for the files the user named (:func:`named_files`, ``shown`` of
    them), those that no call named apart: only in the user's words, they may not exist."""
    named = cut_names(s, named_files(s, most))[:shown]
    only = untouched(s, named)
    before, mine = earlier_line(s, named, shown)  # changed before the earlier compaction
    seen = [p for p in named if p not in only and p not in mine]
    lines = ["Named by the user: " + ", ".join(seen)] if seen else []
    lines += [before] if before else []
    if linked := linked_line(s, shown):  # (blind check 65, W2)
        lines.append(linked)
    if elsewhere := named_elsewhere(s, only):  # not "may not exist" (blind check 44, W4)
        lines += elsewhere_lines(elsewhere)
        only = [p for p in only if p not in elsewhere]
    if only:
        lines.append("Named by the user, never by a call (only in the user's words; they may "
                     "not exist): " + ", ".join(only))  # fmt: skip
    return lines


def user_messages(s: Session) -> list[str]:
    """Every user message, the earlier summaries' first, then the requests and the CLI's own
    commands in order (put on one line where they are shown)."""
    if s.users is None:
        prior = [u for text in s.prior for u in prior_users(text)]
        others = s.local_commands + user_answers(s) + aborted_message(s)  # (blind 38 W1)
        others += [(e.index, e.text) for e in s.asides]  # typed mid-turn (BENCH50 W4)
        others += [(e.index, e.text) for e, _ in s.replies]  # answers (blind check 67 W2)
        if not others:  # the requests alone, in order (no tuple per request)
            s.users = prior + [queued_text(e) for e in s.requests] + kept_queued(s)
            return s.users
        own = sorted(  # an entry is a request, a command or an answer: the index orders them
            [(e.index, queued_text(e)) for e in s.requests] + others, key=lambda item: item[0]
        )
        s.users = prior + [t for _, t in own] + kept_queued(s)  # (still queued: check 39)
    return s.users


def tools_used(s: Session) -> list[tuple[str, int]]:
    """(tool, calls), most used first (then in order of first use); also fills the skills."""
    if s.tools is None:
        counts: Counter[str] = Counter(c.name for c in s.calls)
        order = {name: i for i, name in enumerate(dict.fromkeys(c.name for c in s.calls))}
        s.tools = [(t, counts[t]) for t in sorted(counts, key=lambda t: (-counts[t], order[t]))]
        s.skills = list(
            dict.fromkeys(
                str(c.args["skill"]) for c in s.calls if isinstance(c.args.get("skill"), str)
            )
        )
    return s.tools


def prior_paths(s: Session, known: set[str]) -> list[str]:
    """The files section 3 of the latest earlier summary names, each once, beyond ``known``
    (its excerpt is capped; the paths are what a resuming agent needs of it)."""
    for text in reversed(s.prior):
        content = prior_sections(text).get(3)
        if content:
            found = [p for _, p in whole_paths(content) if has_known_extension(p)]
            return list(dict.fromkeys(p for p in found if p not in known))
    return []


def prior_concepts(s: Session, width: int, most: int) -> list[str]:
    """The items of the latest earlier summary's section 2 (its key concepts and the decisions
    they record: often the only place a decision taken before that compaction survives), each
    on one line and cut to ``width``, at most ``most`` of them."""
    for text in reversed(s.prior):
        content = prior_sections(text).get(2)
        if not content:
            continue
        items = [
            ln.strip()[2:] for ln in content.splitlines() if ln.strip().startswith(("- ", "* "))
        ]
        if not items:
            items = [content]
        return [cut(one_line(x), width) for x in items[:most] if x.strip()]
    return []


_NOT_DONE_RE = re.compile(
    r"\b(?:has(?:n['’]t| not)(?: yet)? been|have(?:n['’]t| not)(?: yet)? been|not yet|"
    r"nothing (?:has|have) been|no \w+ (?:has|have) been|untouched)\b",
    re.IGNORECASE,
)


_CLAUSE_RE = lazy_pattern(r"[,;:()—–]|\s-\s|\b(?:so|but|and|which|because)\b", re.IGNORECASE)
"""Where a clause ends: only the words of the clause that says what has not happened count."""


def judge_stale_state(s: Session) -> None:
    """A statement of what has not happened yet ("No migration has been run, so the database is
    untouched"; not a diagnosis such as "the password was not updated") is stale once a later
    call that succeeded did it (a command naming a word stem of it: ``bin/rails db:migrate``):
    it is not a decision or result of where work stands."""
    candidates = [n for n, (_, _, x) in enumerate(s.decisions) if _NOT_DONE_RE.search(x)]
    if not candidates:
        return
    done = [
        (c.index, command.lower()[:_LATER_CHARS])
        for c in s.calls
        if c.id in s.answered and c.id not in s.failed_calls
        and (command := command_of(c)) and not is_reading_call(c)
    ]  # fmt: skip
    stale = set()
    for n in candidates:
        i, _, x = s.decisions[n]
        words = set().union(*(stems(c) for c in _CLAUSE_RE.split(x) if _NOT_DONE_RE.search(c)))
        if any(j > i and any(w in command for w in words) for j, command in done):
            stale.add(n)
    s.decisions = [d for n, d in enumerate(s.decisions) if n not in stale]


def judge_revised(s: Session) -> None:
    """The last substantial answer is superseded when a later turn's answer revises it: an
    answer that ended a later turn (the assistant's last text before the next request) and
    names a file the substantial answer named ("Updated solaudd-grant-application.md with the
    milestone dates", after the draft that said they were still to fill). The latest such
    answer is then the one quoted first; the earlier one is kept as :attr:`Session.revised`.
    Else, when it answers an earlier request and a later answer ended the turn before the
    current request, that later answer is quoted first (:func:`.local_dialogue.answered_later`)."""
    _revised_by_files(s)
    if s.revised is None:
        answered_later(s)


def _revised_by_files(s: Session) -> None:
    d = s.deliverable
    if d is None or len(s.requests) < 2:
        return
    named = _file_names(d.text)
    if not named:
        return
    requests = {e.index for e in s.requests}
    answer: Entry | None = None
    later = False  # past the request that follows the answer's own turn
    for e in s.entries[d.index + 1 :] if s.entries[d.index] is d else ():
        if e.index in requests:
            if later and answer is not None and named & _file_names(answer.text):
                s.deliverable, s.revised = answer, s.revised or d
            answer, later = None, True
        elif e.role == "assistant" and e.text.strip() and not e.internal:
            answer = e


def _file_names(text: str) -> set[str]:
    return {_base(p) for _, p in whole_paths(text)}


def _revised_files(s: Session, earlier: Entry, later: Entry) -> set[str]:
    """The files both answers name that a call changed between them."""
    named = _file_names(earlier.text) & _file_names(later.text)
    if not named:
        return named
    return named & {
        _base(f.path)
        for f in s.files.values()
        if any(earlier.index < i <= later.index for i in f.changed_at)
    }


def _base(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def deliverables(s: Session) -> list[tuple[str, Entry]]:
    """(title, answer) of the answers quoted verbatim: the last substantial one, then the earlier
    one it revised (:func:`~compactor.models.local_views.judge_revised`), so titled."""
    if s.deliverable is None:
        return []
    quoted = [(deliverable_title(s), s.deliverable)]
    if s.revised is not None:
        changed = bool(_revised_files(s, s.revised, s.deliverable))  # (blind check 15)
        title = revised_title(s, s.revised, s.deliverable, changed)  # by which answer (36 W6)
        if note := stale_next(s, s.revised):  # its "← NEXT" is not current (blind check 10)
            title = f"{title[:-1]}; {note})"
        quoted.append((title, s.revised))
    return quoted


def deliverable_title(s: Session) -> str:
    """The title of the last substantial answer: the final deliverable only when it answers
    the current request; an earlier turn's answer is named so (also when a shorter answer
    ended the current request), with the current request said to have no answer yet when
    its turn did not end."""
    last, d = s.last_request, s.deliverable
    if d is not None and (refused := rejected_proposal_title(s, d)):  # (blind check 26)
        return refused
    if d is not None and last is not None and d.index < last.index:
        then = "" if s.turn_ended else ", which has no answer yet"
        then += f"; {s.deliverable_note}" if s.deliverable_note else ""
        return (
            f"An earlier request's answer, verbatim (NOT the answer to the current request{then})"
        )
    if d is not None and (mid := mid_work_title(s, d)) is not None:  # (blind checks 15, 23)
        return mid
    if s.failed_after and own_failed(s):  # what it says of a task failed since (63 W1)
        return "Final deliverable, verbatim (written before that failure: that task stopped since)"
    return "Final deliverable, the last substantial assistant answer, verbatim"


_APPROVED_RE = lazy_pattern(
    r"\b(?:user|you) (?:has |have )?approved (?:your|the|this) plan\b", re.I
)
_PLAN_ITEM_RE = lazy_pattern(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+(.+)$", re.MULTILINE)


def judge_approved_plan(s: Session) -> None:
    """A plan whose call the user approved (Claude Code's plan mode: "User has approved your
    plan") is an accepted decision: its list items, on one line, join the decisions."""
    approved = {
        r.call_id
        for e in s.entries
        for r in e.results
        if "approved" in r.text[:300] and _APPROVED_RE.search(r.text[:300])
    }
    for call in s.calls if approved else ():
        plan = call.args.get("plan") if call.id in approved else None
        if isinstance(plan, str) and (items := _PLAN_ITEM_RE.findall(plan)):
            said = "; ".join(one_line(x).replace("**", "").replace("`", "") for x in items)
            s.decisions.append((call.index, 3, f"The user approved the plan: {cut(said, 2_000)}"))
    s.decisions.sort(key=lambda d: d[0])


def whole_quote(text: str, limit: int) -> str:
    """``"text"`` on one line; a long text is cut at the last sentence or list-item boundary
    before ``limit`` (never mid-sentence: an earlier summary's facts are kept whole or not at
    all), with a note of how much was left out."""
    flat = one_line(text)
    if len(flat) <= limit:
        return '"' + flat + '"'  # the quote marks kept: it is verbatim (blind check 25)
    ends = [m.end() for m in _BOUNDARY_RE.finditer(flat, 0, limit)]
    cut_at = ends[-1] if ends and ends[-1] > limit // 3 else limit
    left = len(flat) - cut_at
    names = names_left_out(flat[cut_at:], flat[:cut_at]).replace('"', "'")  # (blind check 20)
    return '"' + flat[:cut_at].rstrip() + f' … ({left} more characters{names})"'


_BOUNDARY_RE = lazy_pattern(r"[.!?;:)](?=\s)|\s(?=- |\* |\d{1,2}\. )")


def head_tail(
    items: Sequence[T], head: int, tail: int, what: str, show: Callable[[T], str] = str
) -> list[str]:
    """The first ``head`` and last ``tail`` items (``show`` makes each a text, only those
    shown), with a note of how many are left out."""
    if len(items) <= head + tail:
        return [show(x) for x in items]
    omitted = len(items) - head - tail
    return [
        *(show(x) for x in items[:head]),
        f"… ({omitted} {what} omitted)",
        *(show(x) for x in items[len(items) - tail :]),
    ]


def _launched(s: Session) -> list[tuple[str, str, str]]:
    last = s.last_request
    return [] if last is None else stopped_jobs(s.entries, last.index)


def launched_outcomes(s: Session, width: int) -> list[str]:
    """What became of the background jobs and async sub-agents started since the latest request
    (a ``<task-notification>`` naming their id with a status): the results of the work launched
    for it, which a resuming agent must know before it launches them again (blind check 6: three
    sub-agents failed on a rate limit and the summary said nothing of them)."""
    return [
        f"Started for it: {code(cut(label, width // 2))}, which {status}"
        + (f": {cut(summary, width)}" if summary else "")
        for label, status, summary in _launched(s)
    ]


def relaunch_step(s: Session, width: int) -> str:
    """The next step's sentence for the work started for the latest request that failed or was
    killed: it is to be started again once its cause is gone (empty when none did)."""
    if s.turn_ended:
        return ""
    failed = [(label, summary) for label, status, summary in _launched(s)
              if status in ("failed", "killed", "error", "cancelled", "canceled")]  # fmt: skip
    if not failed:
        return ""
    names = ", ".join(code(cut(label, width // 2)) for label, _ in failed)
    why = f" (it ended with: {cut(failed[-1][1], width)})" if failed[-1][1] else ""
    return f" Re-run the work started for it that failed, once the cause is gone: {names}{why}."
