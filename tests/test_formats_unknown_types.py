"""One owner for "records of types a reader does not know: refused when they outnumber what was
read, else kept and warned about" (debt57): ``formats/_unknown_types``, used by the Codex and the
Copilot readers, each wording its refusal (their own tests hold the messages and exit codes:
``test_codex_agent_messages56``, ``test_formats_cursor_copilot``)."""

from __future__ import annotations

import pytest

from compactor.errors import TranscriptError
from compactor.formats import _codex_unknown, copilot
from compactor.formats._unknown_types import refuse_outnumbered, tally


def _says(first: str, total: int, types: list[str], read: int) -> str:
    return f"{first}|{total}|{','.join(types)}|{read}"


def test_each_unknown_type_is_counted_at_its_first_line_in_first_seen_order() -> None:
    seen = [("b.x", 4), ("a.y", 6), ("b.x", 9), ("a.y", 12), ("b.x", 15)]
    assert tally(seen) == [("b.x", 4, 3), ("a.y", 6, 2)]
    assert tally([]) == []


def test_unknown_records_are_refused_only_when_they_outnumber_what_was_read() -> None:
    found = tally([("b.x", 4), ("a.y", 2), ("b.x", 9)])
    refuse_outnumbered("f.jsonl", found, 3, "type", _says)  # as many as read: kept
    refuse_outnumbered("f.jsonl", [], 0, "type", _says)  # none at all
    with pytest.raises(TranscriptError) as caught:
        refuse_outnumbered("f.jsonl", found, 2, "payload.type", _says)
    err = caught.value
    assert (err.line, err.field) == (2, "payload.type")  # at the first unknown record
    assert err.message == "a.y|3|a.y,b.x|2"


def test_both_readers_refuse_through_the_one_helper() -> None:
    """The Codex and Copilot readers hold no tally or refusal of their own."""
    for reader in (copilot, _codex_unknown):
        assert vars(reader)["refuse_outnumbered"] is refuse_outnumbered
        assert vars(reader)["tally"] is tally
