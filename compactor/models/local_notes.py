"""The agent's own working notes of a turn that ended mid-work (blind check 48 N1).

A session that stopped in the middle of its work, a read-only audit of 30 calls among them,
holds its findings in the tool results and in the model's reasoning summaries ("noting calendar
data is plaintext which is a critical gap"); the summary kept none of them, so a resuming agent
had to redo the audit. When the latest request is not answered, section 8 now lists the
reasoning of the current turn: Codex's readable ``summary_text`` items, as its reader noted them
on the last message (:data:`~compactor.schema.REASONING_NOTES_KEY`), else the readable thinking
blocks of the messages after the latest request (Claude Code's ``thinking``; a redacted or
signature-only one has no text). The newest notes are chosen first and shown in order, in whole
sentences, at most :func:`_most` notes and characters. They are the model's own words, never
checked: the title says so. A turn that ended with an answer adds nothing (the answer holds its
conclusions). The text is masked like the rest of the summary (and once more as a whole).
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor.facts import cut, one_line, sentences
from compactor.schema import REASONING_NOTES_KEY, AgenticMessage, Message

from .local_limits import Limits
from .local_mask import masked
from .local_session import Session

__all__ = ["NOTES_TITLE", "note_reasoning", "thoughts", "working_notes"]

NOTES_TITLE = (
    "The agent's working notes in this turn (its own reasoning summaries, not verified; "
    "check before relying on them):"
)


def thoughts(msg: Message | AgenticMessage) -> list[str]:
    """The readable reasoning texts of an assistant message."""
    if msg.role != "assistant":
        return []
    if isinstance(msg, Message):
        return [msg.reasoning_content] if msg.reasoning_content else []
    return [
        b.text
        for b in msg.blocks
        if b.type == "reasoning" and b.text and b.text.strip()
        and not (isinstance(b.raw, dict) and b.raw.get("type") == "redacted_thinking")
    ]  # fmt: skip


def note_reasoning(s: Session, items: Sequence[Message | AgenticMessage]) -> None:
    """Fill :attr:`Session.notes` with the reasoning of the current turn of ``items``."""
    noted = items[-1].extra.get(REASONING_NOTES_KEY) if items and items[-1].extra else None
    if isinstance(noted, list):
        s.notes = [n for n in noted if isinstance(n, str) and n.strip()]
        return
    last = s.last_request
    if last is None:
        return
    s.notes = [t for m in items[last.index + 1 :] for t in thoughts(m)]


def _most(lim: Limits) -> tuple[int, int]:
    """(notes, characters) shown at ``lim``: 8 and 1,440 at the full limits."""
    return max(2, lim.items * 2 // 3), max(300, lim.item * 6)


def _fitted(note: str, room: int) -> str:
    """The first whole sentences of ``note`` that fit ``room``; "" when the first does not."""
    kept: list[str] = []
    size = 0
    for sentence in sentences(note):
        if size + len(sentence) + 1 > room:
            break
        kept.append(sentence)
        size += len(sentence) + 1
    return " ".join(kept)


def working_notes(s: Session, lim: Limits) -> list[str]:
    """Section 8's lines of the agent's working notes; [] when the turn ended or has none."""
    if s.turn_ended or not s.notes or s.last_request is None:
        return []
    count, room = _most(lim)
    chosen: list[str] = []
    seen: set[str] = set()
    for note in reversed(s.notes):  # the newest first
        flat = one_line(masked(note))  # (masked before a cut could cut a secret's key off)
        if room < 40:
            break
        if flat in seen:
            continue
        seen.add(flat)
        shown = flat if len(flat) <= room else _fitted(flat, room)
        if not shown and not chosen:
            shown = cut(flat, room)
        if not shown:
            break
        chosen.append(shown)
        room -= len(shown)
        if len(chosen) >= count:
            break
    return [NOTES_TITLE, *(f"  {n}" for n in reversed(chosen))] if chosen else []
