"""Blind check 69 (N4, a Codex rollout): a ``git status`` digest printed before commits the user
made between turns (no call committed; the harness's ``ghost_snapshot`` items show HEAD moved) is
the state before those commits, never shown as the current one. Snapshots that find HEAD where
it was leave the digest as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.schema import HEAD_MOVED_KEY

from .codex_rollout import Rollout, codex_say, codex_summary, codex_user, exec_head, rec, sections

_STATUS = "## main\n D app.js\n M index.html\n?? board.js\n?? engine.js\n?? moves.js\n"
_HEADS = ("1a2b3c4d5e6f", "5e6f7a8b9c0d", "9c0d1e2f3a4b", "3a4b5c6d7e8f")


def _snapshot(parent: str | None) -> dict[str, Any]:
    ghost: dict[str, Any] = {"id": "f" * 40, "parent": parent, "preexisting_untracked_files": []}
    return rec("response_item", {"type": "ghost_snapshot", "ghost_commit": ghost})


def _records(*, moved: bool) -> list[dict[str, Any]]:
    r = Rollout("/w/chess")
    r.records += [_snapshot(_HEADS[0]), codex_user("Split app.js into modules.")]
    r.exec("git status -sb", exec_head(0, _STATUS))
    r.records.append(codex_say("Split into board.js, engine.js and moves.js; not committed yet."))
    for n in range(1, 4):  # the user commits between turns (moved), or does not
        r.records += [_snapshot(_HEADS[n] if moved else _HEADS[0]), codex_user(f"Next, step {n}.")]
        r.exec(f"sed -n 1,5p engine.js  # {n}", exec_head(0, "export function best() {}\n"))
        r.records.append(codex_say(f"Step {n} looked at engine.js."))
    return r.records


def _status_line(tmp_path: Path, *, moved: bool) -> str:
    text = codex_summary(_records(moved=moved), tmp_path, "s-69", "/w/chess")
    printed = sections(text, after="<summary>")["5"]
    return next(ln for ln in printed.splitlines() if "git status" in ln)


def test_a_status_before_commits_made_between_turns_is_dated(tmp_path: Path) -> None:
    status = _status_line(tmp_path, moved=True)
    assert "(before the 3 commits that followed: HEAD 1a2b3c4 → 3a4b5c6) untracked" in status
    assert "→ untracked" not in status, status


def test_a_status_with_head_unmoved_stays_current(tmp_path: Path) -> None:
    status = _status_line(tmp_path, moved=False)
    assert "→ untracked (not committed): board.js" in status, status
    assert "(before " not in status, status


def test_the_reader_marks_each_move_once(tmp_path: Path) -> None:
    codex_summary(_records(moved=True), tmp_path, "s-69", "/w/chess")  # writes rollout.jsonl
    path = tmp_path / "rollout.jsonl"
    messages = read_transcript(str(path), path.read_bytes()).messages
    moves = [m.extra[HEAD_MOVED_KEY] for m in messages if HEAD_MOVED_KEY in m.extra]
    assert moves == [list(_HEADS[0:2]), list(_HEADS[1:3]), list(_HEADS[2:4])]
