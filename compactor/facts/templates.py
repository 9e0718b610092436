"""A user message that is a command template with the user's words in its input slot (a slash
command's expansion: spec-kit's ``## User Input`` and a fenced block, then pages of
``## Outline``) is listed as its start — the slot and the template's first lines — not also
its end: the rest is the template's, the same in every such message (blind check 15:
gd-angular's two expansions printed about 200 lines in section 6)."""

from __future__ import annotations

import re
from itertools import islice

from compactor._util import lazy_pattern

from .ide import without_ide_note

__all__ = ["SLOT_RE", "bounded_template", "input_slot", "tail_words"]

_HEADING_RE = lazy_pattern(r"^#{1,6}[ \t]+\S", re.MULTILINE)
SLOT_RE = lazy_pattern(
    r"^#{1,6}[ \t]+[^\n]*\b(?:input|arguments?|request)\b[^\n]*\n\s*(```|~~~)[^\n]*\n(.*?)"
    r"(?:\n|(?<=\n))\1",
    re.IGNORECASE | re.MULTILINE | re.DOTALL,
)
"""A template's slot for the user's words: ``## User Input`` and the fenced block under it
(group 2: the words; ``""`` for an empty block, whose closing fence is on the next line).
The one owner: :mod:`compactor.models.local_typed` reads the words from it,
:mod:`compactor.models.local_template` and ``compact eval`` find templates by it."""


_UNFILLED_RE = lazy_pattern(r"\A\s*(?:\$[A-Z_]+|\{\{\s*\w+\s*\}\})\s*\Z")
"""An input slot the CLI left unfilled: ``$ARGUMENTS`` or ``{{args}}`` as written. An EMPTY
slot is no such slot: the CLI put the user's words in, and there were none (blind check 52
W11: ``/speckit.constitution`` with an empty ``## User Input`` block; its last line, "Do not
create a new template; always operate on the existing … file.", became the user's request and
constraint). The template's text after it is the template's, never the user's words."""
_NOT_PROSE_RE = lazy_pattern(r"\A(?:#|[-*+>|<]|\d+[.)]\s|```|~~~)")


def tail_words(text: str) -> str:
    """The user's words appended after a command template whose input slot was left unfilled
    (``## User Input`` with ``$ARGUMENTS``, the words at the end of the expansion; blind check
    49 W4): the last paragraph after the slot when it is prose (no heading, list item, table
    row, fence or tag), or the unindented prose lines that end it under a list (the words typed
    right after the template's last item, set 49 seen), naming no placeholder; '' otherwise.
    Without an IDE note."""
    if "```" not in text and "~~~" not in text:
        return ""
    slot = SLOT_RE.search(text)
    if slot is None or not _UNFILLED_RE.match(slot.group(2)):
        return ""
    rest = without_ide_note(text[slot.end() :]).rstrip()
    last = rest.rsplit("\n\n", 1)[-1].strip() if "\n\n" in rest else ""
    if last and _NOT_PROSE_RE.match(last):  # words typed right under the template's last list
        tail: list[str] = []
        for line in reversed(last.splitlines()):
            if not line.strip() or line != line.lstrip() or _NOT_PROSE_RE.match(line):
                break  # (an indented line continues the item above it)
            tail.append(line)
        last = "\n".join(reversed(tail)).strip()
    if not last or "$" in last:
        return ""
    return last


def input_slot(text: str) -> bool:
    """``text`` is a command template with the user's words in its input slot (``## User
    Input`` and a fenced block) as its first or second heading: its request is the slot, never the
    template's last section (blind check 31 W1: ``/speckit.specify``'s "Success criteria must
    be: …" was taken as the request of three messages)."""
    if "```" not in text and "~~~" not in text:
        return False
    slot = SLOT_RE.search(text)
    if slot is None:
        return False
    heads = [m.start() for m in islice(_HEADING_RE.finditer(text), 2)]
    return slot.start() in heads


def bounded_template(text: str, number: int, keep: int) -> str | None:
    """``text``'s first ``keep`` characters (at least through its input slot, cut at a word's
    end) and a pointer to the rest, when ``text`` is a command template whose input slot is
    near its start; else None. ``number`` 0: the newest message."""
    if "```" not in text[: 2 * keep] and "~~~" not in text[: 2 * keep]:
        return None  # cheap: no fenced slot near the start
    slot = SLOT_RE.search(text, 0, 4 * keep)
    if slot is None or slot.start() > keep or len(_HEADING_RE.findall(text)) < 2:
        return None
    end = max(keep, slot.end())
    if end >= len(text) - keep:
        return None
    cut = text.rfind(" ", slot.end(), end)
    end = cut if cut > slot.end() else end
    removed = len(text) - end
    which = f"user message {number}" if number > 0 else "the newest user message"
    words = tail_words(text)  # the user's words after the template (blind check 49 W4)
    after = f"; the user's words at its end: {words}" if words else ""
    return (
        f"{text[:end].rstrip()}…{removed} characters of a command template truncated (the full "
        f"text is {which} of the original transcript){after}"
    )
