"""An interrupted turn that a later request follows is said (blind check 35 F2): Codex 0.63
writes an ``event_msg`` ``turn_aborted`` (reason ``interrupted``) and no ``<turn_aborted>``
message; the user sent the same command again, and the summary said only "(sent 2 times)"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .codex_rollout import codex_say, codex_summary, codex_user, rec

ASK = "Add a --dry-run flag to the tidy command and document it in the README."
OTHER = "Forget that; rename the tidy command to clean instead."


def _records(aborted: dict[str, Any], second: str) -> list[dict[str, Any]]:
    return [
        rec("turn_context", {"cwd": "/work/tidy"}),
        codex_user(ASK),
        rec("event_msg", {"type": "user_message", "message": ASK}),
        aborted,
        codex_user(second),
        rec("event_msg", {"type": "user_message", "message": second}),
        codex_say("Done: the change is in src/tidy.py and the README."),
    ]


EVENT = rec("event_msg", {"type": "turn_aborted", "reason": "interrupted"})


def _interrupt_line(text: str) -> str:
    return next(ln for ln in text.splitlines() if "interrupted the turn of" in ln)


def test_an_aborted_event_before_the_same_request_sent_again_is_said(tmp_path: Path) -> None:
    text = codex_summary(_records(EVENT, ASK), tmp_path, "s-abort", "/work/tidy")
    line = _interrupt_line(text)
    assert ASK in line and "then sent it again" in line, line
    assert "(sent 2 times)" in text


def test_an_aborted_event_before_another_request_names_it(tmp_path: Path) -> None:
    text = codex_summary(_records(EVENT, OTHER), tmp_path, "s-other", "/work/tidy")
    line = _interrupt_line(text)
    assert ASK in line and f'then sent "{OTHER}"' in line, line


def test_the_turn_aborted_notice_message_is_said_the_same_way(tmp_path: Path) -> None:
    notice = codex_user("<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>")
    text = codex_summary(_records(notice, ASK), tmp_path, "s-notice", "/work/tidy")
    assert "then sent it again" in _interrupt_line(text)


def test_no_line_without_an_interruption(tmp_path: Path) -> None:
    records = [r for r in _records(EVENT, OTHER) if r is not EVENT]
    text = codex_summary(records, tmp_path, "s-plain", "/work/tidy")
    assert "interrupted the turn of" not in text
