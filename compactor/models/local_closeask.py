"""The question a final answer leaves open for the user (BENCH41 W5, BENCH42 W1).

* W5 (cx-ptp): the answer could not do the request and closed by offering two ways on and asking
  the user to pick one ("Option A: give me the key … Option B: set up the node …", then "please
  tell me … (or choose B)"). No line ended in "?", so the request read "was completed" and
  section 9 pointed at stale plan items. By shape: a closing line of the answer's prose that asks
  the user to choose, tell or send something (English or Chinese) is an open question; the
  options the answer labelled (``Option A:``, ``B)``, ``選項 B：``) go with it. A closing courtesy
  offer ("If you want, I can …", "Let me know if …") is no such question.
* W1 (cc-edm): the question read was the first line of a fenced example block ("Correlation: Does
  confidence predict accuracy?"), with the lines of the next fenced block glued on as its options.
  Lines inside fenced blocks (```````` … ````````) and indented example blocks are no prose
  addressed to the user: they are skipped, and a question's listed items never come from
  another block.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line, sentences

from .local_decisions import announces_step, asks_user, listed_questions

__all__ = ["final_question", "is_choice_ask", "prose_parts"]

_FENCE_RE = lazy_pattern(r"^\s{0,3}(`{3,}|~{3,})")
_LIST_RE = lazy_pattern(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s")
_CHOICE_RE = lazy_pattern(
    r"\bplease (?:tell|let) me\b|\b(?:tell|let) me know which\b|\btell me which\b|"
    r"\bplease (?:choose|pick|select|confirm|decide|reply|provide|send|share|give me)\b|"
    r"\b(?:choose|pick|select) (?:between|either|one|option|(?-i:[A-F])\b)|"
    r"\bwhich (?:one |option |approach |way |plan )?(?:do|would|should) (?:you|we|i) "
    r"(?:prefer|want|like|choose|pick|take|go with)\b|"
    r"\b(?:option|plan) [A-F1-9] or (?:option |plan )?[A-F1-9]\b|"
    r"請告訴我|请告诉我|請選擇|请选择|或選擇|或选择|選擇 ?[A-F]|选择 ?[A-F]|請提供|请提供|請確認|"
    r"请确认|哪一個|哪一个|哪個方案|哪个方案|選哪|选哪",
    re.IGNORECASE,
)
"""A line that asks the user to choose, tell or send something."""
_COURTESY_RE = lazy_pattern(
    r"^\W*(?:if\b|in case\b|should you\b|whenever\b|once you\b|let me know if\b|feel free\b|"
    r"happy to\b|i can also\b|如果|若|如需|需要的話|需要的话)",
    re.IGNORECASE,
)
"""A closing offer ("If you want, I can …", "Let me know if …"): answered, not awaiting."""
_CONDITION_RE = lazy_pattern(r"\b(?:if|in case|should you|unless)\b|如果|若是|的話|的话", re.I)
_OPTION_RE = lazy_pattern(
    r"^\W{0,6}(?:option|plan|choice|選項|选项|方案)\s*([A-F]|\d{1,2})\s*[.):：,\-–—]\s*(\S.*)$|"
    r"^\W{0,6}\(?([A-F])\)\s+(\S.*)$",
    re.IGNORECASE,
)
"""A labelled option line: ``Option A: …``, ``選項 B：…``, ``(a) …``, ``B) …``."""
_CLOSING_LINES = 4  # prose lines at the end of the answer that may ask the user
_MOST_OPTIONS, _OPTION = 4, 90


def prose_parts(text: str) -> list[list[str]]:
    """The lines of ``text`` outside its code blocks, split where a block was: fenced blocks
    (```` ``` ```` or ``~~~``) and indented blocks (four spaces or a tab after a blank line,
    not a list item's continuation) are examples, not prose addressed to the user."""
    parts: list[list[str]] = [[]]
    fence = ""
    indented = in_list = False
    blank = True
    for line in text.splitlines():
        if fence:
            fence = "" if line.strip().startswith(fence) else fence
            continue
        if (found := _FENCE_RE.match(line)) is not None:
            fence, blank = found.group(1), True
            parts.append([])
            continue
        if not line.strip():
            blank = True
            continue
        deep = line.startswith(("    ", "\t"))
        if deep and not in_list and (blank or indented):
            if not indented:
                parts.append([])
            indented = True
            continue
        indented, blank = False, False
        in_list = _LIST_RE.match(line) is not None or (in_list and line[:1].isspace())
        parts[-1].append(line)
    return [p for p in parts if p]


def is_choice_ask(line: str) -> bool:
    """Whether ``line`` asks the user to choose, tell or send something: not a courtesy offer,
    nor an ask under a condition ("Please share the log if it fails again")."""
    return (
        _CHOICE_RE.search(line) is not None
        and _COURTESY_RE.match(line.strip()) is None
        and _CONDITION_RE.search(line) is None
    )


def _options(lines: list[str]) -> list[str]:
    found: dict[str, str] = {}
    for line in lines:
        match = _OPTION_RE.match(line.strip())
        if match is not None:
            label = (match.group(1) or match.group(3)).upper()
            found.setdefault(label, cut(one_line(match.group(2) or match.group(4)), _OPTION))
    return [f"({k}) {v}" for k, v in list(found.items())[:_MOST_OPTIONS]] if len(found) > 1 else []


def _closing_ask(lines: list[str]) -> str:
    """The answer's closing line that asks the user to choose or tell (with the options the
    answer labelled), or a closing "?" line after two labelled options; "" when none."""
    closing = [ln.strip(" *#>-") for ln in lines[-_CLOSING_LINES:]]
    options = _options(lines)
    for line in reversed(closing):
        if _OPTION_RE.match(line) is not None or _COURTESY_RE.match(line) is not None:
            continue
        if is_choice_ask(line) or (options and line.rstrip().endswith(("?", "？"))):
            return " ".join([cut(one_line(line), 200), *options])
    return ""


def _listed(parts: list[list[str]]) -> str:
    """:func:`listed_questions` of the last block of prose that asks the user something."""
    for part in reversed(parts):
        if any(asks_user(ln) and _LIST_RE.match(ln) is None for ln in part):
            return listed_questions("\n".join(part))
    return ""


_CLOSING_MOST = 3


def _closing_questions(said: list[str], direct: list[str]) -> list[str]:
    """The questions ``said`` ends with (up to :data:`_CLOSING_MOST`, in order): "Want me to kick
    off A? Or would you rather do B?" offers both; a "yes" answers the first (blind check 66
    W2: only the last was kept)."""
    asking = {id(x) for x in direct}
    run: list[str] = []
    for sentence in reversed(said):
        if id(sentence) not in asking or len(run) == _CLOSING_MOST:
            break
        run.append(sentence)
    return run[::-1]


def final_question(text: str) -> tuple[str, str]:
    """(the question the final answer ``text`` asks the user, the step it announces when it asks
    none): its closing choice ask, else its question with the items it lists, else its last
    question; read in its prose only (never in a code block)."""
    parts = prose_parts(text)
    lines = [ln for part in parts for ln in part]
    said = sentences("\n\n".join("\n".join(part) for part in parts))
    asked = [x for x in said if asks_user(x)]
    direct = [x for x in asked if x.rstrip().endswith("?")]
    last_asked = (direct or asked)[-1] if asked else ""  # a real question first
    if direct and said[-1] is direct[-1]:  # every closing question, in order (66 W2)
        last_asked = " ".join(_closing_questions(said, direct))
    question = _listed(parts) or _closing_ask(lines) or last_asked
    if not question and said and announces_step(said[-1]):
        return "", said[-1]
    return question, ""
