"""A plan whose work the user declined (blind check 70 W3).

rb_bash (Claude Code, in Spanish): the agent reviewed the project, wrote a TodoWrite of seven
items (three done, four "Corregir …" fixes pending) and asked "¿Procedo con las correcciones?"
("Shall I proceed with the fixes?"); the user answered "No, de momento no" ("No, not for now")
and went on to other questions. Section 7 listed the four fixes as "Open items of the agent's
task list": a resuming agent would start work the user had just declined.
:func:`plan_declined` tells such a plan: the first user message after the plan was last written
is a short refusal ("no", "not now", "de momento no", "nein", "non", "不用") of the assistant's
question whether to proceed with the work ("Shall I proceed?", "Do you want me to apply the
fixes?", "¿Procedo …?", "Soll ich …?", "要我继续吗？").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern

from .text import Entry

__all__ = [
    "DECLINED_PLAN_HEADING",
    "DECLINED_PLAN_NOTE",
    "asks_to_proceed",
    "declines",
    "plan_declined",
]

DECLINED_PLAN_HEADING = (
    "The agent's plan ({tool}): asked whether to proceed with it, the user declined for now; its"
    " items not done are declined for now by the user (do not start them unasked). Its items as"
    " last written:"
)
DECLINED_PLAN_NOTE = (
    "No open task-list items: the agent's plan ({tool}; {done} of {total} marked done) was "
    "declined for now by the user: asked {asked}, they answered {reply}. Its items not done, "
    "declined for now by the user (do not start them unasked):"
)
_PROCEED_RE = lazy_pattern(
    r"(?:\b(?:shall|should|may|can) I (?:go ahead|proceed|continue|start|apply|implement|make|"
    r"fix|do|begin)\b|\b(?:do you want|would you like|want) me to (?:go ahead|proceed|continue|"
    r"start|apply|implement|make|fix|do|begin|carry on)\b|\bready (?:for me )?to proceed\b|"
    r"\bproceed with\b|\bgo ahead with\b|"
    r"\b(?:procedo|contin[uú]o|aplico|corrijo|empiezo|comienzo)\b|"
    r"\b(?:quieres|quiere|deseas|desea|quer[eé]is) que (?:proceda|contin[uú]e|aplique|corrija|"
    r"implemente|haga|empiece|comience)\b|"
    r"\bsoll(?:en)? (?:ich|wir) (?:fortfahren|weitermachen|loslegen|beginnen|anfangen|die|das|"
    r"mit)\b|\bdois-je (?:continuer|proc[ée]der|appliquer|commencer)\b|"
    r"\b(?:voulez|veux)-(?:vous|tu) que je (?:proc[eè]de|continue|applique|corrige|commence)\b|"
    r"\bje (?:proc[eè]de|continue|applique)\s*\?|"
    r"(?:要我|需要我|是否|要不要)(?:继续|開始|开始|修复|修改|执行|进行|動手|动手)|"
    r"進めて(?:も)?(?:よろしい|いい)|修正しますか|進めますか)",
    re.IGNORECASE,
)
"""The assistant asks whether to go on with (or start) the work it proposed."""
_NO_WORDS = frozenset(
    "no nope nah not don't dont wait hold later nein nicht non pas todavía todavia aún aun "
    "tarde luego después despues später spater".split()
)
_FILLER = frozenset(
    "now yet for thanks thank you off on de momento por ahora ahorita gracias noch jetzt danke "
    "erst mal maintenant encore merci pour le moment plus tard más mas un poco just la the "
    "instant let's lets it that".split()
)
_CJK_NO_RE = lazy_pattern(
    r"^(?:不用|不要|先不|暂时不|暫時不|还不|還不|不了|いいえ|まだ|結構です|やめて)"
)
_WORD_RE = lazy_pattern(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_MOST_CHARS = 60


def asks_to_proceed(text: str) -> bool:
    """Whether the assistant's text ends with a question whether to proceed with the work."""
    tail = text.rstrip(" \t\n*_`")[-300:]
    if not tail.endswith(("?", "？")):
        return False
    question = re.split(r"[.!。\n]\s*", tail[:-1])[-1]
    return _PROCEED_RE.search(question + tail[-1]) is not None


def declines(reply: str) -> bool:
    """Whether a short ``reply`` only refuses ("No", "not now", "No, de momento no", "nein",
    "non merci", "不用"): a refusal with nothing else asked."""
    typed = " ".join(reply.split())
    if not typed or len(typed) > _MOST_CHARS or typed.endswith(("?", "？")):
        return False
    if _CJK_NO_RE.match(typed):
        return True
    words = [w.lower() for w in _WORD_RE.findall(typed)]
    return (
        bool(words) and words[0] in _NO_WORDS and all(w in _NO_WORDS or w in _FILLER for w in words)
    )


def plan_declined(
    entries: Sequence[Entry], at: int, instruction: str = ""
) -> tuple[str, str] | None:
    """(the question, the reply) when the first user message after the plan written at entry
    ``at`` declines the assistant's question, right before it, whether to proceed; else None.
    A user text from ``instruction`` on (the summarizer's own request) is no reply."""
    if at < 0:
        return None
    last = ""
    for e in entries[at + 1 :]:
        if e.internal or e.injected or e.role == "system":
            continue
        text = e.text.split(instruction, 1)[0] if instruction and e.role == "user" else e.text
        if e.role == "user" and not e.results and text.strip():
            if last and asks_to_proceed(last) and declines(text):
                question = re.split(r"[.!。\n]\s*", last.rstrip(" \t\n*_`")[-300:-1])[-1]
                return question.strip() + last.rstrip(" \t\n*_`")[-1], text.strip()
            return None
        if e.role == "assistant" and e.text.strip():
            last = e.text
    return None
