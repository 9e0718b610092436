"""Whether the session's last assistant text, with no call after it, stopped the turn after
announcing a step (BENCH44 W2).

A final text whose last sentence announces what the assistant does next ("Let me check how X
handles this:", "Now I'll run the tests.", "次に…を確認します：", "이제 …확인하겠습니다.") or
that ends with a colon, and after which no call was made, is a turn that was cut off, not an
answer: sections 7 and 8 say the turn stopped after announcing that step, the earlier summary's
pending items stay pending, and nothing says "nothing is pending" (cc-dxos: §7 said "the work
after it ended with an answer; nothing is pending" while §9 said "Do the step the assistant
announced last").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import sentences

from .local_closeask import prose_parts
from .local_text import quote

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["CUT_TURN", "announced_item", "cut_announcement", "cut_note"]

CUT_TURN = "the turn stopped after the assistant announced a step; no call followed"
"""How sections 7 and 8 name a turn cut after its announced step."""

_CJK_INTENT_RE = lazy_pattern(
    r"(?:^(?:次に|では|それでは|続いて|これから|今から|まず).{0,200}(?:します|しましょう|みます|いきます)"
    r"|(?:確認|調査|実行|修正|追加|作成|更新|変更|テスト|検索|参照)(?:します|してみます|していきます))"
    r"[。．.：:！!]?$"
    r"|(?:하겠습니다|보겠습니다|할게요|볼게요|하겠어요|보겠어요)[.:：!]?$"
)
"""A Japanese or Korean sentence announcing a step (「次に…を確認します：」, 「…하겠습니다.」)."""


def _last_sentence(text: str) -> str:
    """The last sentence of the prose of ``text`` (a Japanese run split at its last 「。」)."""
    parts = prose_parts(text)
    said = sentences("\n\n".join("\n".join(part) for part in parts))
    if not said:
        return ""
    last = said[-1].strip()
    _head, mark, tail = last.rstrip("。").rpartition("。")
    return tail.strip() if mark and tail.strip() else last


def cut_announcement(text: str, announced: str) -> str:
    """The step a final text with no call after it announced last (``announced``: the one its
    last English sentence announces, from :func:`final_question`), or the last sentence of a
    text that ends with a colon or announces a step in Japanese or Korean; "" for an answer."""
    if announced:
        return announced
    last = _last_sentence(text)
    if not last:
        return ""
    if text.rstrip().endswith((":", "：")) or _CJK_INTENT_RE.search(last):
        return last
    return ""


def announced_item(s: Session, width: int) -> str:
    """Section 7's line for the step the last message announced (and the turn stopped after)."""
    if s.cut_turn:
        return f"Not done: {CUT_TURN} (the turn was cut off): {quote(s.announced, width)}"
    return (
        f"The assistant's last message announced a step not done yet: {quote(s.announced, width)}"
    )


def cut_note(s: Session, e: object) -> str:
    """What section 8's "Last assistant message" title adds when the turn stopped after it."""
    return f" ({CUT_TURN})" if s.cut_turn and e is s.last_text else ""
